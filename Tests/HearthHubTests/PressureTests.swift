import Foundation
import HearthData
import HearthDataTestSupport
import HearthHub
import HearthPlugin
import HearthTestbed
import HearthWire
import Synchronization
import Testing

/// The hub under big loads: the write-ahead log stays bounded, and write closures of any
/// size commit whole or not at all.
@Suite(.serialized) struct PressureTests {
  static let limit = 1 << 20

  /// A hub of its own and the notes plugin registered with it.
  func notesHub(_ configure: (inout HubConfiguration) -> Void = { _ in }) throws -> (
    RunningHub, HubDatabase
  ) {
    let running = try RunningHub(configure: configure)
    return (running, try HubDatabase.registered(notesPlugin, paths: running.paths))
  }

  func walFileBytes(_ running: RunningHub) -> Int {
    let attributes = try? FileManager.default.attributesOfItem(
      atPath: running.paths.databasePath + "-wal")
    return (attributes?[.size] as? Int) ?? 0
  }

  @Test func theWALStaysUnderItsBoundWhileWritersNeverPause() throws {
    // The bound alone copies the log here: the checkpointer's PASSIVE checkpoints, on the
    // writer's connection between commits, mostly rewind the log before the bound is reached.
    let running = try RunningHub {
      $0.walLimit = Self.limit
      $0.checkpointInterval = .zero
    }
    defer { running.stopAndRemove() }
    let writers = try (0..<2).map { index in
      try HubDatabase.registered(
        PluginRegistration(
          name: "w\(index)", version: "1", tables: ["w\(index)"],
          migrations: [.init(id: "1", sql: "CREATE TABLE w\(index) (id INTEGER PRIMARY KEY, v)")]),
        paths: running.paths)
    }
    // A reader keeps reading all along, as a plugin's live queries do.
    let reading = Atomic<Bool>(true)
    let reads = Atomic<Int>(0)
    let reader = writers[0]
    let readerDone = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      while reading.load(ordering: .relaxed) {
        _ = try? reader.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM w1") }
        reads.add(1, ordering: .relaxed)
      }
      readerDone.signal()
    }
    let perWriter = 1_500
    let maximumFileBytes = Atomic<Int>(0)
    DispatchQueue.concurrentPerform(iterations: writers.count) { index in
      for value in 0..<perWriter {
        try? writers[index].write { db in
          try db.execute(
            sql: "INSERT INTO w\(index) (v) VALUES (?)",
            arguments: [String(repeating: "x", count: 200)])
        }
        if value % 50 == 0 {
          let bytes = walFileBytes(running)
          if bytes > maximumFileBytes.load(ordering: .relaxed) {
            maximumFileBytes.store(bytes, ordering: .relaxed)
          }
        }
      }
    }
    reading.store(false, ordering: .relaxed)
    readerDone.wait()

