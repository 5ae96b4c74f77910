import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

@DatabaseFunction
func exclaim(_ text: String) -> String { text + "!" }

@DatabaseFunction("initials", isDeterministic: true)
func initials(of first: String, and second: String = "?") -> String {
  String(first.prefix(1)) + String(second.prefix(1))
}

@DatabaseFunction
func daysBetween(_ start: Date?, _ end: Date?) -> Int? {
  guard let start, let end else { return nil }
  return Int(end.timeIntervalSince(start) / 86_400)
}

@DatabaseFunction(as: (([String].JSONRepresentation) -> Int).self)
func countWords(_ words: [String]) -> Int { words.count }

@DatabaseFunction(as: (([String]?.JSONRepresentation) -> Int).self)
func countOrNone(_ words: [String]?) -> Int { words?.count ?? -1 }

struct Refusal: Error, CustomStringConvertible {
  var description: String { "refused on purpose" }
}

@DatabaseFunction
func refuse(_ text: String) throws -> String { throw Refusal() }

@DatabaseFunction
func isLong(_ reminder: Reminder) -> Bool { reminder.title.count > 10 }

@DatabaseFunction
func product(of values: some Sequence<Int>) -> Int { values.reduce(1, *) }

@DatabaseFunction
func joinedTitles(_ rows: some Sequence<(String, separator: String)>) -> String {
  var text = ""
  for (index, row) in rows.enumerated() {
    text += (index == 0 ? "" : row.separator) + row.0
  }
  return text
}

@DatabaseFunction
var answer: Int { 42 }

enum ShortTag: AliasName {}

@DatabaseFunction(as: ((TableAlias<Tag, ShortTag>) -> Bool).self)
func isShort(_ tag: Tag) -> Bool { tag.title.count <= 3 }

/// Records what it is called with: a function that returns nothing.
final class CallLog {
  var messages: [String] = []

  @DatabaseFunction
  func record(_ message: String) { messages.append(message) }
}

@DatabaseFunction("epochSeconds", as: Date.UnixTimeRepresentation.self)
var epoch: Date { Date(timeIntervalSince1970: 0) }

@Suite struct DatabaseFunctionTests {
  let database: DatabaseQueue

  init() throws {
    database = try conformanceDatabase()
    try database.writeWithoutTransaction { db in
      db.add(function: $exclaim)
      db.add(function: $initials)
      db.add(function: $daysBetween)
      db.add(function: $countWords)
      db.add(function: $countOrNone)
      db.add(function: $refuse)
      db.add(function: $isLong)
      db.add(function: $product)
      db.add(function: $joinedTitles)
      db.add(function: $answer)
      db.add(function: $epoch)
      db.add(function: $isShort)
    }
  }

  @Test func aRemovedFunctionFailsTheStatementsThatCallIt() throws {
    try database.writeWithoutTransaction { db in
      let before = try Values($exclaim("Blob")).fetchOne(db)
      #expect(before == "Blob!")
      db.remove(function: $exclaim)
      #expect(throws: DatabaseError.self) { try Values($exclaim("Blob")).fetchOne(db) }
      db.remove(function: $product)  // an aggregate
      #expect(throws: DatabaseError.self) {
        try Values(#sql("\(quote: $product.name)(2)", as: Int.self)).fetchOne(db)
      }
      db.add(function: $exclaim)
      let after = try Values($exclaim("again")).fetchOne(db)
      #expect(after == "again!")
    }
  }

