import Foundation
import HearthDataTestSupport
import HearthHub
import HearthPlugin
import HearthPostgres
import HearthSQLite
import HearthSync
import HearthTestbed
import HearthWire
import Testing

/// A hearthd process that syncs (or not, while `online` is false), over one directory kept
/// across its restarts and kills.
final class SyncingHubProcess: SyncPeer {
  let name: String
  let directory: URL
  let server: PostgresServer
  let settings: String
  /// The person it syncs as (the server's login).
  let role: String
  private(set) var process: HubProcess
  private(set) var todo: HubDatabase

  init(
    _ name: String, server: PostgresServer, online: Bool = true, settings: String = "",
    role: String = "hearth"
  ) throws {
    self.name = name
    self.server = server
    self.settings = settings
    self.role = role
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "hearth-syncp-\(name)-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    (process, todo) = try Self.start(directory, server, online: online, settings, role: role)
    let reply = try RawClient(paths, as: "todo").send(
      #"{"v":1,"type":"sync","id":"declare","plugin":"todo","tables":["lists","items"]}"#)
    guard reply["type"] as? String == "syncing" else { throw HubError("sync refused: \(reply)") }
  }

  var paths: HubPaths {
    HubPaths(databasePath: process.databasePath, runtimeDirectory: process.runtimeDirectory)
  }

  private static func start(
    _ directory: URL, _ server: PostgresServer, online: Bool, _ settings: String,
    role: String
  ) throws -> (HubProcess, HubDatabase) {
    let config = (online ? "sync-server = \(server.conninfo(user: role))\n" : "") + settings
    let process = try HubProcess(directory: directory, config: config)
    _ = try process.waitUntilReady()
    let paths = HubPaths(
      databasePath: process.databasePath, runtimeDirectory: process.runtimeDirectory)
    return (process, try HubDatabase.registered(todoPlugin, paths: paths))
  }

  /// Kills the hub with SIGKILL, then starts it again.
  func killAndRestart(online: Bool = true) throws {
    process.kill()
    (process, todo) = try Self.start(directory, server, online: online, settings, role: role)
  }

  /// Stops the hub (SIGTERM), then starts it again.
  func restart(online: Bool = true) throws {
    _ = process.terminate()
    (process, todo) = try Self.start(directory, server, online: online, settings, role: role)
  }

  /// What every run of the hub so far wrote to its log.
  var logLines: [String] {
    let logs = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return logs.filter { $0.hasPrefix("hub-") && $0.hasSuffix(".log") }.flatMap { name in
      ((try? String(contentsOfFile: directory.appendingPathComponent(name).path, encoding: .utf8))
        ?? "").split(separator: "\n").map(String.init)
    }
  }

  func stopAndRemove() {
    _ = process.terminate()
    try? FileManager.default.removeItem(at: directory)
  }
}

extension SyncSuites {
  @Suite(.serialized) struct SyncFailureTests {
    /// Transactions acknowledged before a SIGKILL reach the other hub once the killed one is
    /// back, each once; so do those committed while no server was configured.
    @Test func aKilledHubLosesAndDuplicatesNothingOfWhatItCommittedBeforeItsPush() throws {
      let server = try PostgresServer()
      defer { server.stop() }
      let a = try SyncingHubProcess("a", server: server, online: false)
      let b = try SyncingHubProcess("b", server: server)
      defer {
        a.stopAndRemove()
        b.stopAndRemove()
      }
      try a.todo.write { db in try db.execute(sql: "INSERT INTO lists (id) VALUES ('l')") }
      for batch in 0..<4 {
        try a.todo.write { db in
          for item in 0..<50 {
            try db.execute(
              sql: "INSERT INTO items (id, listID, title) VALUES (?, 'l', 'offline')",
              arguments: ["off-\(batch)-\(item)"])
          }
        }
      }
      // Committed, never pushed: killed, then started with its server.
      try a.killAndRestart()
      // Now online: one-row transactions, killed in the middle of them.
      var acknowledged = 0
      for item in 0..<300 {
        if item == 150 { try a.killAndRestart() }
        try a.todo.write { db in
          try db.execute(
            sql: "INSERT INTO items (id, listID, title) VALUES (?, 'l', 'online')",
            arguments: ["on-\(item)"])
        }
        acknowledged += 1
      }
      try converge([a, b], server: server)
      #expect(try b.count("items") == 200 + acknowledged)
      let records = try server.execute(
        "SELECT count(*), count(DISTINCT record_name) FROM hearth.records WHERE record_type = 'items'"
      )
      #expect(records.rows.first?[0] == "500" && records.rows.first?[1] == "500")
    }

