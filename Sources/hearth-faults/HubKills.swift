import Foundation
import HearthSQLite
import HearthTestbed
import HearthWire

/// SIGKILL of the hub at random moments under 4 writers whose transactions insert two rows
/// each and retry with their request ids. Afterwards every writer has finished on its own,
/// every transaction is present exactly once and whole, the feed holds each request once,
/// and the integrity check passes.
func hubKills(_ options: Options) throws -> String {
  let kills = options.kills ?? (options.quick ? 5 : 25)
  // Enough work that the writers are still busy at the last kill: a kill and a restart take
  // a quarter of a second at most, and 400 transactions a writer take about as long here.
  let perWriter = max(2_000, kills * 400)
  let directory = try temporaryDirectory()
  defer { try? FileManager.default.removeItem(at: directory) }
  var hub = try HubProcess(directory: directory)
  // Whatever fails, nothing of the scenario outlives it.
  defer { if hub.process.isRunning { hub.kill() } }
  _ = try hub.waitUntilReady()
  let writers = try (0..<4).map { index in
    try LoadgenProcess(
      hub: hub, arguments: ["--plugin", "w\(index)", "--count", String(perWriter), "--pair"])
  }
  defer { for writer in writers where writer.process.isRunning { writer.process.terminate() } }
  var done = 0
  while done < kills {
    guard writers.contains(where: { $0.process.isRunning }) else {
      throw TestbedError(
        "the writers finished after \(done) of \(kills) kills; give them more work")
    }
    // Kill at a random moment of the load: a commit in flight, a reply unsent, a
    // checkpoint, a registration.
    Thread.sleep(forTimeInterval: .random(in: 0.01...0.25))
    hub.kill()
    done += 1
    Thread.sleep(forTimeInterval: .random(in: 0...0.1))
    hub = try HubProcess(directory: directory)
    _ = try hub.waitUntilReady()
  }
  for (index, writer) in writers.enumerated() {
    let status = try writer.waitForExit(timeout: .seconds(300))
    guard status == 0 else {
      throw TestbedError("writer w\(index) exited \(status): \(writer.lines.suffix(3))")
    }
    guard Set(writer.acknowledged) == Set(0..<perWriter) else {
      throw TestbedError("writer w\(index) has \(writer.acknowledged.count) acknowledgements")
    }
  }
  guard hub.terminate() == 0 else { throw TestbedError("the hub did not stop cleanly") }
  let database = try openReadOnly(hub.databasePath)
  let feed = try database.read { db in
    try checkIntegrity(db)
    for index in 0..<4 {
      let keys = try String.fetchAll(db, sql: "SELECT key FROM w\(index)_rows")
      let expected = Set((0..<perWriter).flatMap { ["w\(index)-\($0)", "w\(index)-\($0)-b"] })
      guard keys.count == expected.count, Set(keys) == expected else {
        throw TestbedError(
          "w\(index): \(keys.count) rows, \(Set(keys).count) distinct, expected \(expected.count)"
        )
      }
    }
    let feed = try HubTables.commits(after: 0, db)
    let entries = feed.count
    let requests = Set(feed.map(\.request)).count
    guard entries == requests else {
      throw TestbedError("the feed has \(entries) entries for \(requests) requests")
    }
    return entries
  }
  return "\(kills) kills; \(4 * perWriter) acknowledged transactions, each present once and "
    + "whole (\(8 * perWriter) rows); \(feed) feed entries, no request twice; integrity ok; "
    + "every writer finished on its own"
}

func openReadOnly(_ path: String) throws -> DatabaseQueue {
  var configuration = Configuration()
  configuration.readonly = true
  return try DatabaseQueue(path: path, configuration: configuration)
}

func checkIntegrity(_ db: Database) throws {
  let report = try db.integrityCheck()
  guard report == ["ok"] else { throw TestbedError("integrity_check: \(report.prefix(5))") }
}