  @Test func aComputedPropertyIsAFunctionOfNoArguments() throws {
    try database.read { db in
      try assertQuery(Values($answer), in: db, sql: #"SELECT "answer"()"#, rows: "42")
      try assertQuery(Values($epoch()), in: db, sql: #"SELECT "epochSeconds"()"#, rows: "0")
      let decoded = try Values($epoch).fetchOne(db)
      #expect(decoded?.queryOutput == Date(timeIntervalSince1970: 0))
    }
  }

  @Test func aScalarFunctionRunsInAQuery() throws {
    try database.read { db in
      try assertQuery(
        Reminder.where { $0.id.lte(2) }.select { $exclaim($0.title) }, in: db,
        sql:
          #"SELECT "exclaim"("reminders"."title") FROM "reminders" WHERE ("reminders"."id" <= ?)"#,
        rows: "Groceries!\nHaircut!")
      try assertQuery(
        Values($initials(of: "Ada", and: "Lovelace")), in: db,
        sql: #"SELECT "initials"(?, ?)"#, rows: "AL")
      try assertQuery(Values($initials(of: "Ada")), in: db, rows: "A?")
      #expect($initials.isDeterministic && $initials.argumentCount == 2)
    }
  }

  @Test func nullArgumentsAndResultsPassThroughOptionals() throws {
    try database.read { db in
      try assertQuery(
        Reminder.where { $0.id.in([1, 5]) }.order(by: \.id).select {
          $daysBetween($0.dueDate, #sql("'2023-11-24 22:13:20.000'"))
        }, in: db,
        rows: "10\nNULL")
    }
  }

  @Test func argumentsAndResultsUseTheirRepresentations() throws {
    try database.read { db in
      try assertQuery(
        Values($countWords(#sql("'[\"a\",\"b\",\"c\"]'"))), in: db, rows: "3")
      // An optional JSON value: nil is NULL, and NULL reads as nil.
      try assertQuery(
        Values($countOrNone(#bind(nil))), in: db, sql: #"SELECT "countOrNone"(?)"#, rows: "-1")
      try assertQuery(Values($countOrNone(#bind(["a", "b"]))), in: db, rows: "2")
    }
  }

  @Test func aThrownErrorFailsTheStatementWithItsDescription() throws {
    try database.read { db in
      _ = #expect {
        try Values($refuse("x")).fetchAll(db)
      } throws: { error in
        "\(error)".contains("refused on purpose")
      }
    }
  }

  @Test func aTableArgumentPassesEachOfItsColumns() throws {
    try database.read { db in
      #expect($isLong.argumentCount == Reminder._columnWidth)
      try assertQuery(
        Reminder.where { $isLong($0) }.order(by: \.id).select(\.title), in: db,
        rows: "Doctor appointment\nTake a walk\nSend report\nCall accountant")
    }
  }

  @Test func aCallMayLeaveOutTheArgumentLabels() throws {
    try database.read { db in
      try assertQuery(
        Values($initials("Ada", "Lovelace")), in: db, sql: #"SELECT "initials"(?, ?)"#,
        rows: "AL")
      try assertQuery(
        Reminder.select { $product($0.remindersListID, distinct: true) }, in: db,
        sql: #"SELECT "product"(DISTINCT "reminders"."remindersListID") FROM "reminders""#,
        rows: "2")
    }
  }

  @Test func aRowUnderAnAliasPassesAsTheRow() throws {
    try database.read { db in
      try assertQuery(
        Tag.as(ShortTag.self).where { $isShort($0) }.select(\.title), in: db,
        sql:
          #"SELECT "shortTags"."title" FROM "tags" AS "shortTags" WHERE "isShort"("shortTags"."id", "shortTags"."title")"#,
        rows: "car")
    }
  }

  @Test func aFunctionThatReturnsNothingRunsOncePerRow() throws {
    let log = CallLog()
    try database.writeWithoutTransaction { db in
      db.add(function: log.$record)
      try assertQuery(
        Values(log.$record("hello")), in: db, sql: #"SELECT "record"(?)"#, rows: "NULL")
      log.messages = []
      let rows = try Values(log.$record("once")).fetchAll(db)
      #expect(rows.count == 1)
      #expect(log.messages == ["once"])
    }
  }

  @Test func anAggregateSeesEveryRowOfEachGroup() throws {
    try database.read { db in
      try assertQuery(
        Reminder.group(by: \.remindersListID).order(by: \.remindersListID).select {
          ($0.remindersListID, $product(of: $0.id))
        }, in: db,
        sql:
          #"SELECT "reminders"."remindersListID", "product"("reminders"."id") FROM "reminders" GROUP BY "reminders"."remindersListID" ORDER BY "reminders"."remindersListID""#,
        rows: "1 | 24\n2 | 30")
      try assertQuery(
        Reminder.select { $product(of: $0.id, filter: $0.isCompleted) }, in: db, rows: "24")
      try assertQuery(
        Reminder.where { $0.id.lte(3) }.select { $joinedTitles($0.title, separator: " / ") },
        in: db, rows: "Groceries / Haircut / Doctor appointment")
      // A group of no rows still gets a result.
      try assertQuery(
        Reminder.where { $0.id.gt(100) }.select { $product(of: $0.id) }, in: db, rows: "1")
    }
  }
}
