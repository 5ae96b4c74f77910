// hearth: the admin CLI of a Hearth hub.
//
//   hearth status | plugins | subscribe [TABLE…] [--since SEQ] | query SQL | backup PATH | check
//          | new-plugin NAME [--in DIR] [--hearth PATH]
//
// Exit codes: 0 success, 1 failure (the message says what to do), 2 bad usage, 3 hub down.
import Foundation
import HearthSQLite
import HearthWire
import HearthZMQ

let usage = """
  usage: hearth COMMAND [--json] [--database PATH] [--runtime-dir DIR]

  commands:
    status                       is the hub up? its sequence number, plugins, database size
    plugins                      the registered plugins, the tables they own, their cursors
    subscribe [TABLE…] [--since SEQ]
                                 commits as JSON lines: from the feed after SEQ, then live,
                                 in order, none twice (default: from now)
    query SQL                    runs a read-only query; rows as tab-separated text or JSON
    backup PATH                  copies the database online (consistent, while writers go on)
    check                        runs SQLite's integrity check; exit 1 when it fails
    new-plugin NAME [--in DIR] [--hearth PATH]
                                 writes a working plugin package, hearth-NAME, that builds
                                 against this Hearth checkout (or PATH) by path

  The database and socket directory default as for hearthd ($HEARTH_DATABASE,
  $HEARTH_RUNTIME_DIR, else the XDG directories).
  """

struct UsageError: Error, CustomStringConvertible {
  var description: String
}

func fail(_ message: String, code: Int32 = 1) -> Never {
  FileHandle.standardError.write(Data("hearth: \(message)\n".utf8))
  exit(code)
}

func printJSON(_ object: Any) {
  let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
  print(String(decoding: data, as: UTF8.self))
}

var arguments = Array(CommandLine.arguments.dropFirst())
var json = false
var paths = HubPaths.fromEnvironment()
var positional: [String] = []
var since: Int64?
var scaffoldDirectory = "."
var scaffoldHearth: String?
var index = 0
while index < arguments.count {
  let argument = arguments[index]
  switch argument {
  case "--help", "-h":
    print(usage)
    exit(0)
  case "--version":
    print("hearth 0.1.0 (protocol \(WireProtocol.version))")
    exit(0)
  case "--json": json = true
  case "--database", "--runtime-dir", "--since", "--in", "--hearth":
    guard index + 1 < arguments.count else {
      fail("\(argument) needs a value; see --help", code: 2)
    }
    let value = arguments[index + 1]
    index += 1
    switch argument {
    case "--database": paths.databasePath = value
    case "--runtime-dir": paths.runtimeDirectory = value
    case "--in": scaffoldDirectory = value
    case "--hearth": scaffoldHearth = value
    default:
      guard let seq = Int64(value), seq >= 0 else {
        fail("--since takes a sequence number", code: 2)
      }
      since = seq
    }
  default:
    if argument.hasPrefix("--") { fail("unknown option \(argument); see --help", code: 2) }
    positional.append(argument)
  }
  index += 1
}

guard let command = positional.first else { fail("which command? see --help", code: 2) }
let rest = Array(positional.dropFirst())

@MainActor func openDatabase() -> DatabaseQueue {
  guard FileManager.default.fileExists(atPath: paths.databasePath) else {
    fail("no database at \(paths.databasePath); is hearthd set up? (hearth --help)")
  }
  var configuration = Configuration()
  configuration.readonly = true
  do {
    return try DatabaseQueue(path: paths.databasePath, configuration: configuration)
  } catch {
    fail("cannot open \(paths.databasePath): \(error)")
  }
}

