import Foundation
import HearthSQLite
import HearthSync
import Testing

@testable import HearthWeb

@Suite struct HubViewTests {
  func temporaryFile() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent(
      "hearth-web-\(UUID().uuidString).sqlite"
    ).path
  }

  @Test func syncIsShownPerZoneWithItsRowsToPushAndTheirAge() throws {
    let queue = try DatabaseQueue()
    let now: Int64 = 1_796_529_204_946
    let time = { (ms: Int64) in String(format: "%015lld", ms) + "-0000-abcdef" }
    try queue.write { db in
      try SyncStore.prepare(db)
      try SyncStore.setValue("alice", for: "account", db)
      try SyncStore.setValue("default", for: "zone", db)
      try SyncStore.setValue("-90000", for: SyncStore.clockSkewKey, db)
      try db.execute(
        sql: """
          INSERT INTO hearth_sync_rows (tbl, pk, pending, zone) VALUES
            ('reminders', 'a', ?, NULL), ('reminders', 'b', ?, NULL),
            ('reminders', 'c', ?, 'share-1'), ('reminders', 'd', '{}', NULL);
          INSERT INTO hearth_sync_shares (zone, share) VALUES
            ('share-1', '{"title": "Groceries", "role": "member"}'),
            ('share-2', '{"title": "Quiet", "role": "owner"}');
          """,
        arguments: [
          "{\"title\": \"\(time(now - 5_000))\", \"notes\": \"\(time(now - 9_000))\"}",
          "{\"title\": \"\(time(now - 1_000))\"}", "{\"$created\": \"\(time(now - 2_000))\"}",
        ])
    }
    let state = try #require(try queue.read { db in try HubSnapshot.syncState(db) })
    #expect(state.account == "alice" && state.clockSkew == -90_000 && !state.paused)
    let zones = Dictionary(uniqueKeysWithValues: state.zones.map { ($0.zone, $0) })
    #expect(zones["default"]?.pending == 2)
    #expect(zones["default"]?.oldestPending == now - 9_000)
    #expect(zones["share-1"]?.pending == 1 && zones["share-1"]?.title == "Groceries")
    #expect(zones["share-2"]?.pending == 0 && zones["share-2"]?.role == "owner")
  }

  @Test func aQueryPastItsTimeLimitIsStopped() throws {
    let path = temporaryFile()
    defer { try? FileManager.default.removeItem(atPath: path) }
    try DatabaseQueue(path: path).write { db in try db.execute(sql: "CREATE TABLE t (x)") }
    let pool = ReaderPool(path: path, timeLimit: .milliseconds(100))
    let start = ContinuousClock.now
    #expect {
      try pool.read { db in
        try Int.fetchOne(
          db,
          sql: """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)
            SELECT count(*) FROM n
            """)
      }
    } throws: { error in
      (error as? DatabaseError)?.resultCode == .SQLITE_INTERRUPT
    }
    #expect(ContinuousClock.now - start < .seconds(5))
    // The connection goes back to the pool and serves the next query.
    #expect(try pool.read { db in try Int.fetchOne(db, sql: "SELECT 42") } == 42)
  }
}