    /// A hub stopped while the server holds its statement (here a push waiting for a lock;
    /// in life, a large zone's compaction) stops at once: the statement is cancelled and
    /// rolled back, nothing is acknowledged, and the next run pushes it.
    @Test func aHubStopsAtOnceWhileTheServerHoldsItsStatement() throws {
      let server = try PostgresServer()
      defer { server.stop() }
      let a = try SyncingHubProcess("a", server: server)
      defer { a.stopAndRemove() }
      try a.todo.write { db in
        try db.execute(sql: "INSERT INTO lists (id, title) VALUES ('first', 'Home')")
      }
      try eventually { try a.status()["pending"] as? Int == 0 }
      // Another session holds the chunks for 10 s: the next push waits for it.
      let holder = try PostgresConnection(server.conninfo())
      try holder.send(
        "DO $$ BEGIN LOCK TABLE hearth.chunks IN ACCESS EXCLUSIVE MODE; "
          + "PERFORM pg_sleep(10); END $$")
      try a.todo.write { db in
        try db.execute(sql: "INSERT INTO lists (id, title) VALUES ('second', 'Work')")
      }
      let watcher = try PostgresConnection(server.conninfo())
      try eventually(timeout: .seconds(10)) {
        try watcher.execute(
          "SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 'hearth.chunks'::regclass"
        ).rows.first?.first == "1"
      }
      let start = ContinuousClock.now
      #expect(a.process.terminate() == 0)
      let stop = ContinuousClock.now - start
      #expect(stop < .seconds(4), "the stop took \(stop)")
      // The push was rolled back: once the lock goes, the server has the first row only,
      // and the next run pushes the second.
      _ = try holder.receive()
      #expect(
        try watcher.execute("SELECT count(*) FROM hearth.records WHERE record_type = 'lists'")
          .rows.first?.first == "1")
      try a.restart()
      try eventually(timeout: .seconds(30)) {
        try watcher.execute("SELECT count(*) FROM hearth.records WHERE record_type = 'lists'")
          .rows.first?.first == "2"
      }
    }

    /// A hub killed while it pulls 3,000 records, 50 a page, resumes from the last page it
    /// applied and ends with every row once.
    @Test func aHubKilledInTheMiddleOfAPullResumesAndEndsEqual() throws {
      let server = try PostgresServer()
      defer { server.stop() }
      let a = try SyncingHubProcess("a", server: server)
      defer { a.stopAndRemove() }
      // The list first, in a push of its own: the items' pages then apply one by one (in one
      // push they would come first, "items" before "lists", and wait for it).
      try a.todo.write { db in try db.execute(sql: "INSERT INTO lists (id) VALUES ('l')") }
      try eventually { try a.status()["pending"] as? Int == 0 }
      // 30 pushes of 100: a page ends after the push that fills it.
      for push in 0..<30 {
        try a.todo.write { db in
          for item in push * 100..<(push + 1) * 100 {
            try db.execute(
              sql: "INSERT INTO items (id, listID, title) VALUES (?, 'l', ?)",
              arguments: [String(format: "i%05d", item), "item \(item)"])
          }
        }
        try eventually { try a.status()["pending"] as? Int == 0 }
      }
      // B knows the tables before it meets the server, so it applies page by page.
      let b = try SyncingHubProcess(
        "b", server: server, online: false, settings: "sync-page = 50\n")
      defer { b.stopAndRemove() }
      try b.restart(online: true)
      try eventually(timeout: .seconds(30)) { try b.count("items") > 0 }
      let before = try b.count("items")
      try b.killAndRestart()
      try converge([a, b], server: server)
      #expect(before < 3_000, "the kill came after the whole pull (\(before) rows)")
      #expect(try b.count("items") == 3_000)
    }

    /// The server restarts while a hub pushes 20,000 changes 5,000 at a time: each batch lands
    /// whole, once; the hub says what failed and goes on.
    @Test func aServerRestartedDuringAPushLeavesEveryBatchWholeAndOnce() throws {
      let server = try PostgresServer()
      defer { server.stop() }
      let a = try SyncingHubProcess("a", server: server, online: false)
      defer { a.stopAndRemove() }
      try a.todo.write { db in
        try db.execute(sql: "INSERT INTO lists (id) VALUES ('l')")
        for item in 0..<20_000 {
          try db.execute(
            sql: "INSERT INTO items (id, listID, title) VALUES (?, 'l', 'x')",
            arguments: ["i\(item)"])
        }
      }
      try a.killAndRestart(online: true)
      try eventually(timeout: .seconds(30)) {
        let pushed =
          try server.execute(
            "SELECT count(*) FROM pg_namespace WHERE nspname = 'hearth'"
          ).rows.first?.first == "1"
        return try pushed && a.status()["pushed"] != nil
      }
      try server.restart()
      try eventually(timeout: .seconds(60)) { try a.status()["pending"] as? Int == 0 }
      let batches = try server.execute(
        "SELECT seq, count(*) FROM hearth.records GROUP BY seq ORDER BY seq")
      let sizes = batches.rows.compactMap { $0[1].flatMap { Int($0) } }
      #expect(sizes.reduce(0, +) == 20_001)
      // Every batch but the last has 5,000 records: none was cut by the restart.
      #expect(
        sizes.dropLast().allSatisfy { $0 == SyncService.Settings(server: "").pushBatch }, "\(sizes)"
      )
      let distinct = try server.execute(
        "SELECT count(DISTINCT (record_type, record_name)) FROM hearth.records")
      #expect(distinct.rows.first?.first == "20001")
    }

