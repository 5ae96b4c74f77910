import Foundation
import HearthData
import HearthDataTestSupport
import Observation
import Synchronization
import Testing

@Suite struct FetchOneTests {
  let database = DatabaseQueue.testDatabase

  @Test func countsWithADefaultAndStaysCurrent() async throws {
    @FetchOne(Fact.count(), database: database) var factsCount = 0
    #expect(factsCount == 0)
    try await database.write { db in
      try Fact.insert {
        Fact.Draft(body: "a")
        Fact.Draft(body: "b")
      }.execute(db)
    }
    try await eventually { factsCount == 2 }
    @FetchOne(Fact.where { $0.body == "a" }.count(), database: database) var aCount = 0
    #expect(aCount == 1)
  }

  @Test func anOptionalRowIsNilUntilThereIsOne() async throws {
    @FetchOne(Fact.where { $0.body == "x" }, database: database) var fact: Fact?
    #expect(fact == nil)
    try await database.write { db in try Fact.insert { Fact.Draft(body: "x") }.execute(db) }
    try await eventually { fact?.body == "x" }
    @FetchOne(database: database) var first: Fact?
    #expect(first?.body == "x")
  }

  @Test func aQueryWithNoRowKeepsTheDefaultAndSaysNotFound() async throws {
    @FetchOne(Fact.select { $0.id }, database: database) var firstID: Int = -1
    #expect(firstID == -1)
    #expect($firstID.loadError is NotFound)
    try await $firstID.load(#sql("SELECT 42", as: Int.self), default: 0, database: database)
    #expect(firstID == 42)
    #expect($firstID.loadError == nil)
    // A row, then none: the value stays the last row's, and the error says why.
    try await database.write { db in try Fact.insert { Fact.Draft(body: "only") }.execute(db) }
    @FetchOne(database: database) var fact = Fact(id: 1, body: "none yet")
    #expect(fact.body == "only")
    try await database.write { db in try Fact.delete().execute(db) }
    await #expect(throws: NotFound.self) { try await $fact.load() }
    #expect($fact.loadError is NotFound)
    #expect(fact.body == "only")
  }

  @Test func aRowAsTheDefaultIsFoundByItsPrimaryKey() async throws {
    try await database.write { db in
      try Fact.insert {
        Fact.Draft(body: "one")
        Fact.Draft(body: "two")
      }.execute(db)
    }
    @FetchOne(database: database) var second = Fact(id: 2, body: "?")
    #expect(second == Fact(id: 2, body: "two"))
    try await database.write { db in
      try Fact.find(2).update { $0.body = "deux" }.execute(db)
    }
    try await eventually { second.body == "deux" }
    // A value that is not a row has no query until one is loaded.
    @FetchOne var answer = 42
    #expect(answer == 42 && $answer.loadError == nil)
    try await $answer.load(Fact.count(), database: database)
    #expect(answer == 2)
  }

  @Test func aQueryOfOptionalValuesIsNilWithoutARowOrForNull() async throws {
    @FetchOne(#sql("SELECT NULL", as: Int?.self), database: database) var null: Int?
    #expect(null == nil && $null.loadError == nil)
    @FetchOne(Fact.select { $0.body.length() }.where { $0.id.eq(99) }, database: database)
    var none: Int?
    #expect(none == nil && $none.loadError == nil)
    @FetchOne(#sql("SELECT 7", as: Int?.self), database: database) var seven: Int?
    #expect(seven == 7)
  }

  @Test func cancellingASubscriptionEndsTheTaskAwaitingIt() async throws {
    @FetchAll(database: database) var facts: [Fact]
    let subscription = try await $facts.load(Fact.all, database: database)
    let ended = LockIsolated(false)
    let awaiting = Task {
      try? await subscription.task
      ended.setValue(true)
    }
    try await Task.sleep(for: .milliseconds(50))
    #expect(!ended.value)
    subscription.cancel()
    try await eventually { ended.value }
    awaiting.cancel()  // ends it, should the cancel not have
    // Awaited after the cancel, the task ends at once.
    let endedLate = LockIsolated(false)
    let awaitingLate = Task {
      try? await subscription.task
      endedLate.setValue(true)
    }
    try await eventually { endedLate.value }
    awaitingLate.cancel()
  }

  @Test func aCancelledSubscriptionEndsTheQuery() async throws {
    @FetchAll(database: database) var facts: [Fact]
    let subscription = try await $facts.load(Fact.all, database: database)
    subscription.cancel()
    try await database.write { db in try Fact.insert { Fact.Draft(body: "late") }.execute(db) }
    try await $facts.load()
    #expect(facts.isEmpty)
    try await $facts.load(Fact.all, database: database)
    #expect(facts.count == 1)
  }
}

@Suite struct FetchTests {
  /// The seeds' `Facts` request, with a search.
  struct Facts: FetchKeyRequest {
    var query = ""
    struct Value {
      var facts: [Fact] = []
      var searchCount = 0
      var totalCount = 0
    }
    func fetch(_ db: Database) throws -> Value {
      let search =
        Fact
        .where { $0.body.contains(query) }
        .order { $0.id.desc() }
      return try Value(
        facts: search.fetchAll(db),
        searchCount: search.fetchCount(db),
        totalCount: Fact.fetchCount(db)
      )
    }
  }

  @Test func factsRequestWithSearchStaysLive() async throws {
    let database = DatabaseQueue.testDatabase
    try await database.write { db in
      try Fact.insert {
        Fact.Draft(body: "1 is the loneliest number")
        Fact.Draft(body: "42 is the answer")
        Fact.Draft(body: "7 is prime")
      }.execute(db)
    }
    @Fetch(Facts(), database: database) var facts = Facts.Value()
    #expect(facts.totalCount == 3 && facts.searchCount == 3)
    try await $facts.load(Facts(query: "is the"), database: database)
    #expect(facts.facts.map(\.id) == [2, 1])
    #expect(facts.searchCount == 2 && facts.totalCount == 3)
    try await database.write { db in
      try Fact.insert { Fact.Draft(body: "0 is the start") }.execute(db)
    }
    try await eventually { facts.totalCount == 4 }
    #expect(facts.searchCount == 3 && facts.facts.first?.body == "0 is the start")
  }

  /// Reads the facts, waits while a writer commits, then counts them: in one transaction the
  /// two must agree.
  struct SlowPair: FetchKeyRequest {
    let between: @Sendable () -> Void
    func fetch(_ db: Database) throws -> Pair {
      let facts = try Fact.all.fetchAll(db)
      between()
      return Pair(factCount: facts.count, count: try Fact.fetchCount(db))
    }
    static func == (lhs: Self, rhs: Self) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
  }

  struct Pair: Equatable {
    var factCount = 0
    var count = 0
  }

  @Test func aRequestReadsOneSnapshot() async throws {
    let pool = try testPool()
    let writes = Counter()
    let between: @Sendable () -> Void = {
      // A commit from another connection lands between the two reads.
      try? pool.write { db in try Fact.insert { Fact.Draft(body: "meanwhile") }.execute(db) }
      writes.increment()
    }
    @Fetch(SlowPair(between: between), database: pool, scheduler: .immediate) var pair = Pair()
    #expect(writes.value >= 1)
    #expect(pair.factCount == pair.count)
    try await Task.sleep(for: .milliseconds(50))
    #expect(pair.factCount == pair.count)
  }

  @Test func noRequestUntilLoaded() async throws {
    let database = DatabaseQueue.testDatabase
    @Fetch var facts = Facts.Value()
    #expect(facts.totalCount == 0)
    try await database.write { db in try Fact.insert { Fact.Draft(body: "x") }.execute(db) }
    try await $facts.load(Facts(), database: database)
    #expect(facts.totalCount == 1)
  }
}

/// The seeds' `@Observable` model, with `@ObservationIgnored` wrappers.
@Observable
@MainActor
final class ItemsModel {
  @ObservationIgnored
  @FetchAll(Fact.order { $0.id.desc() }) var items

  @ObservationIgnored
  @FetchOne(Fact.count()) var itemsCount = 0

  @ObservationIgnored
  @Dependency(\.defaultDatabase) var database

  func addItem(body: String) async {
    await withErrorReporting {
      try await database.write { db in
        try Fact.insert { Fact.Draft(body: body) }.execute(db)
      }
    }
  }

  func deleteItems(indices: IndexSet) {
    withErrorReporting {
      try database.write { db in
        let ids = indices.map { items[$0].id }
        try Fact
          .where { $0.id.in(ids) }
          .delete()
          .execute(db)
      }
    }
  }
}

@Suite(.dependency(\.defaultDatabase, DatabaseQueue.testDatabase))
@MainActor
struct ObservableModelTests {
  @Test func modelAddsDeletesAndStaysLive() async throws {
    let model = ItemsModel()
    #expect(model.items.isEmpty && model.itemsCount == 0)
    await model.addItem(body: "one")
    await model.addItem(body: "two")
    try await eventually { model.items.count == 2 && model.itemsCount == 2 }
    #expect(model.items.map(\.body) == ["two", "one"])
    model.deleteItems(indices: [0])
    try await eventually { model.items.map(\.body) == ["one"] && model.itemsCount == 1 }
  }

  @Test func observationTrackingSeesTheModelChange() async throws {
    let model = ItemsModel()
    let changed = Counter()
    withObservationTracking {
      _ = model.items
    } onChange: {
      changed.increment()
    }
    await model.addItem(body: "watched")
    try await eventually { changed.value == 1 }
    #expect(model.items.map(\.body) == ["watched"])
  }

  @Test func eachTestHasItsOwnDatabase() async throws {
    @Dependency(\.defaultDatabase) var database
    let count = try await database.read { db in try Fact.fetchCount(db) }
    #expect(count == 0)
    let model = ItemsModel()
    await model.addItem(body: "only here")
    try await eventually { model.itemsCount == 1 }
  }
}

/// A struct holding the wrappers works too.
struct FactsFeature {
  @FetchAll(Fact.all) var facts
  @FetchOne(Fact.count()) var count = 0
}

@Suite struct StructHolderTests {
  @Test(.dependency(\.defaultDatabase, DatabaseQueue.testDatabase))
  func wrappersInAStruct() async throws {
    let feature = FactsFeature()
    @Dependency(\.defaultDatabase) var database
    try await database.write { db in try Fact.insert { Fact.Draft(body: "s") }.execute(db) }
    try await eventually { feature.count == 1 && feature.facts.count == 1 }
  }
}
