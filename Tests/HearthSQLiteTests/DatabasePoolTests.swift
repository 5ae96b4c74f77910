import Foundation
import HearthDataTestSupport
import HearthSQLite
import Testing

@Suite struct DatabasePoolTests {
  let directory: TemporaryDirectory
  let path: String
  let dbPool: DatabasePool

  init() throws {
    directory = try TemporaryDirectory()
    path = directory.path("pool.sqlite")
    dbPool = try DatabasePool(path: path)
    try dbPool.write { db in
      try db.execute(sql: "CREATE TABLE items (id INTEGER PRIMARY KEY, value INTEGER NOT NULL)")
      try db.execute(sql: "INSERT INTO items (value) VALUES (1)")
    }
  }

  func count(_ reader: any DatabaseReader) throws -> Int {
    try reader.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM items")! }
  }

  @Test func usesWALAndKeepsItsFiles() throws {
    let mode = try dbPool.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
    #expect(mode == "wal")
    #expect(FileManager.default.fileExists(atPath: path + "-wal"))
  }

  @Test func readersRunWhileTheWriterHoldsALongTransaction() async throws {
    let inserted = DispatchSemaphore(value: 0)
    let finish = DispatchSemaphore(value: 0)
    let pool = dbPool
    let writer = Task.detached {
      try pool.write { db in
        try db.execute(sql: "INSERT INTO items (value) VALUES (2)")
        inserted.signal()
        finish.wait()
      }
    }
    inserted.wait()
    // Several concurrent readers each see the last committed state, not the writer's.
    try await withThrowingTaskGroup(of: Int.self) { group in
      for _ in 0..<4 {
        group.addTask {
          try await pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM items")! }
        }
      }
      for try await seen in group { #expect(seen == 1) }
    }
    finish.signal()
    try await writer.value
    #expect(try count(dbPool) == 2)
  }

  @Test func aReadSeesOneSnapshotWhileCommitsLand() throws {
    let (before, after) = try dbPool.read { db -> (Int, Int) in
      let before = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM items")!
      try self.dbPool.write { try $0.execute(sql: "INSERT INTO items (value) VALUES (3)") }
      let after = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM items")!
      return (before, after)
    }
    #expect(before == after)
    #expect(try count(dbPool) == 2)
  }

  @Test func readOnlyPoolReadsTheFileAndRefusesWrites() throws {
    var configuration = Configuration()
    configuration.readonly = true
    let reader = try DatabasePool(path: path, configuration: configuration)
    #expect(try count(reader) == 1)
    let error = try #require(throws: DatabaseError.self) {
      try reader.write { try $0.execute(sql: "DELETE FROM items") }
    }
    #expect(error.resultCode == .SQLITE_READONLY)
    // Writes by the owner become visible to the read-only pool.
    try dbPool.write { try $0.execute(sql: "INSERT INTO items (value) VALUES (4)") }
    #expect(try count(reader) == 2)
    // A read-only connection cannot be talked into writing either.
    let sneaky = try #require(throws: DatabaseError.self) {
      try reader.read { db in
        try db.execute(sql: "PRAGMA query_only = OFF")
        try db.execute(sql: "DELETE FROM items")
      }
    }
    #expect(sneaky.resultCode == .SQLITE_READONLY)
  }

  @Test func readOnlyOpenOfAMissingFileFails() throws {
    var configuration = Configuration()
    configuration.readonly = true
    let error = try #require(throws: DatabaseError.self) {
      try DatabasePool(path: directory.path("missing.sqlite"), configuration: configuration)
    }
    #expect(error.resultCode == .SQLITE_CANTOPEN)
  }

  @Test func notADatabaseIsRefusedAtOpen() throws {
    let garbage = directory.path("garbage.sqlite")
    try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: garbage))
    let error = try #require(throws: DatabaseError.self) { try DatabasePool(path: garbage) }
    #expect(error.resultCode == .SQLITE_NOTADB)
    // …and the file is left as it was.
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: garbage)) == Data(repeating: 0x42, count: 4096))
  }

  @Test func busyIsATypedErrorAndAppliesNothing() throws {
    var configuration = Configuration()
    configuration.busyTimeout = nil
    let other = try DatabaseQueue(path: path, configuration: configuration)
    let locked = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let pool = dbPool
    let holder = Thread {
      try? pool.write { _ in
        locked.signal()
        release.wait()
      }
    }
    holder.start()
    locked.wait()
    let error = try #require(throws: DatabaseError.self) {
      try other.write { try $0.execute(sql: "INSERT INTO items (value) VALUES (99)") }
    }
    release.signal()
    #expect(error.resultCode == .SQLITE_BUSY)
    Thread.sleep(forTimeInterval: 0.05)
    #expect(try count(dbPool) == 1)
  }

  @Test func readerCountStaysWithinTheMaximum() async throws {
    var configuration = Configuration()
    configuration.maximumReaderCount = 2
    let pool = try DatabasePool(path: directory.path("small.sqlite"), configuration: configuration)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<20 {
        group.addTask { _ = try await pool.read { db in Thread.sleep(forTimeInterval: 0.002) } }
      }
      try await group.waitForAll()
    }
    #expect(pool.readerCount <= 2)
  }

  @Test func aRestartCheckpointWaitsBoundedlyForAReaderThenRestartsTheLog() throws {
    let frames = Locked<[Int]>([])
    try dbPool.writeWithoutTransaction { db in
      db.setWALCommitHook { count in frames.withLock { $0.append(count) } }
    }
    func insert(_ count: Int) throws {
      for value in 0..<count {
        try dbPool.write {
          try $0.execute(sql: "INSERT INTO items (value) VALUES (?)", arguments: [value])
        }
      }
    }
    try insert(20)
    let grown = try #require(frames.withLock { $0.last })

    // A reader holds its snapshot across the checkpoint: it waits about as long as asked,
    // copies what it may, reports itself incomplete, and the reader still reads its snapshot.
    let seen = try dbPool.read { db -> (Int, CheckpointResult, Duration, Int) in
      let before = try Int.fetchOne(db, sql: "SELECT count(*) FROM items")!
      try insert(20)
      let start = ContinuousClock.now
      let result = try dbPool.writeWithoutTransaction { writer in
        try writer.checkpoint(.restart, waitingAtMost: .milliseconds(100))
      }
      let waited = ContinuousClock.now - start
      return (before, result, waited, try Int.fetchOne(db, sql: "SELECT count(*) FROM items")!)
    }
    #expect(seen.0 == 21 && seen.3 == 21)
    #expect(!seen.1.isComplete)
    #expect(seen.1.walFrameCount > grown)
    #expect(seen.2 >= .milliseconds(90) && seen.2 < .seconds(2), "waited \(seen.2)")

    // Once the reader is done, the restart completes, and the next commit starts the log
    // again from its first frame.
    let restarted = try dbPool.writeWithoutTransaction { db in
      try db.checkpoint(.restart, waitingAtMost: .milliseconds(100))
    }
    #expect(restarted.isComplete)
    #expect(restarted.checkpointedFrameCount == restarted.walFrameCount)
    try insert(1)
    #expect(try #require(frames.withLock { $0.last }) < grown)
    #expect(try count(dbPool) == 42)
  }
}