/// `wal       3 MB (limit 33.6 MB, peak 33.6 MB, file 33.6 MB; 76 restarts)`, then the last
/// checkpoint: `last checkpoint 0.2 s ago: passive, complete, 156 of 156 frames, 0.7 ms`.
func walDescription(_ wal: WALStatus, fileBytes: Int) -> String {
  func size(_ bytes: Int) -> String {
    ByteCountFormatter.string(fromByteCount: Int64(bytes), countStyle: .file)
  }
  var line =
    "wal       \(size(wal.bytes)) (limit \(size(wal.limit)), peak \(size(wal.peakBytes)), "
    + "file \(size(fileBytes)); \(wal.restarts) restarts"
    + (wal.incompleteRestarts > 0 ? ", \(wal.incompleteRestarts) held off by readers)" : ")")
  if let checkpoint = wal.checkpoint {
    let ago = max(0, Date().timeIntervalSince1970 - Double(checkpoint.at) / 1000)
    line += String(
      format: "\n          last checkpoint %.1f s ago: %@, %@, %d of %d frames, %.1f ms", ago,
      checkpoint.mode, checkpoint.complete ? "complete" : "held off by a reader",
      checkpoint.checkpointedFrames, checkpoint.walFrames, checkpoint.milliseconds)
  }
  return line
}

/// Asks the hub who it is; nil when it does not answer.
@MainActor func hello() -> WelcomeReply? {
  guard let socket = try? BusSocket(BusContext(), .dealer) else { return nil }
  try? socket.connect(paths.requestEndpoint)
  let id = UUID().uuidString
  guard let body = try? WireCoding.encode(HelloRequest(id: id)), (try? socket.send([body])) != nil,
    let reply = try? socket.receive(timeout: .seconds(1)), let frame = reply.last
  else { return nil }
  return try? WireCoding.decode(WelcomeReply.self, from: frame)
}

