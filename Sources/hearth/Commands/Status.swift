import Foundation
import HearthCommandLine
import HearthSQLite
import HearthWire

let statusCommand = Command(
  "status", arguments: "[--wait SECONDS]",
  summary:
    "is the hub up? its sequence number, plugins, database size and WAL; with --wait, waits "
    + "up to SECONDS for a hub that is starting (exit 3 if none answers by then)",
  valuedOptions: ["wait"]
) { input in
  let paths = hubPaths(input)
  let patience = try input.seconds("wait", default: 0, in: 0...3600)
  let deadline = ContinuousClock.now + .milliseconds(Int(patience * 1000))
  var answer = hello(paths, locks: true)
  while answer == nil, ContinuousClock.now < deadline {
    Thread.sleep(forTimeInterval: 0.05)
    answer = hello(paths, locks: true)
  }
  let welcome = answer
  let size = sizeOfFile(paths.databasePath)
  let walSize = sizeOfFile(paths.databasePath + "-wal")
  let plugins =
    FileManager.default.fileExists(atPath: paths.databasePath)
    ? (try? openDatabase(paths).read(HubTables.registeredPlugins).count) ?? 0 : 0
  let sync = welcome == nil ? nil : syncSummary(paths)
  let output = CommandOutput(
    text: {
      guard let welcome else {
        return """
          hub       down: no answer at \(paths.requestEndpoint)
                    start it: systemctl --user start hearthd (or run hearthd)
          """
      }
      var lines = [
        "hub       up (instance \(welcome.hub.prefix(8)))", "sequence  \(welcome.seq)",
        "plugins   \(plugins)", "database  \(paths.databasePath) (\(fileSize(size + walSize)))",
      ]
      if let wal = welcome.wal { lines.append(walDescription(wal, fileBytes: walSize)) }
      if let connections = welcome.connections {
        lines.append(connectionsDescription(connections))
      }
      for lock in welcome.locks ?? [] { lines.append(lockDescription(lock)) }
      if let sync = sync { lines.append(sync.text) }
      return lines.joined(separator: "\n")
    },
    json: {
      var object: [String: Any] = [
        "up": welcome != nil, "database": paths.databasePath, "databaseBytes": size + walSize,
        "plugins": plugins, "endpoint": paths.requestEndpoint,
      ]
      if let welcome {
        object["hub"] = welcome.hub
        object["seq"] = welcome.seq
        if let wal = welcome.wal {
          object["wal"] = try JSONSerialization.jsonObject(with: WireCoding.encode(wal))
        }
        if let connections = welcome.connections {
          object["connections"] = try JSONSerialization.jsonObject(
            with: WireCoding.encode(connections))
        }
        object["locks"] = try JSONSerialization.jsonObject(
          with: WireCoding.encode(welcome.locks ?? []))
      }
      if let sync { object["sync"] = sync.json }
      return try jsonData(object)
    })
  return output.exiting(with: welcome == nil ? .hubUnavailable : .success)
}

/// `wal       3 MB (limit 33.6 MB, peak 33.6 MB, file 33.6 MB; 76 restarts)`, then the last
/// checkpoint: `last checkpoint 0.2 s ago: passive, complete, 156 of 156 frames, 0.7 ms`.
func walDescription(_ wal: WALStatus, fileBytes: Int) -> String {
  var line =
    "wal       \(fileSize(wal.bytes)) (limit \(fileSize(wal.limit)), peak \(fileSize(wal.peakBytes)), "
    + "file \(fileSize(fileBytes)); \(wal.restarts) restarts"
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

/// `files     41 open (limit 65536, hard 65536)`, then the request stream's connections and
/// what its limits refused since the hub started.
func connectionsDescription(_ status: ConnectionStatus) -> String {
  var text =
    "files     \(status.openFiles) open (limit \(status.fileLimit), hard \(status.fileHardLimit))"
    + "\nstream    \(status.streamConnections) connections of \(status.maxStreamConnections) "
    + "(\(status.maxConnectionsPerPrincipal) a plugin), \(status.streamHandshaking) in their "
    + "handshake; \(status.waitingRequests) requests waiting; replies unread "
    + "\(fileSize(status.replyBytes)) of \(fileSize(status.replyBudget))"
  let refused = [
    (status.refusedConnections, "refused at the most"),
    (status.closedHandshakes, "handshakes closed for newer ones"),
    (status.refusedForPrincipal, "refused past a plugin's most"),
    (status.closedForReplies, "closed for unread replies"),
    (status.acceptFailures, "accepts failed for want of descriptors"),
  ].filter { $0.0 > 0 }
  if !refused.isEmpty {
    text += "\n          since start: " + refused.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
  }
  return text
}

/// `LOCKED    pid 4242 (python3, hearth-feature@x.service) holds a shared lock on SQLite's
/// write lock: every write fails until it lets go`.
func lockDescription(_ lock: ForeignLock) -> String {
  let who = lock.pid.map { "pid \($0)" } ?? "an open file description"
  let what = [lock.command, lock.unit].compactMap { $0 }.joined(separator: ", ")
  let effect =
    lock.lock == "write"
    ? "every write fails until it lets go" : "checkpoints wait (the WAL grows) until it lets go"
  return "LOCKED    \(who)\(what.isEmpty ? "" : " (\(what))") holds a \(lock.mode) lock on "
    + "SQLite's \(lock.lock) lock of the database's -shm: \(effect)"
}
