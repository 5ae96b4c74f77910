import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

@Table
struct ListText: FTS5 {
  let rowid: Int
  let title: String
  let body: String
}

// Expression forms the reference's users write beyond its articles: a computed separator,
// map and flatMap over an optional column, bm25 weights named by column, a select of
// `#sql` values typed by the columns it is inserted into.
@Suite struct ExpressionFormsTests {
  let database: DatabaseQueue

  init() throws {
    database = try conformanceDatabase()
  }

  @Test func groupConcatWithAComputedSeparator() throws {
    try database.read { db in
      try assertQuery(
        Reminder.where { $0.remindersListID.eq(2) }
          .select { $0.title.groupConcat(#sql("' / '"), order: $0.title) }, in: db,
        rows: "Call accountant / Send report")
      try assertQuery(
        Reminder.where { $0.id.lte(2) }.select { $0.title.groupConcat($0.notes, order: $0.id) },
        in: db, rows: "GroceriesHaircut")
    }
  }

  @Test func mapAndFlatMapOverAnOptionalColumn() throws {
    try database.read { db in
      try assertQuery(
        Reminder.order(by: \.id).select { ($0.id, $0.priority.map { $0 * 10 }) }, in: db,
        sql:
          #"SELECT "reminders"."id", CASE WHEN "reminders"."priority" IS NULL THEN NULL ELSE ("reminders"."priority" * ?) END FROM "reminders" ORDER BY "reminders"."id""#,
        rows: "1 | NULL\n2 | NULL\n3 | 30\n4 | NULL\n5 | 10\n6 | 20")
      #expect(
        try Reminder.where { $0.priority.map { $0.gt(1) } ?? false }.order(by: \.id).select(\.id)
          .fetchAll(db) == [3, 6])
      #expect(try Reminder.select { $0.priority.flatMap { $0.max() } }.fetchOne(db) == 3)
    }
  }

  @Test func bm25WeightsNamedByColumn() throws {
    try database.write { db in
      // The virtual table's columns in another order than the Swift type's.
      try db.execute(
        sql: """
          CREATE VIRTUAL TABLE "listTexts" USING fts5("body", "title");
          INSERT INTO "listTexts" ("rowid", "title", "body") VALUES
            (1, 'milk', 'bread and butter'), (2, 'bread', 'milk and honey');
          """)
      let titleFirst = try ListText.where { $0.match("milk") }
        .order { $0.bm25([\.title: 10, \.body: 1]) }.select(\.rowid).fetchAll(db)
      let bodyFirst = try ListText.where { $0.match("milk") }
        .order { $0.bm25([\.body: 10]) }.select(\.rowid).fetchAll(db)
      #expect(titleFirst == [1, 2])
      #expect(bodyFirst == [2, 1])
    }
  }

  @Test func aSelectOfSQLValuesIsTypedByTheColumnsItFills() throws {
    try database.write { db in
      try assertQuery(
        RemindersList.insert {
          $0.title
        } select: {
          Values(#sql("'Groceries'"))
        }
        .returning(\.title), in: db,
        sql:
          #"INSERT INTO "remindersLists" ("title") SELECT 'Groceries' RETURNING "remindersLists"."title""#,
        rows: "Groceries")
    }
  }
}
