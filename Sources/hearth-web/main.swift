// hearth-web: the hub and every plugin's data in a browser, live. A reader like any plugin
// (its own key, the database read-only, the bus); it listens on the loopback addresses
// only. See `hearth-web --help` and docs/web.md.
import Foundation
import HearthCommandLine
import HearthHTTP
import HearthPlugin
import HearthService
import HearthSupport
import HearthWeb
import HearthWire

let log = Logger(label: "hearth-web")
let settingKeys = [
  "database", "runtime-dir", "keys-dir", "port", "hosts", "query-time-limit", "max-connections",
]

let usage = """
  usage: hearth-web [--port PORT] [--database PATH] [--runtime-dir DIR] [--config FILE]
                    [--KEY VALUE]… [--url] [--version] [--help] [--man]
                    [--completion bash]

  Serves the hub's pages — its status, the live feed of commits, every plugin's tables —
  on http://127.0.0.1:PORT and http://[::1]:PORT, and nowhere else. Prints a link that
  logs a browser in; its token (web.token, mode 0600) and the link (web.url) are kept in
  DIR-web, beside the hub's socket directory DIR ($XDG_RUNTIME_DIR/hearth-web). --url
  prints the link of the server running now.

  Settings, later ones winning: the config file (key = value lines, # comments; default
  $XDG_CONFIG_HOME/hearth/hearth-web.conf when it exists; --config none reads none), the
  environment (HEARTH_DATABASE, HEARTH_RUNTIME_DIR, HEARTH_KEYS_DIR), then flags. Keys:
  database, runtime-dir, keys-dir, port (default 4747; 0 picks a free one), hosts (more
  Host names the pages answer to, comma-separated host:port, for a reverse proxy),
  query-time-limit (seconds, default 2), max-connections (default 64).
  An unknown key or a value out of range: exit 2, nothing started.
  SIGTERM or SIGINT: close the live streams, exit 0.
  """

struct WebSettings {
  var paths = HubPaths.fromEnvironment()
  var port: UInt16 = 4747
  var hosts: [String] = []
  var queryTimeLimit = Duration.seconds(2)
  var maxConnections = 64
}

/// The settings from the file, the environment and the flags; exits 2 when one is wrong.
func readSettings(_ arguments: [String]) -> WebSettings {
  if arguments.contains("--help") || arguments.contains("-h") {
    print(usage)
    exit(0)
  }
  if arguments == ["--version"] {
    print("hearth-web \(Tool.hearthVersion)")
    exit(0)
  }
  if arguments == ["--man"] {
    let description = usage.split(separator: "\n", omittingEmptySubsequences: false)
      .drop { !$0.isEmpty }.dropFirst().joined(separator: "\n")
    print(
      ManPage(
        name: "hearth-web", summary: "the Hearth hub and its data in a browser",
        synopsis: [
          "[--port PORT] [--config FILE|none] [--KEY VALUE]…", "--url | --version | --help",
        ],
        sections: [
          .verbatim("Description", description),
          .items("Environment", Tool.environmentItems),
          .paragraphs("See also", ["hearthd(1), hearth(1); docs/web.md in Hearth's source."]),
        ], version: Tool.hearthVersion
      ).roff, terminator: "")
    exit(0)
  }
  if arguments == ["--completion", "bash"] {
    print(
      bashCompletion(
        name: "hearth-web", options: settingKeys + ["config", "url", "help", "version", "man"]),
      terminator: "")
    exit(0)
  }
  do {
    let input = try CommandInput(arguments, valued: Set(settingKeys + ["config"]))
    try input.checkFlags(["url"], known: Set(settingKeys + ["config"]))
    guard input.positionals.isEmpty else {
      throw CommandError.usage("unexpected argument \(input.positionals[0]); see --help")
    }
    let environment = ProcessInfo.processInfo.environment
    let named = input.option("config")
    // Beside hearthd's.
    let file =
      named
      ?? (URL(fileURLWithPath: HubPaths.defaultConfigFile(environment))
        .deletingLastPathComponent().path + "/hearth-web.conf")
    var values: [String: String] = [:]
    if named != "none", FileManager.default.fileExists(atPath: file) {
      let text = try String(contentsOfFile: file, encoding: .utf8)
      do {
        for (key, line) in try SettingsFile.lines(text) {
          guard settingKeys.contains(key) else {
            throw CommandError.usage(
              "\(file):\(line.number): \(key) is not a setting of hearth-web")
          }
          values[key] = line.value
        }
      } catch let problem as SettingsFile.Problem {
        throw CommandError.usage("\(file):\(problem.line): \(problem.key): \(problem.problem)")
      }
    } else if let named, named != "none" {
      throw CommandError.usage(
        "\(named): no such config file (--config none starts on the defaults)")
    }
    for key in settingKeys { if let value = input.option(key) { values[key] = value } }
    var settings = WebSettings()
    if let value = values["database"] { settings.paths.databasePath = value }
    if let value = values["runtime-dir"] { settings.paths.runtimeDirectory = value }
    if let value = values["keys-dir"] { settings.paths.keysDirectory = value }
    if let text = values["port"] {
      guard let port = UInt16(text) else {
        throw CommandError.usage("port: a number from 0 to 65535, not '\(text)'")
      }
      settings.port = port
    }
    if let text = values["hosts"] {
      settings.hosts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty }
    }
    if let text = values["query-time-limit"] {
      guard let seconds = Double(text), seconds >= 0.01, seconds <= 600 else {
        throw CommandError.usage("query-time-limit: seconds from 0.01 to 600, not '\(text)'")
      }
      settings.queryTimeLimit = .milliseconds(Int(seconds * 1000))
    }
    if let text = values["max-connections"] {
      guard let count = Int(text), (2...1_000).contains(count) else {
        throw CommandError.usage("max-connections: 2 to 1000, not '\(text)'")
      }
      settings.maxConnections = count
    }
    if input.flag("url") {
      let path = webDirectory(settings.paths) + "/web.url"
      guard let url = try? String(contentsOfFile: path, encoding: .utf8) else {
        FileHandle.standardError.write(
          Data("hearth-web: not running (no \(path)); start it: hearth-web\n".utf8))
        exit(ExitCode.hubUnavailable.rawValue)
      }
      print(url.trimmingCharacters(in: .whitespacesAndNewlines))
      exit(0)
    }
    return settings
  } catch {
    FileHandle.standardError.write(Data("hearth-web: \(error); see --help\n".utf8))
    exit(2)
  }
}

