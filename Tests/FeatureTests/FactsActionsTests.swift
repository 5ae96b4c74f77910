import Foundation
import HearthData
import HearthDataTestSupport
import HearthPlugin
import Testing

@testable import FactsFeature

/// The facts feature's actions on a local database, as the commands run them through the hub.
@Suite struct FactsActionsTests {
  let database: DatabaseQueue
  let now = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01 00:00 UTC

  init() throws {
    database = try DatabaseQueue()
    try migrator.migrate(database)
  }

  @Test func askingAgainGivesAnotherFactUntilAllAreKnown() throws {
    let known = NumberFacts.all(about: 42)
    let facts = try database.write { db in
      try (0...known.count).map { _ in try FactActions.addFact(about: 42, now: now, db) }
    }
    #expect(facts.prefix(known.count).map(\.body) == known)
    #expect(facts.last?.body == known[0])  // then again, in turn
    try database.read { db in
      try assertQuery(
        Fact.where { $0.number.eq(42) }.select { $0.id.count() }, in: db,
        sql: #"SELECT count("facts"."id") FROM "facts" WHERE ("facts"."number" = ?)"#,
        rows: "\(known.count + 1)")
      #expect(try FactActions.counts(db) == (facts: known.count + 1, numbers: 1))
    }
  }

  @Test func theFactOfTheDayIsPickedOnceADay() throws {
    let first = try database.write { try FactActions.pickFactOfTheDay(now: now, $0) }
    let again = try database.write { try FactActions.pickFactOfTheDay(now: now, $0) }
    #expect(first?.number == 1)  // the first day of the year
    #expect(again == nil)
    try database.read { db in
      try assertQuery(
        DailyFact.join(Fact.all) { $0.factID.eq($1.id) }.select { ($0.day, $1.number) }, in: db,
        rows: "\(FactActions.dayKey(now)) | 1")
      #expect(try FactActions.factOfTheDay(now: now, db) == first)
      #expect(try FactActions.factOfTheDay(now: now.addingTimeInterval(86_400), db) == nil)
    }
  }

  @Test func deletingAMissingFactDeletesNothing() throws {
    let fact = try database.write { try FactActions.addFact(about: 7, now: now, $0) }
    let refusal = #expect(throws: CommandError.self) {
      try database.write { try FactActions.delete([ShortID.of(fact.id), "40404"], $0) }
    }
    #expect(refusal?.exitCode == .notFound)
    #expect(try database.read { try Fact.fetchCount($0) } == 1)
    #expect(try database.write { try FactActions.delete([fact.id.uuidString], $0) } == [fact.id])
    #expect(try database.read { try Fact.fetchCount($0) } == 0)
  }

  @Test func searchCountsWhatMatchesAndAll() throws {
    try database.write { db in
      _ = try FactActions.addFact(about: 7, now: now, db)
      _ = try FactActions.addFact(about: 8, now: now, db)
    }
    let value = try database.read { try Facts(query: "prime").fetch($0) }
    #expect(value.facts.map(\.body) == ["7 is a prime number"])
    #expect(value.searchCount == 1)
    #expect(value.totalCount == 2)
  }

  @Test func theUUIDMigrationKeepsEveryFactAndDailyPick() throws {
    let old = try DatabaseQueue()
    try migrator.migrate(old, upTo: "Create facts")
    try old.write { db in
      try db.execute(
        sql: """
          INSERT INTO facts (id, number, body, createdAt)
          VALUES (1, 7, '7 is a prime number', '2026-01-01 00:00:00.000'),
                 (2, 42, '42 = 2 × 3 × 7', '2026-01-02 00:00:00.000');
          INSERT INTO dailyFacts (day, factID) VALUES ('2026-01-01', 1);
          """)
    }
    try migrator.migrate(old)
    let (facts, today, broken) = try old.read { db in
      (
        try Facts().fetch(db).facts.map(\.body), try FactActions.factOfTheDay(now: now, db)?.body,
        try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
      )
    }
    #expect(facts == ["42 = 2 × 3 × 7", "7 is a prime number"])
    #expect(today == "7 is a prime number")
    #expect(broken.isEmpty)
  }
}