    let status = running.hub.walStatus
    #expect(status.limit == Self.limit)
    // Every transaction wrote a few pages: without the bound the log would hold them all.
    #expect(status.restarts >= 2, "\(status)")
    #expect(status.peakBytes <= Self.limit + status.largestCommitBytes, "\(status)")
    #expect(maximumFileBytes.load(ordering: .relaxed) <= Self.limit + status.largestCommitBytes)
    #expect(reads.load(ordering: .relaxed) > 0)
    for index in writers.indices {
      let count = try writers[0].read {
        try Int.fetchOne($0, sql: "SELECT count(*) FROM w\(index)")
      }
      #expect(count == perWriter)
    }
  }

  @Test func aReaderHoldingASnapshotHoldsTheLogBackButNeverStallsTheWriter() throws {
    // The retry delay is on the hub's clock, which the test moves.
    let clock = TestClock()
    let running = try RunningHub(clock: clock) {
      $0.walLimit = Self.limit
      $0.checkpointInterval = .zero
    }
    let notes = try HubDatabase.registered(notesPlugin, paths: running.paths)
    defer { running.stopAndRemove() }
    func writeNote() throws -> Duration {
      let start = ContinuousClock.now
      try notes.write { db in
        try db.execute(
          sql: "INSERT INTO notes (text) VALUES (?)",
          arguments: [String(repeating: "y", count: 500)])
      }
      return ContinuousClock.now - start
    }
    _ = try writeNote()

    // The reader's snapshot stays whole while the log passes the bound several times over.
    let (inside, slowest) = try notes.read { db -> (Int, Duration) in
      let before = try Int.fetchOne(db, sql: "SELECT count(*) FROM notes")!
      var slowest = Duration.zero
      while running.hub.walStatus.bytes < 3 * Self.limit { slowest = max(slowest, try writeNote()) }
      #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM notes")! == before)
      return (before, slowest)
    }
    #expect(inside == 1)
    let held = running.hub.walStatus
    #expect(held.restarts == 0)
    #expect(held.incompleteRestarts >= 1, "\(held)")
    #expect(held.checkpoint?.complete == false)
    // Each try waits 50 ms at most, and the next comes 250 ms later on the hub's clock
    // (which stands still here: one try).
    #expect(slowest < .seconds(1), "the slowest write took \(slowest)")

    // Reader gone: a commit before the retry delay has passed does not try again (the
    // hub tries after answering a commit, before it takes the next: two commits answered
    // mean the first one's turn is over); the next commit past it restarts the log.
    _ = try writeNote()
    _ = try writeNote()
    #expect(running.hub.walStatus.restarts == 0)
    clock.advance(by: .milliseconds(250))
    _ = try writeNote()
    eventually { running.hub.walStatus.restarts == 1 }
    let after = running.hub.walStatus
    #expect(after.restarts == 1, "\(held) → \(after)")
    #expect(after.checkpoint?.mode == "restart" && after.checkpoint?.complete == true)
    _ = try writeNote()
    #expect(running.hub.walStatus.bytes < Self.limit)
  }

  @Test func aMillionRowClosureCommitsWholeAsOneFeedEntry() throws {
    let (running, notes) = try notesHub()
    defer { running.stopAndRemove() }
    let before = running.hub.lastSequence
    let rows = 1_000_000
    try notes.write { db in
      for index in 0..<rows {
        try db.execute(sql: "INSERT INTO notes (text) VALUES (?)", arguments: ["n\(index)"])
      }
    }
    #expect(notes.lastCommittedSequence == before + 1)
    let (count, entries, event) = try notes.read { db in
      (
        try Int.fetchOne(db, sql: "SELECT count(*) FROM notes"),
        try Int.fetchOne(
          db, sql: "SELECT count(*) FROM hearth_commits WHERE seq > ?", arguments: [before]),
        try String.fetchOne(
          db, sql: "SELECT event FROM hearth_commits WHERE seq = ?", arguments: [before + 1])
      )
    }
    #expect(count == rows)
    #expect(entries == 1)
    // Past 10,000 rows the entry says the table changed, not which rows.
    let commit = try WireCoding.decode(CommitEvent.self, from: Data(try #require(event).utf8))
    #expect(commit.tables["notes"] == TableChanges(rowIDsAreKnown: false))
  }

  @Test func aBigClosureThatFailsAtItsLastStatementLeavesNothing() throws {
    let (running, notes) = try notesHub()
    defer { running.stopAndRemove() }
    let before = running.hub.lastSequence
    #expect(throws: DatabaseError.self) {
      try notes.write { db in
        for index in 0..<100_000 {
          try db.execute(sql: "INSERT INTO notes (text) VALUES (?)", arguments: ["n\(index)"])
        }
        try db.execute(sql: "INSERT INTO notes (id, text) VALUES (1, 'taken')")
      }
    }
    #expect(try notes.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM notes") } == 0)
    #expect(running.hub.lastSequence == before)
  }

  @Test func aBufferedFailureCaughtInTheClosureStillFailsTheCommit() throws {
    let (running, notes) = try notesHub()
    defer { running.stopAndRemove() }
    try notes.write { db in try db.execute(sql: "INSERT INTO notes (id, text) VALUES (1, 'first')")
    }
    // The failing insert is buffered: its error reaches the closure later, at a statement that
    // is not its own, which the closure swallows. The commit must not go through without it.
    #expect(throws: DatabaseError.self) {
      try notes.write { db in
        try? db.execute(sql: "INSERT INTO notes (id, text) VALUES (1, 'duplicate')")
        for index in 0..<2_500 {
          try? db.execute(sql: "INSERT INTO notes (text) VALUES (?)", arguments: ["n\(index)"])
        }
      }
    }
    #expect(try notes.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM notes") } == 1)
  }
}