/// Where hearth-web keeps its token and link: beside the hub's socket directory, named like
/// it with `-web` (`$XDG_RUNTIME_DIR/hearth-web`, which its unit's RuntimeDirectory= makes).
func webDirectory(_ paths: HubPaths) -> String {
  var directory = paths.runtimeDirectory
  while directory.count > 1, directory.hasSuffix("/") { directory.removeLast() }
  return directory + "-web"
}

let settings = readSettings(Array(CommandLine.arguments.dropFirst()))
let paths = settings.paths

/// The server until the group stops it.
final class WebService: Service, @unchecked Sendable {
  // Safe: `server` and `app` are set once in `init`; `done` is a semaphore.
  let server: HTTPServer
  let app: WebApp
  let done = DispatchSemaphore(value: 0)
  var name: String { "web" }

  init(server: HTTPServer, app: WebApp) {
    self.server = server
    self.app = app
  }

  func run() throws { done.wait() }

  func stop() {
    app.stop()
    server.stop()
    done.signal()
  }
}

do {
  let directory = webDirectory(paths)
  try FileManager.default.createDirectory(
    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
  let auth = try WebAuth.load(from: directory + "/web.token")
  let transport = try HubTransport.fromEnvironment(paths, plugin: "web")
  var limits = HTTPServer.Limits()
  limits.connections = settings.maxConnections
  limits.connectionsPerAddress = max(1, settings.maxConnections * 3 / 4)
  // The app needs the port for its Host check, and the port is known once listening: the
  // handler reads the app through this box, filled before the first request can pass it.
  let box = Locked<WebApp?>(nil)
  let server = HTTPServer(limits: limits, commonHeaders: WebHeaders.always, log: log) { request in
    guard let app = box.withLock({ $0 }) else { return .text(503, "starting\n") }
    return app.handle(request)
  }
  try server.start(port: settings.port)
  let app = WebApp(
    paths: paths, auth: auth, gate: RequestGate(port: server.port, extraHosts: settings.hosts),
    transport: transport, queryTimeLimit: settings.queryTimeLimit, log: log)
  box.withLock { $0 = app }
  let url = "http://127.0.0.1:\(server.port)/login?token=\(auth.token)"
  let urlFile = directory + "/web.url"
  _ = FileManager.default.createFile(
    atPath: urlFile, contents: Data((url + "\n").utf8), attributes: [.posixPermissions: 0o600])
  log.notice(
    "serving \(paths.databasePath) on \(server.addresses.map { $0.contains(":") ? "[\($0)]" : $0 }.map { "\($0):\(server.port)" }.joined(separator: " and "))"
  )
  FileHandle.standardOutput.write(Data("hearth-web: open \(url)\n".utf8))
  try ServiceGroup([WebService(server: server, app: app)], logger: log).run()
  try? FileManager.default.removeItem(atPath: urlFile)
  exit(0)
} catch {
  log.error("cannot start: \(error)")
  exit(1)
}