/// Only a writer checkpoints: SQLite's WAL-reset bug (3.7.0 to 3.51.2) needs a checkpoint on
/// one connection while another commits, so a reader must never make one.
@Suite struct ReadersNeverCheckpointTests {
  @Test func theLastReaderToCloseLeavesTheLogAsItIs() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("readers.sqlite")
    var writer: DatabasePool? = try DatabasePool(path: path)
    try writer!.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
      try db.execute(sql: "CREATE TABLE items (id INTEGER PRIMARY KEY, value BLOB)")
      for _ in 0..<50 {
        try db.execute(sql: "INSERT INTO items (value) VALUES (randomblob(3000))")
      }
    }
    var readonly = Configuration()
    readonly.readonly = true
    var reader: DatabasePool? = try DatabasePool(path: path, configuration: readonly)
    #expect(try reader!.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM items") } == 50)
    // The writer closes first, while the reader still has the file open: not being the last
    // connection, it checkpoints nothing either.
    writer = nil
    let file = try Data(contentsOf: URL(fileURLWithPath: path))
    let log = try Data(contentsOf: URL(fileURLWithPath: path + "-wal"))
    #expect(log.count > 50 * 3000, "the rows are still in the log")
    reader = nil
    // A checkpoint on close would have copied the log into the file and removed the log.
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == file)
    #expect(try Data(contentsOf: URL(fileURLWithPath: path + "-wal")) == log)
    #expect(Database.checkpointsByConnection.keys.allSatisfy { !$0.hasPrefix("reader") })
  }

  @Test func aReaderRefusesToCheckpoint() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("refuses.sqlite")
    let writer = try DatabasePool(path: path)
    try writer.write { try $0.execute(sql: "CREATE TABLE items (id INTEGER PRIMARY KEY)") }
    var readonly = Configuration()
    readonly.readonly = true
    let reader = try DatabaseQueue(path: path, configuration: readonly)
    let error = #expect(throws: DatabaseError.self) {
      try reader.read { db in _ = try db.checkpoint(.passive) }
    }
    #expect(error?.resultCode == .SQLITE_READONLY)
  }
}