    /// Deleted rows' records are collected once every hub has pulled past them; a hub away
    /// longer than the server waits for one comes back, pulls its zone again from the start
    /// and ends equal: what was deleted meanwhile is gone here too, and what it wrote while
    /// away reaches the others.
    @Test func tombstonesAreCollectedAndAHubAwayLongerResyncsEqual() throws {
      let server = try PostgresServer()
      defer { server.stop() }
      let a = try SyncingHubProcess("a", server: server)
      let b = try SyncingHubProcess("b", server: server)
      let away = try SyncingHubProcess("away", server: server)
      defer {
        a.stopAndRemove()
        b.stopAndRemove()
        away.stopAndRemove()
      }
      try a.todo.write { db in
        try db.execute(sql: "INSERT INTO lists (id, title) VALUES ('l', 'Home')")
        for item in 0..<40 {
          try db.execute(
            sql: "INSERT INTO items (id, listID, title) VALUES (?, 'l', 'x')",
            arguments: ["i\(item)"])
        }
      }
      try converge([a, b, away], server: server)
      func tombstones() throws -> Int {
        Int(
          try server.execute(
            "SELECT count(*) FROM hearth.records WHERE deleted IS NOT NULL AND deleted >= created"
          ).rows.first?.first??.description ?? "") ?? -1
      }
      // Eleven of the 41 rows deleted while every hub is here (a quarter of the zone
      // changed, so a collect compacts it): once all have pulled past them, collected.
      try a.todo.write { db in
        try db.execute(
          sql:
            "DELETE FROM items WHERE id IN (\((0..<11).map { "'i\($0)'" }.joined(separator: ", ")))"
        )
      }
      try converge([a, b, away], server: server)
      #expect(try tombstones() == 11)
      try a.restart()  // a service's first whole round collects
      try eventually(timeout: .seconds(30)) { try tombstones() == 0 }

      // One hub away; ten more deleted, and an edit, while it is.
      _ = away.process.terminate()
      try a.todo.write { db in
        try db.execute(
          sql:
            "DELETE FROM items WHERE id IN (\((11..<21).map { "'i\($0)'" }.joined(separator: ", ")))"
        )
        try db.execute(sql: "UPDATE items SET title = 'edited' WHERE id = 'i30'")
      }
      try converge([a, b], server: server)
      // Still held for the hub away, until it has been away longer than the server waits.
      try a.restart()
      try converge([a, b], server: server)
      #expect(try tombstones() == 10)
      _ = try server.execute(
        "UPDATE hearth.cursors SET pulled_at = now() - interval '40 days', "
          + "pushed_at = now() - interval '40 days' WHERE hub = $1", [try awayHub(away)])
      try a.restart()
      try eventually(timeout: .seconds(30)) { try tombstones() == 0 }

      // Back, with a row of its own written while away: it pulls its zone again from the
      // start, drops the ten deleted meanwhile, keeps its own and sends it.
      try away.restart(online: false)
      try away.todo.write { db in
        try db.execute(sql: "INSERT INTO items (id, listID, title) VALUES ('mine', 'l', 'new')")
      }
      try away.restart()
      let dump = try converge([a, b, away], server: server)
      #expect(try away.count("items") == 20)
      #expect(dump.contains("mine") && dump.contains("edited") && !dump.contains("i15"))
      try eventually {
        away.logLines.contains { $0.contains("again from the start") }
          && away.logLines.contains { $0.contains("dropped 10 rows") }
      }
      let verify = try FeatureCLI("hearth", hub: away.process)("sync", "verify")
      #expect(verify.status == 0, "\(verify.output)")
    }

    /// The id this hub stamps its times with (the server's cursors are by it).
    private func awayHub(_ peer: SyncingHubProcess) throws -> String {
      try #require(
        try peer.todo.read { db in
          try String.fetchOne(db, sql: "SELECT value FROM hearth_sync_state WHERE key = 'hub'")
        })
    }
  }
}
