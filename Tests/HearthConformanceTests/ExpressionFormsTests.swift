import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

enum ListTextAlias: AliasName {}

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

  @available(*, deprecated)
  @Test func theDeprecatedCountOfTextIsItsLength() throws {
    try database.read { db in
      try assertQuery(
        Reminder.find(1).select { $0.title.count }, in: db,
        sql: #"SELECT length("reminders"."title") FROM "reminders" WHERE ("reminders"."id" = ?)"#,
        rows: "9")
    }
  }

  @Test func stringsOwnMethodsWinOnAString() throws {
    let contains = "milk".contains("il")
    let prefix = "milk".hasPrefix("mi")
    let suffix = "milk".hasSuffix("lk")
    #expect(contains && prefix && suffix)
    try database.read { db in
      try assertQuery(
        Reminder.where { $0.title.contains("cut") || $0.title.hasPrefix("Gro") }.select(\.id),
        in: db,
        sql:
          #"SELECT "reminders"."id" FROM "reminders" WHERE (("reminders"."title" LIKE ? ESCAPE ?) OR ("reminders"."title" LIKE ? ESCAPE ?))"#,
        rows: "1\n2")
    }
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

  @Test func anFTSTableOnAnOuterJoinsOptionalSide() throws {
    try database.write { db in
      try db.execute(
        sql: """
          CREATE VIRTUAL TABLE "listTexts" USING fts5("body", "title");
          INSERT INTO "listTexts" ("rowid", "title", "body") VALUES
            (1, 'personal milk', 'x'), (2, 'work', 'y');
          """)
      // (SQLite's auxiliary functions refuse a row the join did not match: "no such
      // cursor". The reference's own case has a text row for every reminder.)
      try assertQuery(
        RemindersList.leftJoin(ListText.all) { $0.id.eq($1.rowid) }
          .order { list, text in (text.bm25(), list.id) }
          .select { $1.title.highlight("*", "*") }, in: db,
        sql:
          #"SELECT highlight("listTexts", (SELECT "cid" FROM pragma_table_info(?) WHERE "name" = ?), ?, ?) FROM "remindersLists" LEFT JOIN "listTexts" ON ("remindersLists"."id" = "listTexts"."rowid") ORDER BY bm25("listTexts"), "remindersLists"."id""#,
        rows: "personal milk\nwork")
      try assertQuery(
        RemindersList.leftJoin(ListText.all) { $0.id.eq($1.rowid) }
          .order(by: \.id)
          .select { ($0.id, $1.body.snippet("[", "]", "…", 4), $1.rank) }, in: db,
        rows: "1 | x | NULL\n2 | y | NULL")
      // Under an alias, the functions still name the table.
      try assertQuery(
        RemindersList.leftJoin(ListText.as(ListTextAlias.self).all) { $0.id.eq($1.rowid) }
          .order { list, text in (text.bm25(), list.id) }
          .select { $1.title.highlight("*", "*") }, in: db,
        sql:
          #"SELECT highlight("listTexts", (SELECT "cid" FROM pragma_table_info(?) WHERE "name" = ?), ?, ?) FROM "remindersLists" LEFT JOIN "listTexts" AS "listTextAliases" ON ("remindersLists"."id" = "listTextAliases"."rowid") ORDER BY bm25("listTexts"), "remindersLists"."id""#,
        rows: "personal milk\nwork")
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
          #"INSERT INTO "remindersLists" ("title") SELECT 'Groceries' RETURNING "title""#,
        rows: "Groceries")
    }
  }

  @Test func notInAValueListAndASubquery() throws {
    try database.read { db in
      let rest = try Reminder.where { $0.id.notIn([1, 2, 3, 4]) }.order(by: \.id).select(\.id)
        .fetchAll(db)
      #expect(rest == [5, 6])
      let untagged = try Tag.where { $0.id.notIn(ReminderTag.select(\.tagID)) }.select(\.title)
        .fetchAll(db)
      #expect(untagged == [])
      let unassigned = try User.where {
        $0.id.notIn(Reminder.select { $0.assignedUserID.ifnull(0) })
      }
      .select(\.name).fetchAll(db)
      #expect(unassigned == ["Blob Sr"])
    }
  }

  @Test func sqlitesOtherScalarFunctions() throws {
    try database.read { db in
      try assertQuery(
        Values(
          #bind(-3).sign(), #bind(4).zeroblob(), #bind("é").unicode(),
          #bind(16).randomblob().length()),
        in: db, sql: "SELECT sign(?), zeroblob(?), unicode(?), length(randomblob(?))",
        rows: "-1 | x'00000000' | 233 | 16")
      let zeros = try Values(#bind(3).zeroblob()).fetchOne(db)
      #expect(zeros == [0, 0, 0])
      let flagged = try Reminder.where { $0.isFlagged.likely() }.select(\.id).fetchAll(db)
      #expect(flagged == [2])
      let completed = try Reminder.where {
        $0.isCompleted.likelihood(0.25) && !$0.isFlagged.unlikely()
      }
      .order(by: \.id).select(\.id).fetchAll(db)
      #expect(completed == [4, 6])
    }
  }

  @Test func triggersAndViewsDrop() throws {
    try database.write { db in
      let trigger = Tag.createTemporaryTrigger(
        "tagsTouched",
        after: .insert { new in Tag.where { $0.id.eq(new.id) }.update { $0.title += "!" } })
      try trigger.execute(db)
      try Tag.insert { Tag.Draft(title: "new") }.execute(db)
      #expect(try Tag.where { $0.title.eq("new!") }.fetchCount(db) == 1)
      try trigger.drop().execute(db)
      try Tag.insert { Tag.Draft(title: "plain") }.execute(db)
      #expect(try Tag.where { $0.title.eq("plain") }.fetchCount(db) == 1)
      try trigger.drop(ifExists: true).execute(db)
      #expect(throws: (any Error).self) { try trigger.drop().execute(db) }

      let view = TagTitle.createTemporaryView(as: Tag.select { TagTitle.Columns(title: $0.title) })
      try view.execute(db)
      #expect(try TagTitle.all.fetchCount(db) == 5)
      try view.drop().execute(db)
      #expect(throws: (any Error).self) { try TagTitle.all.fetchCount(db) }
      try view.drop(ifExists: true).execute(db)
    }
  }
}

@Table
struct TagTitle {
  let title: String
}
