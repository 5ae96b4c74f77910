import Foundation
import HearthSQLite
import HearthTestbed
import HearthWire

/// A subscriber (`hearth subscribe`) stopped while far more commits pass than the bus holds
/// for it: once resumed it sees the gap, reads the feed, and ends with exactly the feed's
/// sequence numbers, in order, none twice.
func stalledSubscriber(_ options: Options) throws -> String {
  let directory = try temporaryDirectory()
  defer { try? FileManager.default.removeItem(at: directory) }
  let hub = try HubProcess(directory: directory, config: "bus-high-water-mark = 5\n")
  _ = try hub.waitUntilReady()
  defer { _ = hub.terminate() }
  let subscriber = try SubscriberProcess(hub: hub, arguments: ["--since", "0"])
  defer { subscriber.stop() }
  try write(3, as: "warmup", to: hub)
  try waitUntil("the subscriber following the first commits") { subscriber.sequences.count == 4 }
  subscriber.signal(SIGSTOP)
  let burst = options.quick ? 500 : 3_000
  try write(burst, as: "burst", to: hub)
  subscriber.signal(SIGCONT)
  let feed = try openReadOnly(hub.databasePath).read { db in
    try HubTables.commits(after: 0, db).map(\.seq)
  }
  try waitUntil("the subscriber catching up", timeout: .seconds(60)) {
    subscriber.sequences.count >= feed.count
  }
  Thread.sleep(forTimeInterval: 1.5)  // a heartbeat or two: nothing more may come
  guard subscriber.sequences == feed else {
    throw TestbedError(
      "the subscriber saw \(subscriber.sequences.count) commits, the feed has \(feed.count)")
  }
  return "stopped across \(burst) commits (high-water mark 5); resumed, it saw all "
    + "\(feed.count) feed entries in order, none twice"
}

func write(_ count: Int, as plugin: String, to hub: HubProcess) throws {
  let writer = try LoadgenProcess(
    hub: hub, arguments: ["--plugin", plugin, "--count", String(count)])
  guard try writer.waitForExit() == 0 else {
    throw TestbedError("writer \(plugin) failed: \(writer.lines.suffix(3))")
  }
}

/// The database on a small file system that fills under a writer: the writer gets a clear
/// error and nothing of the failed transaction stays; the hub keeps answering and serving
/// reads; once space returns, writes go through again. Needs root (it mounts a tmpfs).
func diskFull(_ options: Options) throws -> String {
  guard getuid() == 0 else {
    throw Skipped("mounting a small filesystem needs root; run as root to check a full disk")
  }
  let directory = try temporaryDirectory()
  defer { try? FileManager.default.removeItem(at: directory) }
  let small = directory.appendingPathComponent("small")
  try FileManager.default.createDirectory(at: small, withIntermediateDirectories: true)
  guard try runCommand("/bin/mount", ["-t", "tmpfs", "-o", "size=6m", "tmpfs", small.path]) == 0
  else {
    throw TestbedError("cannot mount a small tmpfs (the disk-full scenario needs root)")
  }
  defer { _ = try? runCommand("/bin/umount", ["-l", small.path]) }
  // Most of the space goes to a file that is removed later: the space that returns.
  let filler = small.appendingPathComponent("filler")
  try Data(count: 4 << 20).write(to: filler)

  let hub = try HubProcess(
    directory: directory, databasePath: small.appendingPathComponent("hearth.sqlite").path)
  _ = try hub.waitUntilReady()
  defer { _ = hub.terminate() }
  let writer = try LoadgenProcess(
    hub: hub, arguments: ["--plugin", "filling", "--count", "1000000", "--pair"])
  let status = try writer.waitForExit(timeout: .seconds(120))
  guard status != 0, let failure = writer.lines.last(where: { $0.contains("failed") }) else {
    throw TestbedError("the writer did not fail on a full disk: \(writer.lines.suffix(2))")
  }
  guard failure.contains("full") else {
    throw TestbedError("the writer's error does not say the disk is full: \(failure)")
  }
  let acknowledged = writer.acknowledged.count

  // The hub still answers, and the data reads.
  let (statusCode, statusOutput) = try runToEnd(
    "hearth", ["status", "--database", hub.databasePath, "--runtime-dir", hub.runtimeDirectory])
  guard statusCode == 0 else { throw TestbedError("hearth status on a full disk: \(statusOutput)") }
  let rows = try openReadOnly(hub.databasePath).read { db in
    try Int.fetchOne(db, sql: "SELECT count(*) FROM filling_rows") ?? 0
  }
  guard rows == 2 * acknowledged else {
    throw TestbedError("\(acknowledged) acknowledged transactions but \(rows) rows (2 each)")
  }

  // Space returns: writes go through again, without a restart.
  try FileManager.default.removeItem(at: filler)
  let after = try LoadgenProcess(hub: hub, arguments: ["--plugin", "after", "--count", "50"])
  guard try after.waitForExit(timeout: .seconds(60)) == 0 else {
    throw TestbedError("no writes after space returned: \(after.lines.suffix(3))")
  }
  try openReadOnly(hub.databasePath).read { try checkIntegrity($0) }
  try expectRows(hub, ["after-49": 1])
  return "full after \(acknowledged) transactions; the writer got \"\(failure.suffix(60))\"; "
    + "status and reads served while full; all \(acknowledged) acknowledged present, whole; "
    + "writes resumed once space returned; integrity ok"
}

