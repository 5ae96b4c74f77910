import Foundation
import HearthDataTestSupport
import HearthSQLite
import Testing

@Suite struct ConfigurationTests {
  @Test func foreignKeysFollowTheConfiguration() throws {
    for enabled in [true, false] {
      var configuration = Configuration()
      configuration.foreignKeysEnabled = enabled
      let dbQueue = try DatabaseQueue(configuration: configuration)
      #expect(try dbQueue.read { try Bool.fetchOne($0, sql: "PRAGMA foreign_keys") } == enabled)
    }
  }

  @Test func prepareDatabaseRunsOnEveryConnection() throws {
    let directory = try TemporaryDirectory()
    var configuration = Configuration()
    configuration.prepareDatabase { db in
      try db.execute(sql: "PRAGMA cache_size = -4096")
    }
    let dbPool = try DatabasePool(path: directory.path("db.sqlite"), configuration: configuration)
    #expect(try dbPool.read { try Int.fetchOne($0, sql: "PRAGMA cache_size") } == -4096)
    #expect(
      try dbPool.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA cache_size") } == -4096
    )
  }

  @Test func aFailingPreparationFailsTheOpen() throws {
    var configuration = Configuration()
    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA nonsense(") }
    #expect(throws: DatabaseError.self) { try DatabaseQueue(configuration: configuration) }
  }

  @Test func traceShowsStatementsWithTheirValues() throws {
    let events = Locked<[TraceEvent]>([])
    var configuration = Configuration()
    configuration.prepareDatabase { db in
      db.trace(options: [.statement, .profile]) { event in events.withLock { $0.append(event) } }
    }
    let dbQueue = try DatabaseQueue(configuration: configuration)
    try dbQueue.write { db in
      try db.execute(sql: "CREATE TABLE t (a, b)")
      try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [42, "it's"])
    }
    let traced = events.withLock { $0 }
    let inserts = traced.filter { $0.description == "INSERT INTO t VALUES (?, ?)" }
    #expect(inserts.map(\.kind) == [.statement, .profile])
    #expect(inserts.allSatisfy { $0.expandedDescription == "INSERT INTO t VALUES (42, 'it''s')" })
    #expect(inserts[1].duration.map { $0 >= 0 } == true)
    #expect(inserts[0].duration == nil)
  }

  @Test func busyTimeoutWaitsForTheLock() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("db.sqlite")
    let owner = try DatabasePool(path: path)
    try owner.write { try $0.execute(sql: "CREATE TABLE t (x)") }
    var configuration = Configuration()
    configuration.busyTimeout = 5
    let patient = try DatabaseQueue(path: path, configuration: configuration)
    let locked = DispatchSemaphore(value: 0)
    let holder = Thread {
      try? owner.write { _ in
        locked.signal()
        Thread.sleep(forTimeInterval: 0.2)
      }
    }
    holder.start()
    locked.wait()
    try patient.write { try $0.execute(sql: "INSERT INTO t VALUES (1)") }
    #expect(try owner.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 1)
  }

}
