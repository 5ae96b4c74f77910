import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// Forms the reference's users write that its articles do not show: a whole row or a column
// group named as the insert's columns, and a default scope that is a select with an order.
// Each must write what it says (never a row of defaults in place of the values given) and
// read the rows the scope says.

@Selection
struct ArticleStamps: Equatable {
  var createdAt = 0
  var updatedAt = 0
}

@Table
struct Article: Equatable, Identifiable {
  let id: Int
  var title = ""
  var stamps = ArticleStamps()
}

/// A default scope with an order: hidden rows left out, the newest first.
@Table
struct JournalEntry: Equatable, Identifiable {
  static let all = unscoped.where { !$0.isHidden }.order { $0.id.desc() }
  let id: Int
  var text = ""
  var isHidden = false
}

private func formsDatabase() throws -> DatabaseQueue {
  let database = try DatabaseQueue()
  try database.write { db in
    try db.execute(
      sql: """
        CREATE TABLE "articles" (
          "id" INTEGER PRIMARY KEY, "title" TEXT NOT NULL DEFAULT 'untitled',
          "createdAt" INTEGER NOT NULL DEFAULT 0, "updatedAt" INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE "journalEntries" (
          "id" INTEGER PRIMARY KEY, "text" TEXT NOT NULL DEFAULT '',
          "isHidden" INTEGER NOT NULL DEFAULT 0);
        INSERT INTO "journalEntries" VALUES (1, 'first', 0), (2, 'hidden', 1), (3, 'third', 0);
        """)
  }
  return database
}

