import Foundation
import HearthDataTestSupport
import HearthSQLite
import Synchronization
import Testing

@Suite struct BackupTests {
  @Test func aBackupTakenUnderConcurrentWritesIsSound() throws {
    let directory = try TemporaryDirectory()
    let dbPool = try DatabasePool(path: directory.path("live.sqlite"))
    try dbPool.write { db in
      try db.execute(sql: "CREATE TABLE blobs (id INTEGER PRIMARY KEY, payload BLOB NOT NULL)")
      for _ in 0..<500 {
        try db.execute(sql: "INSERT INTO blobs (payload) VALUES (randomblob(1000))")
      }
    }
    // A plain thread, not a task: the backup below blocks its own thread, and a task could
    // wait for a free cooperative thread until the backup is over.
    let keepWriting = Atomic<Bool>(true)
    let written = Atomic<Int>(0)
    let writerDone = DispatchSemaphore(value: 0)
    let writer = Thread {
      while keepWriting.load(ordering: .relaxed) {
        try? dbPool.write {
          try $0.execute(sql: "INSERT INTO blobs (payload) VALUES (randomblob(1000))")
        }
        written.add(1, ordering: .relaxed)
      }
      writerDone.signal()
    }
    writer.start()
    while written.load(ordering: .relaxed) == 0 { Thread.sleep(forTimeInterval: 0.001) }
    let progress = Locked<[BackupProgress]>([])
    let backupPath = directory.path("backup.sqlite")
    try dbPool.backup(toPath: backupPath, pagesPerStep: 20) { step in
      progress.withLock { $0.append(step) }
      Thread.sleep(forTimeInterval: 0.001)  // let the writer commit between steps
    }
    let writtenDuringBackup = written.load(ordering: .relaxed)
    keepWriting.store(false, ordering: .relaxed)
    writerDone.wait()
    #expect(writtenDuringBackup > 1)

    let steps = progress.withLock { $0 }
    #expect(steps.count > 1)
    #expect(steps.last?.isCompleted == true)

    let copy = try DatabaseQueue(path: backupPath)
    try copy.read { db in
      #expect(try db.integrityCheck() == ["ok"])
      try db.checkIntegrity()
      let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM blobs")!
      #expect(count >= 500)
    }
  }

  @Test func integrityCheckFindsCorruption() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("corrupt.sqlite")
    do {
      var configuration = Configuration()
      configuration.journalMode = .default
      let dbQueue = try DatabaseQueue(path: path, configuration: configuration)
      try dbQueue.write { db in
        try db.execute(
          sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); CREATE INDEX tv ON t(v)")
        for i in 0..<2000 {
          try db.execute(sql: "INSERT INTO t (v) VALUES (?)", arguments: ["value \(i)"])
        }
      }
    }
    // Scribble over a page in the middle of the file.
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
    try handle.seek(toOffset: 4096 * 5)
    try handle.write(contentsOf: Data(repeating: 0xAB, count: 4096))
    try handle.close()
    let dbQueue = try DatabaseQueue(path: path)
    let failure: (any Error)? = {
      do {
        try dbQueue.read { try $0.checkIntegrity() }
        return nil
      } catch { return error }
    }()
    let error = try #require(failure as? DatabaseError)
    #expect(error.resultCode == .SQLITE_CORRUPT)
  }
}