/// A database that is not one (garbage behind a SQLite header, one saying WAL too), and one
/// of another hub format: hearthd refuses each with a message and leaves the file, and the
/// directory, as they were.
func badDatabase(_ options: Options) throws -> String {
  let directory = try temporaryDirectory()
  defer { try? FileManager.default.removeItem(at: directory) }
  let corrupt = directory.appendingPathComponent("corrupt.sqlite")
  var bytes = Data("SQLite format 3\0".utf8)
  bytes.append(contentsOf: (0..<(64 << 10)).map { _ in UInt8.random(in: 0...255) })
  try bytes.write(to: corrupt)

  // The same with a header that says WAL (file format versions 2), for which SQLite makes
  // a -wal and -shm even to look.
  let corruptWAL = directory.appendingPathComponent("corrupt-wal.sqlite")
  bytes[18] = 2
  bytes[19] = 2
  try bytes.write(to: corruptWAL)

  let otherFormat = directory.appendingPathComponent("other.sqlite")
  let queue = try DatabaseQueue(path: otherFormat.path)
  try queue.write { db in
    try db.execute(sql: "PRAGMA journal_mode = DELETE")
    try db.execute(
      sql: "CREATE TABLE \(HubTables.meta) (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    try db.execute(sql: "INSERT INTO \(HubTables.meta) VALUES ('format', '99'), ('lastSeq', '7')")
  }

  var established: [String] = []
  for (file, expected) in [
    (corrupt, "not a sound database"), (corruptWAL, "not a sound database"),
    (otherFormat, "hub format 99"),
  ] {
    let before = try Data(contentsOf: file)
    let hub = try HubProcess(directory: directory, databasePath: file.path)
    try waitUntil("hearthd refusing \(file.lastPathComponent)", timeout: .seconds(20)) {
      !hub.process.isRunning
    }
    guard hub.process.terminationStatus != 0, hub.logText.contains(expected) else {
      throw TestbedError(
        "hearthd on \(file.lastPathComponent): status \(hub.process.terminationStatus), "
          + "log \(hub.logText.suffix(200))")
    }
    guard try Data(contentsOf: file) == before else {
      throw TestbedError("hearthd changed \(file.lastPathComponent) while refusing it")
    }
    for suffix in ["-wal", "-shm", "-journal"] {
      guard !FileManager.default.fileExists(atPath: file.path + suffix) else {
        throw TestbedError("hearthd left \(file.lastPathComponent)\(suffix) behind")
      }
    }
    established.append("\(file.lastPathComponent): refused (\"\(expected)\"), file unchanged")
  }
  return established.joined(separator: "; ")
}

/// Runs a system command; its exit status.
func runCommand(_ path: String, _ arguments: [String]) throws -> Int32 {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: path)
  process.arguments = arguments
  try process.run()
  process.waitUntilExit()
  return process.terminationStatus
}