switch command {
case "new-plugin":
  guard let name = rest.first, rest.count == 1 else {
    fail("new-plugin takes one NAME (e.g. hearth new-plugin notes)", code: 2)
  }
  guard PluginScaffold.validate(name) else {
    fail(
      "'\(name)' cannot name a plugin: use lower-case letters, digits and single hyphens, "
        + "starting with a letter (e.g. reading-list)", code: 2)
  }
  guard let hearthPath = scaffoldHearth ?? hearthCheckout() else {
    fail("cannot tell where Hearth is checked out; give --hearth PATH", code: 2)
  }
  let root: URL
  do {
    root = try PluginScaffold(name: name, hearthPath: hearthPath)
      .write(into: URL(fileURLWithPath: scaffoldDirectory))
  } catch {
    fail("\(error)")
  }
  if json {
    printJSON(["path": root.path, "executable": "hearth-\(name)"])
  } else {
    print(
      """
      Created \(root.path), a plugin that builds against \(hearthPath).
      Next: cd \(root.path) && swift build && .build/debug/hearth-\(name) add "hello"
      (with the hub running). Guide: \(hearthPath)/docs/plugin-guide.md
      """)
  }
case "status":
  let welcome = hello()
  let size =
    (try? FileManager.default.attributesOfItem(atPath: paths.databasePath)[.size] as? Int) ?? 0
  let walSize =
    (try? FileManager.default.attributesOfItem(atPath: paths.databasePath + "-wal")[.size] as? Int)
    ?? 0
  let plugins =
    FileManager.default.fileExists(atPath: paths.databasePath)
    ? (try? openDatabase().read(HubTables.registeredPlugins).count) ?? 0
    : 0
  if json {
    var object: [String: Any] = [
      "up": welcome != nil, "database": paths.databasePath, "databaseBytes": size + walSize,
      "plugins": plugins, "endpoint": paths.requestEndpoint,
    ]
    if let welcome {
      object["hub"] = welcome.hub
      object["seq"] = welcome.seq
      if let wal = welcome.wal,
        let encoded = try? JSONSerialization.jsonObject(with: WireCoding.encode(wal))
      {
        object["wal"] = encoded
      }
    }
    printJSON(object)
  } else if let welcome {
    print("hub       up (instance \(welcome.hub.prefix(8)))")
    print("sequence  \(welcome.seq)")
    print("plugins   \(plugins)")
    print(
      "database  \(paths.databasePath) (\(ByteCountFormatter.string(fromByteCount: Int64(size + walSize), countStyle: .file)))"
    )
    if let wal = welcome.wal { print(walDescription(wal, fileBytes: walSize)) }
  } else {
    print("hub       down: no answer at \(paths.requestEndpoint)")
    print("          start it: systemctl --user start hearthd (or run hearthd)")
  }
  exit(welcome == nil ? 3 : 0)

case "plugins":
  for plugin in (try? openDatabase().read(HubTables.registeredPlugins)) ?? [] {
    if json {
      printJSON([
        "name": plugin.name, "version": plugin.version, "tables": plugin.tables,
        "cursor": plugin.cursor.map { $0 as Any } ?? NSNull(),
      ])
    } else {
      print(
        "\(plugin.name) \(plugin.version)  tables: "
          + (plugin.tables.isEmpty ? "-" : plugin.tables.joined(separator: ","))
          + "  cursor: \(plugin.cursor.map(String.init) ?? "-")")
    }
  }

case "query":
  guard let sql = rest.first else { fail("query needs SQL: hearth query 'SELECT …'", code: 2) }
  do {
    let rows = try openDatabase().read { db in try Row.fetchAll(db, sql: sql) }
    for row in rows {
      let values = row.databaseValues
      if json {
        var object: [String: Any] = [:]
        for (name, value) in zip(row.columnNames, values) {
          switch value.storage {
          case .null: object[name] = NSNull()
          case .integer(let integer): object[name] = integer
          case .double(let double): object[name] = double
          case .text(let text): object[name] = text
          case .blob(let data): object[name] = data.base64EncodedString()
          }
        }
        printJSON(object)
      } else {
        print(
          values.map { value -> String in
            if case .text(let text) = value.storage { return text }
            return value.description
          }.joined(separator: "\t"))
      }
    }
  } catch {
    fail("\(error)")
  }

case "backup":
  guard let target = rest.first else {
    fail("backup needs a destination: hearth backup PATH", code: 2)
  }
  let showProgress = isatty(STDERR_FILENO) == 1
  do {
    try openDatabase().backup(toPath: target, pagesPerStep: 256) { progress in
      if showProgress {
        let percent =
          progress.totalPageCount == 0
          ? 100 : progress.completedPageCount * 100 / progress.totalPageCount
        FileHandle.standardError.write(Data("\rbackup \(percent)%".utf8))
      }
    }
    if showProgress { FileHandle.standardError.write(Data("\n".utf8)) }
    let verdict = try DatabaseQueue(path: target).read { try $0.integrityCheck() }
    guard verdict == ["ok"] else {
      fail("the copy at \(target) fails its integrity check: \(verdict)")
    }
    if json {
      printJSON(["backup": target, "integrity": "ok"])
    } else {
      print("backed up to \(target) (integrity ok)")
    }
  } catch {
    fail("backup failed: \(error)")
  }

case "check":
  do {
    let verdict = try openDatabase().read { try $0.integrityCheck() }
    if json {
      printJSON(["ok": verdict == ["ok"], "messages": verdict])
    } else {
      print(verdict.joined(separator: "\n"))
    }
    exit(verdict == ["ok"] ? 0 : 1)
  } catch {
    fail("check failed: \(error)")
  }

case "subscribe":
  let tables = Set(rest)
  let follower: FeedFollower
  do {
    follower = try FeedFollower(
      context: BusContext(), endpoint: paths.busEndpoint, reader: openDatabase(),
      from: since.map(FeedFollower.Start.after) ?? .now, receiveHighWaterMark: 100_000)
  } catch {
    fail("cannot follow the bus at \(paths.busEndpoint): \(error)")
  }

  func emit(_ deliveries: [FeedFollower.Delivery]) {
    for delivery in deliveries {
      switch delivery {
      case .commit(var event):
        if !tables.isEmpty {
          event.tables = event.tables.filter { tables.contains($0.key) }
          if event.tables.isEmpty && event.schemaChanged != true { continue }
        }
        if let data = try? WireCoding.encode(event) {
          // Written at once, unbuffered: a pipe reader sees each commit as it happens.
          FileHandle.standardOutput.write(data + Data("\n".utf8))
        }
      case .missed(let after, let through):
        FileHandle.standardError.write(
          Data(
            "hearth: commits \(after + 1)…\(through) are no longer in the feed; re-read what you follow\n"
              .utf8))
      }
    }
  }

  do {
    emit(try follower.catchUp())
    while true { emit(try follower.poll(timeout: .seconds(1))) }
  } catch {
    fail("following the feed failed: \(error)")
  }

default:
  fail("unknown command \(command); see --help", code: 2)
}
