import Foundation
import HearthData
import HearthDataTestSupport
import Observation
import Testing

@Suite struct FetchAllTests {
  let database = DatabaseQueue.testDatabase

  func insertFact(_ body: String) throws {
    try database.write { db in try Fact.insert { Fact.Draft(body: body) }.execute(db) }
  }

  @Test func bareWrapperFetchesEveryRowFromTheDefaultDatabase() async throws {
    try insertFact("one")
    try await withDependencies {
      $0.defaultDatabase = database
    } operation: {
      @FetchAll var facts: [Fact]
      #expect(facts.map(\.body) == ["one"])
      try insertFact("two")
      try await eventually { facts.count == 2 }
      #expect(facts.map(\.body) == ["one", "two"])
    }
  }

  @Test func queryAndDatabaseArguments() async throws {
    try insertFact("b")
    try insertFact("a")
    @FetchAll(Fact.order(by: \.body), database: database) var facts
    #expect(facts.map(\.body) == ["a", "b"])
    @FetchAll(Fact.where { $0.body == "b" }.select(\.body), database: database) var bodies
    #expect(bodies == ["b"])
    @FetchAll(#sql("SELECT * FROM facts ORDER BY body DESC"), database: database) var raw: [Fact]
    #expect(raw.map(\.body) == ["b", "a"])
  }

  @Test func refreshesAfterAWriteToATableItReads() async throws {
    @FetchAll(Fact.order { $0.id.desc() }, database: database) var facts
    #expect(facts.isEmpty)
    try insertFact("first")
    try await eventually { facts.count == 1 }
    try await database.write { db in
      try Fact.where { $0.body == "first" }.update { $0.body = "changed" }.execute(db)
    }
    try await eventually { facts.first?.body == "changed" }
    try await database.write { db in try Fact.delete().execute(db) }
    try await eventually { facts.isEmpty }
  }

  @Test func writesToOtherTablesCostNothing() async throws {
    let fetches = Counter()
    @Fetch(CountingFacts(counter: fetches), database: database, scheduler: .immediate)
    var facts = [Fact]()
    #expect(fetches.value == 1)
    for index in 0..<20 {
      try await database.write { db in
        try Note.insert { Note.Draft(text: "note \(index)") }.execute(db)
      }
    }
    try await Task.sleep(for: .milliseconds(100))
    #expect(fetches.value == 1)
    try insertFact("now it counts")
    try await eventually { facts.count == 1 }
    #expect(fetches.value == 2)
  }

  @Test func aBurstOfCommitsCoalescesOnASlowReader() async throws {
    let pool = try testPool()
    let fetches = Counter()
    @Fetch(
      CountingFacts(counter: fetches, delay: .milliseconds(20)), database: pool,
      scheduler: .immediate)
    var facts = [Fact]()
    let start = ContinuousClock.now
    for index in 0..<1000 {
      try await pool.write { db in try Fact.insert { Fact.Draft(body: "fact \(index)") }.execute(db)
      }
    }
    let burst = ContinuousClock.now - start
    try await eventually { facts.count == 1000 }
    // 1,000 commits; each fetch takes 20 ms, and all commits that land during one cost one
    // more fetch in total: at most one per 20 ms of the burst, the first and the last (not
    // one per commit). On a loaded machine the burst is slower and allows more.
    let allowed = max(1000 / 10, Int((burst / .milliseconds(20)).rounded(.up)) + 2)
    #expect(fetches.value <= allowed, "\(fetches.value) fetches, burst \(burst)")
    try await Task.sleep(for: .milliseconds(100))
    #expect(facts.count == 1000)
  }

  @Test func loadSwapsTheQueryIncludingKeysetPagination() async throws {
    for index in 1...50 { try insertFact("fact \(index)") }
    @FetchAll(Fact.order { $0.id }.limit(20), database: database) var items: [Fact]
    #expect(items.map(\.id) == Array(1...20))
    var lastID: Fact.ID? = items.last?.id
    try await $items.load(
      Fact
        .where { $0.id > #bind(lastID ?? 0) }
        .order { $0.id }
        .limit(20),
      database: database
    )
    #expect(items.map(\.id) == Array(21...40))
    lastID = items.last?.id
    try await $items.load(
      Fact.where { $0.id > #bind(lastID ?? 0) }.order { $0.id }.limit(20), database: database)
    #expect(items.map(\.id) == Array(41...50))
    // The loaded query is the one observed now.
    try insertFact("fact 51")
    try await eventually { items.last?.id == 51 }
  }

  @Test func loadErrorAndRecovery() async throws {
    try insertFact("kept")
    @FetchAll(Fact.all, database: database) var facts
    #expect($facts.loadError == nil)
    await #expect(throws: DatabaseError.self) {
      try await $facts.load(#sql("SELECT * FROM missing"), database: database)
    }
    #expect(facts.map(\.body) == ["kept"])
    try await $facts.load(Fact.where { $0.body == "kept" }, database: database)
    #expect($facts.loadError == nil)
    #expect(facts.map(\.body) == ["kept"])
    #expect(!$facts.isLoading)
  }

  @Test func aFailingRefetchSetsLoadErrorAndAGoodOneClearsIt() async throws {
    @FetchAll(Fact.all, database: database, scheduler: .immediate) var facts
    try await database.writeWithoutTransaction { db in
      try db.execute(sql: "ALTER TABLE facts RENAME COLUMN body TO text")
    }
    try await eventually { $facts.loadError != nil }
    #expect("\($facts.loadError!)".contains("body"))
    try await database.writeWithoutTransaction { db in
      try db.execute(sql: "ALTER TABLE facts RENAME COLUMN text TO body")
    }
    try await eventually { $facts.loadError == nil }
  }

  @Test func valuesIsAnAsyncSequenceOfUpdates() async throws {
    @FetchAll(Fact.all, database: database) var facts
    var iterator = $facts.values.makeAsyncIterator()
    #expect(await iterator.next()?.count == 0)
    try insertFact("one")
    #expect(await iterator.next()?.count == 1)
    try insertFact("two")
    #expect(await iterator.next()?.map(\.body) == ["one", "two"])
  }

  @Test func valuesArriveOnTheMainActorByDefaultOrWhereAsked() async throws {
    // On Linux the main queue (the main actor's executor) may be drained by a thread other
    // than the process's first one, so the main queue is recognised by a tag.
    let mainQueueTag = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: mainQueueTag, value: true)
    for (scheduler, expectMain) in [(FetchScheduler.main, true), (.immediate, false)] {
      @FetchAll(Fact.all, database: database, scheduler: scheduler) var facts
      let changedOnMain = Locked<Bool?>(nil)
      withObservationTracking {
        _ = facts
      } onChange: {
        let onMainQueue = DispatchQueue.getSpecific(key: mainQueueTag) == true
        changedOnMain.withLock { $0 = onMainQueue }
      }
      try insertFact("one")
      try await eventually { changedOnMain.withLock { $0 } != nil }
      #expect(changedOnMain.withLock { $0 } == expectMain)
      try await database.write { db in try Fact.delete().execute(db) }
      try await eventually { facts.isEmpty }
    }
  }

  @Test func loadTaskLivesUntilCancelled() async throws {
    @FetchAll(Fact.all, database: database) var facts
    let subscription = Task { [wrapper = $facts, database] in
      try await wrapper.load(Fact.where { $0.body.hasPrefix("keep") }, database: database).task
    }
    try await eventually { $facts.isLoading == false }
    try insertFact("keep me")
    try await eventually { facts.count == 1 }
    subscription.cancel()
    _ = await subscription.result
    // Cancelled: later commits no longer reach the wrapper.
    try insertFact("keep this too")
    try await Task.sleep(for: .milliseconds(100))
    #expect(facts.count == 1)
  }
}

/// Fetches all facts and counts how often it runs; optionally slow.
struct CountingFacts: FetchKeyRequest {
  let counter: Counter
  var delay: Duration = .zero

  func fetch(_ db: Database) throws -> [Fact] {
    counter.increment()
    if delay > .zero {
      Thread.sleep(
        forTimeInterval: Double(delay.components.attoseconds) / 1e18
          + Double(delay.components.seconds))
    }
    return try Fact.all.fetchAll(db)
  }

  static func == (lhs: Self, rhs: Self) -> Bool { lhs.counter === rhs.counter }
  func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(counter)) }
}