@Suite struct InsertAndScopeFormsTests {
  @Test func aWholeRowNamedAsTheColumnsInsertsItsValues() throws {
    try formsDatabase().write { db in
      try assertQuery(
        Article.insert {
          $0
        } values: {
          Article(id: 7, title: "Whole", stamps: ArticleStamps(createdAt: 1, updatedAt: 2))
          Article(id: 8, title: "Second", stamps: ArticleStamps(createdAt: 3, updatedAt: 4))
        },
        in: db,
        sql:
          #"INSERT INTO "articles" ("id", "title", "createdAt", "updatedAt") VALUES (?, ?, ?, ?), (?, ?, ?, ?)"#,
        rows: "")
      #expect(
        try Article.order(by: \.id).fetchAll(db) == [
          Article(id: 7, title: "Whole", stamps: ArticleStamps(createdAt: 1, updatedAt: 2)),
          Article(id: 8, title: "Second", stamps: ArticleStamps(createdAt: 3, updatedAt: 4)),
        ])
      // INSERT … SELECT of whole rows.
      try Article.insert {
        $0
      } select: {
        Article.where { $0.id.eq(7) }.select {
          ($0.id + 10, $0.title, $0.stamps.createdAt, $0.stamps.updatedAt)
        }
      }
      .execute(db)
      #expect(try Article.find(17).fetchOne(db)?.title == "Whole")
    }
  }

  @Test func aColumnGroupNamedAsTheColumnsInsertsItsColumnsOnly() throws {
    try formsDatabase().write { db in
      try assertQuery(
        Article.insert {
          $0.stamps
        } values: {
          ArticleStamps(createdAt: 5, updatedAt: 6)
        },
        in: db, sql: #"INSERT INTO "articles" ("createdAt", "updatedAt") VALUES (?, ?)"#, rows: "")
      let post = try #require(try Article.fetchOne(db))
      #expect(post.title == "untitled" && post.stamps == ArticleStamps(createdAt: 5, updatedAt: 6))
    }
  }

  @Test func rowsOfValuesAndRowsOfExpressionsInOneInsert() throws {
    let withMore = true
    try formsDatabase().write { db in
      try assertQuery(
        Article.insert {
          ($0.id, $0.title)
        } values: {
          for id in [1] {
            (id, "Milk")
          }
          (#sql("1 + 1"), #sql("upper('eggs')"))
          if withMore {
            (3, "Bread")
          }
          (4, "Item 4")
          (5, "Item 5")
        }
        .returning(\.title),
        in: db,
        sql:
          #"INSERT INTO "articles" ("id", "title") VALUES (?, ?), (1 + 1, upper('eggs')), (?, ?), (?, ?), (?, ?) RETURNING "title""#,
        rows: "Milk\nEGGS\nBread\nItem 4\nItem 5")
      #expect(try Article.find(2).select(\.title).fetchOne(db) == "EGGS")
    }
  }

  @Test func aDefaultScopeWithAnOrderAppliesToEveryQueryOfTheTable() throws {
    try formsDatabase().write { db in
      #expect(try JournalEntry.all.fetchAll(db).map(\.id) == [3, 1])
      #expect(try JournalEntry.fetchAll(db).map(\.id) == [3, 1])
      #expect(try JournalEntry.where { $0.id.lt(10) }.fetchAll(db).map(\.id) == [3, 1])
      #expect(try JournalEntry.select(\.text).fetchAll(db) == ["third", "first"])
      #expect(try JournalEntry.fetchCount(db) == 2)
      #expect(try JournalEntry.find(2).fetchOne(db) == nil)
      #expect(try JournalEntry.unscoped.order(by: \.id).fetchAll(db).map(\.id) == [1, 2, 3])
      // Writes through the scope leave hidden rows alone.
      try JournalEntry.update { $0.text = "seen" }.execute(db)
      try JournalEntry.where { $0.id.eq(1) }.delete().execute(db)
      let rows = try JournalEntry.unscoped.order(by: \.id).fetchAll(db)
      #expect(rows.map(\.text) == ["hidden", "seen"] && rows.map(\.id) == [2, 3])
    }
  }

  @Test func aDeleteOfTheTableAndAnAliasKeepTheDefaultScope() throws {
    enum J: AliasName {}
    try formsDatabase().write { db in
      try assertQuery(
        JournalEntry.as(J.self).select(\.id), in: db,
        sql: #"SELECT "js"."id" FROM "journalEntries" AS "js" WHERE NOT ("js"."isHidden")"#,
        rows: "1\n3")
      try assertQuery(
        JournalEntry.delete().returning(\.id), in: db,
        sql:
          #"DELETE FROM "journalEntries" WHERE NOT ("journalEntries"."isHidden") RETURNING "id""#,
        rows: "1\n3")
      #expect(try JournalEntry.unscoped.fetchAll(db).map(\.text) == ["hidden"])
      try JournalEntry.unscoped.delete().execute(db)
      #expect(try JournalEntry.unscoped.fetchCount(db) == 0)
    }
  }

  @Test func aDraftQueryKeepsItsTablesDefaultScope() throws {
    try formsDatabase().write { db in
      try assertQuery(
        JournalEntry.Draft.where { $0.id.gt(0) }.select(\.text), in: db,
        sql:
          #"SELECT "journalEntries"."text" FROM "journalEntries" WHERE (NOT ("journalEntries"."isHidden")) AND (("journalEntries"."id" > ?)) ORDER BY "journalEntries"."id" DESC"#,
        rows: "third\nfirst")
      #expect(try JournalEntry.Draft.all.fetchAll(db).map(\.id) == [3, 1])
      #expect(try JournalEntry.Draft.unscoped.fetchAll(db).count == 3)
    }
  }
}

/// Combining conditions as values, and limits that may be none, as the reference's users
/// write them.
@Suite struct WhereAndLimitFormsTests {
  @Test func whereValuesCombineWithAndOrAndNot() throws {
    let flagged = Reminder.where(\.isFlagged)
    let highPriority = Reminder.where { $0.priority.eq(3) }
    try assertConformance(
      Reminder.incomplete.and(.where(\.isFlagged)).select(\.title),
      sql:
        #"SELECT "reminders"."title" FROM "reminders" WHERE (NOT ("reminders"."isCompleted")) AND ("reminders"."isFlagged")"#,
      rows: "Haircut")
    try assertConformance(
      (flagged || highPriority).order(by: \.id).select(\.title),
      sql:
        #"SELECT "reminders"."title" FROM "reminders" WHERE ("reminders"."isFlagged") OR (("reminders"."priority" = ?)) ORDER BY "reminders"."id""#,
      rows: "Haircut\nDoctor appointment")
    try assertConformance(
      (!flagged && .where { $0.remindersListID.eq(2) }).select(\.title),
      sql:
        #"SELECT "reminders"."title" FROM "reminders" WHERE (NOT ("reminders"."isFlagged")) AND (("reminders"."remindersListID" = ?))"#,
      rows: "Send report\nCall accountant")
  }

  @Test func aNilLimitOrOffsetIsNone() throws {
    let limit: Int? = nil
    try assertConformance(
      Reminder.order(by: \.id).limit(limit).select(\.id),
      sql: #"SELECT "reminders"."id" FROM "reminders" ORDER BY "reminders"."id""#,
      rows: "1\n2\n3\n4\n5\n6")
    try assertConformance(
      Reminder.order(by: \.id).limit(nil, offset: 4).select(\.id),
      sql: #"SELECT "reminders"."id" FROM "reminders" ORDER BY "reminders"."id" LIMIT ? OFFSET ?"#,
      rows: "5\n6")
    try assertConformance(
      Reminder.order(by: \.id).limit(2).offset(nil).select(\.id),
      sql: #"SELECT "reminders"."id" FROM "reminders" ORDER BY "reminders"."id" LIMIT ?"#,
      rows: "1\n2")
    // Later, a nil limit or offset changes nothing, as in the reference.
    try assertConformance(
      Reminder.order(by: \.id).select(\.id).limit(2).limit(nil).offset(nil),
      sql: #"SELECT "reminders"."id" FROM "reminders" ORDER BY "reminders"."id" LIMIT ?"#,
      rows: "1\n2")
    try assertConformance(
      Reminder.order(by: \.id).select(\.id).limit(2, offset: 2).limit(1, offset: nil),
      sql: #"SELECT "reminders"."id" FROM "reminders" ORDER BY "reminders"."id" LIMIT ? OFFSET ?"#,
      rows: "3")
  }

  @Test func aRemainderByZeroIsNull() throws {
    try assertConformance(
      Reminder.where { $0.id.lte(2) }.select { $0.id % 0 },
      sql: #"SELECT ("reminders"."id" % ?) FROM "reminders" WHERE ("reminders"."id" <= ?)"#,
      rows: "NULL\nNULL")
    let remainders = try conformanceDatabase().read { db in
      try Reminder.order(by: \.id).select { $0.id % 0 }.fetchAll(db)
    }
    #expect(remainders.count == 6 && remainders.allSatisfy { $0 == nil })
  }

  @Test func aLimitBuiltFromTheColumns() throws {
    try assertConformance(
      Reminder.order(by: \.id).limit { _ in 2 }.select(\.id),
      sql: #"SELECT "reminders"."id" FROM "reminders" ORDER BY "reminders"."id" LIMIT ?"#,
      rows: "1\n2")
    try assertConformance(
      Reminder.order(by: \.id).limit({ _ in 2 }, offset: { _ in 3 }).select(\.id),
      sql:
        #"SELECT "reminders"."id" FROM "reminders" ORDER BY "reminders"."id" LIMIT ? OFFSET ?"#,
      rows: "4\n5")
  }
}

/// Writes through a table alias keep it: the alias's qualified columns name the table.
@Suite struct AliasedWriteFormsTests {
  @Test func updateAndDeleteThroughAnAliasKeepIt() throws {
    let database = try conformanceDatabase()
    try database.write { db in
      try assertQuery(
        User.as(Referrer.self).where { $0.id.eq(3) }.update { $0.name += "!" }, in: db,
        sql:
          #"UPDATE "users" AS "referrers" SET "name" = ("referrers"."name" || ?) WHERE ("referrers"."id" = ?)"#,
        rows: "")
      #expect(try User.find(3).fetchOne(db)?.name == "Blob Sr!")
      try assertQuery(
        User.as(Referrer.self).where { $0.name.eq("Blob Sr!") }.delete(), in: db,
        sql: #"DELETE FROM "users" AS "referrers" WHERE ("referrers"."name" = ?)"#, rows: "")
      #expect(try User.find(3).fetchOne(db) == nil)
      // Rows return through the alias: the RETURNING clause names the columns alone.
      try assertQuery(
        User.as(Referrer.self).where { $0.id.eq(2) }.update { $0.name = "Junior" }
          .returning(\.self),
        in: db,
        sql:
          #"UPDATE "users" AS "referrers" SET "name" = ? WHERE ("referrers"."id" = ?) RETURNING "id", "name", "referrerID""#,
        rows: "2 | Junior | 1")
      try assertQuery(
        User.as(Referrer.self).insert {
          ($0.id, $0.name)
        } values: {
          (7, "New")
        }
        .returning(\.name),
        in: db,
        sql: #"INSERT INTO "users" AS "referrers" ("id", "name") VALUES (?, ?) RETURNING "name""#,
        rows: "New")
      try assertQuery(
        User.as(Referrer.self).where { $0.id.eq(7) }.delete().returning(\.id), in: db,
        sql: #"DELETE FROM "users" AS "referrers" WHERE ("referrers"."id" = ?) RETURNING "id""#,
        rows: "7")
    }
  }
}
