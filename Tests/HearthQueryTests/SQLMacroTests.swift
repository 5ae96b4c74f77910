import Foundation
import HearthQuery
import Testing

@Suite struct SQLMacroTests {
  let database: DatabaseQueue
  init() throws { database = try makeRemindersDatabase() }

  @Test func interpolatesColumnsTablesAndBindsValues() throws {
    let title = "Haircut"
    let query: SQLQueryExpression<Reminder> = #sql(
      """
      SELECT \(Reminder.columns) FROM \(Reminder.self)
      WHERE \(Reminder.title) = \(title) AND NOT \(Reminder.isCompleted)
      ORDER BY \(Reminder.title) DESC
      """)
    #expect(
      query.query.sql == """
        SELECT "reminders"."id", "reminders"."dueDate", "reminders"."isFlagged", "reminders"."notes", "reminders"."priority", "reminders"."remindersListID", "reminders"."status", "reminders"."title" FROM "reminders"
        WHERE "reminders"."title" = ? AND NOT ("reminders"."status" <> ?)
        ORDER BY "reminders"."title" DESC
        """)
    #expect(query.query.bindings == ["Haircut", 0])
    let reminders = try database.read { try query.fetchAll($0) }
    #expect(reminders.map(\.id) == [2])
  }

  @Test func typedAsAnExpressionInsideTheBuilder() throws {
    let now = Date(timeIntervalSince1970: 1_700_000_000 + 86_400)
    let pastDue = try database.read { db in
      try Reminder.where { $0.isPastDue(now: now) }.fetchAll(db)
    }
    #expect(pastDue.map(\.id) == [1])
    expectSQL(
      Reminder.columns.isPastDue(now: now),
      #"(NOT (("reminders"."status" <> ?)) AND coalesce(date("reminders"."dueDate") < date(?), 0))"#,
      bindings: [0, "2023-11-15 22:13:20.000"])
  }

  @Test func rawTextOnlyWhenAskedFor() throws {
    let column = "title"
    let raw: SQLQueryExpression<String> = #sql(
      "SELECT \(raw: column) FROM reminders WHERE id = \(2)")
    #expect(raw.query.sql == "SELECT title FROM reminders WHERE id = ?")
    #expect(try database.read { try raw.fetchOne($0) } == "Haircut")
    let bound: SQLQueryExpression<String> = #sql("SELECT \(column) FROM reminders WHERE id = 2")
    #expect(bound.query.sql == "SELECT ? FROM reminders WHERE id = 2")
    #expect(try database.read { try bound.fetchOne($0) } == "title")  // a value, never a column
    let quoted: SQLQueryExpression<Int> = #sql("SELECT count(\(quote: column)) FROM reminders")
    #expect(quoted.query.sql == #"SELECT count("title") FROM reminders"#)
  }

  @Test func aFailingStatementReportsTheSQLAndSQLitesMessage() throws {
    let error = try #require(throws: DatabaseError.self) {
      try database.write { try #sql("UPDATE reminders SET nope = 1 WHERE id = \(1)").execute($0) }
    }
    #expect(error.sql == "UPDATE reminders SET nope = 1 WHERE id = ?")
    #expect(error.message == "no such column: nope")
    #expect(error.description.contains("no such column: nope"))
  }

  @Test func statementsWithAnExplicitType() throws {
    let count = try database.read {
      try #sql("SELECT count(*) FROM reminders", as: Int.self).fetchOne($0)
    }
    #expect(count == 3)
  }
}

extension Reminder.TableColumns {
  /// The seeds' `isPastDue`, with the date passed in (HearthData injects it).
  func isPastDue(now: Date) -> some QueryExpression<Bool> {
    !isCompleted && #sql("coalesce(date(\(dueDate)) < date(\(now)), 0)")
  }
}
