import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// Views, full-text search, column groups, `#sql` and filters, as the reference's articles
// write them.
@Table
struct ReminderWithList {
  let reminderTitle: String
  let remindersListTitle: String
}

@Table
struct ReminderText: FTS5 {
  let rowid: Int
  let title: String
  let notes: String
}

@Selection
struct Timestamps: Equatable {
  var createdAt: Date
  var updatedAt: Date?
}

@Table
struct Post: Equatable, Identifiable {
  let id: Int
  var title = ""
  var timestamps: Timestamps
}

@Suite struct ViewConformanceTests {
  func databaseWithView() throws -> DatabaseQueue {
    let database = try conformanceDatabase()
    try database.write { db in
      try ReminderWithList.createTemporaryView(
        as: Reminder.join(RemindersList.all) { $0.remindersListID.eq($1.id) }
          .select {
            ReminderWithList.Columns(reminderTitle: $0.title, remindersListTitle: $1.title)
          }
      ).execute(db)
    }
    return database
  }

  @Test func aViewIsQueriedLikeATable() throws {
    let database = try databaseWithView()
    try database.read { db in
      try assertQuery(
        ReminderWithList.order { ($0.remindersListTitle, $0.reminderTitle) }.limit(3), in: db,
        sql:
          #"SELECT "reminderWithLists"."reminderTitle", "reminderWithLists"."remindersListTitle" FROM "reminderWithLists" ORDER BY "reminderWithLists"."remindersListTitle", "reminderWithLists"."reminderTitle" LIMIT ?"#,
        rows: "Doctor appointment | Personal\nGroceries | Personal\nHaircut | Personal")
      try assertQuery(
        ReminderWithList.where { $0.remindersListTitle == "Work" }.count(), in: db,
        sql:
          #"SELECT count(*) FROM "reminderWithLists" WHERE ("reminderWithLists"."remindersListTitle" = ?)"#,
        rows: "2")
      try assertQuery(
        ReminderWithList.group(by: \.remindersListTitle).select {
          ($0.remindersListTitle, $0.reminderTitle.count())
        }, in: db,
        sql:
          #"SELECT "reminderWithLists"."remindersListTitle", count("reminderWithLists"."reminderTitle") FROM "reminderWithLists" GROUP BY "reminderWithLists"."remindersListTitle""#,
        rows: "Personal | 4\nWork | 2")
    }
  }

  @Test func aViewIsReadOnlyUntilATriggerWritesIt() throws {
    let database = try databaseWithView()
    try database.write { db in
      let insert = ReminderWithList.insert {
        ReminderWithList(reminderTitle: "Morning sync", remindersListTitle: "Work")
      }
      #expect(throws: DatabaseError.self) { try insert.execute(db) }
      try ReminderWithList.createTemporaryTrigger(
        insteadOf: .insert { new in
          Reminder.insert {
            ($0.title, $0.remindersListID)
          } values: {
            (
              new.reminderTitle,
              RemindersList.select(\.id).where { $0.title.eq(new.remindersListTitle) }
            )
          }
        }
      ).execute(db)
      try insert.execute(db)
      #expect(
        try Reminder.where { $0.title == "Morning sync" }.select(\.remindersListID).fetchOne(db)
          == 2)
      #expect(try ReminderWithList.count().fetchOne(db) == 7)
    }
  }
}

@Suite struct FullTextSearchConformanceTests {
  let database: DatabaseQueue

  init() throws {
    database = try conformanceDatabase()
    try database.write { db in
      try db.execute(sql: #"CREATE VIRTUAL TABLE "reminderTexts" USING fts5("title", "notes")"#)
      try ReminderText.insert {
        ($0.rowid, $0.title, $0.notes)
      } select: {
        Reminder.select { ($0.id, $0.title, $0.notes) }
      }.execute(db)
    }
  }

  @Test func matchRankHighlightSnippet() throws {
    try database.read { db in
      try assertQuery(
        ReminderText.where { $0.match("eggs") }.select(\.rowid), in: db,
        sql:
          #"SELECT "reminderTexts"."rowid" FROM "reminderTexts" WHERE ("reminderTexts" MATCH ?)"#,
        rows: "1")
      // Without `match`, a row has no rank: NULL, read as nil.
      let unranked = try ReminderText.select { ($0.title, $0.rank) }.limit(1).fetchAll(db)
      #expect(unranked.count == 1 && unranked[0].1 == nil)
      try assertQuery(
        ReminderText.where { $0.title.match("report") }.select(\.title), in: db,
        sql:
          #"SELECT "reminderTexts"."title" FROM "reminderTexts" WHERE ("reminderTexts"."title" MATCH ?)"#,
        rows: "Send report")
      try assertQuery(
        ReminderText.where { $0.match("a*") }.order(by: \.rank).select(\.rowid).limit(1), in: db,
        sql:
          #"SELECT "reminderTexts"."rowid" FROM "reminderTexts" WHERE ("reminderTexts" MATCH ?) ORDER BY "reminderTexts"."rank" LIMIT ?"#,
        rows: "3")
      try assertQuery(
        ReminderText.where { $0.match("diet") }.select { $0.notes.highlight("[", "]") }, in: db,
        sql:
          #"SELECT highlight("reminderTexts", (SELECT "cid" FROM pragma_table_info(?) WHERE "name" = ?), ?, ?) FROM "reminderTexts" WHERE ("reminderTexts" MATCH ?)"#,
        rows: "Ask about [diet]")
      try assertQuery(
        ReminderText.where { $0.match("milk") }.select { $0.notes.snippet("<", ">", "…", 2) },
        in: db,
        sql:
          #"SELECT snippet("reminderTexts", (SELECT "cid" FROM pragma_table_info(?) WHERE "name" = ?), ?, ?, ?, ?) FROM "reminderTexts" WHERE ("reminderTexts" MATCH ?)"#,
        rows: "<Milk>, eggs")
      let ranked = try ReminderText.where { $0.match("a*") }.order { $0.bm25(10, 1) }
        .select(\.rowid).fetchAll(db)
      // "a*" matches "appointment", "about", "a", "accountant".
      #expect(Set(ranked) == [3, 4, 6])
    }
  }
}

@Suite struct ColumnGroupConformanceTests {
  let database: DatabaseQueue
  let created = Date(timeIntervalSince1970: 1_700_000_000)

  init() throws {
    database = try DatabaseQueue()
    try database.write { db in
      try db.execute(
        sql: """
          CREATE TABLE "posts" (
            "id" INTEGER PRIMARY KEY, "title" TEXT NOT NULL DEFAULT '',
            "createdAt" TEXT NOT NULL, "updatedAt" TEXT
          ) STRICT
          """)
      try db.seed {
        Post(id: 1, title: "Hello", timestamps: Timestamps(createdAt: created))
        Post(
          id: 2, title: "Again",
          timestamps: Timestamps(
            createdAt: created.addingTimeInterval(60), updatedAt: created.addingTimeInterval(120)))
      }
    }
  }

  @Test func groupsFlattenQueryAndUpdate() throws {
    try database.write { db in
      try assertQuery(
        Post.all, in: db,
        sql:
          #"SELECT "posts"."id", "posts"."title", "posts"."createdAt", "posts"."updatedAt" FROM "posts""#,
        rows:
          "1 | Hello | 2023-11-14 22:13:20.000 | NULL\n2 | Again | 2023-11-14 22:14:20.000 | 2023-11-14 22:15:20.000"
      )
      try assertQuery(
        Post.where { $0.timestamps.updatedAt.isNot(nil) }.select(\.id), in: db,
        sql: #"SELECT "posts"."id" FROM "posts" WHERE ("posts"."updatedAt" IS NOT ?)"#, rows: "2")
      try assertQuery(
        Post.order { $0.timestamps.createdAt.desc() }.select { $0.timestamps }, in: db,
        sql:
          #"SELECT "posts"."createdAt", "posts"."updatedAt" FROM "posts" ORDER BY "posts"."createdAt" DESC"#,
        rows: "2023-11-14 22:14:20.000 | 2023-11-14 22:15:20.000\n2023-11-14 22:13:20.000 | NULL")
      try assertQuery(
        Post.find(1).update {
          $0.timestamps = Timestamps.Columns(
            createdAt: #bind(created), updatedAt: #bind(Optional(created)))
        }.returning(\.timestamps.updatedAt), in: db,
        sql:
          #"UPDATE "posts" SET "createdAt" = ?, "updatedAt" = ? WHERE ("posts"."id" = ?) RETURNING "updatedAt""#,
        rows: "2023-11-14 22:13:20.000")
      let groups = try Post.order(by: \.id).select { $0.timestamps }.fetchAll(db)
      #expect(groups.map(\.updatedAt) == [created, created.addingTimeInterval(120)])
    }
  }
}

@Suite struct RawSQLMoreConformanceTests {
  @Test func safeInterpolations() throws {
    let title = "Haircut'; DROP TABLE reminders; --"
    try assertConformance(
      #sql(
        "SELECT \(Reminder.id) FROM \(Reminder.self) WHERE \(Reminder.title) = \(title)",
        as: Int.self),
      sql: #"SELECT "reminders"."id" FROM "reminders" WHERE "reminders"."title" = ?"#, rows: "")
    try assertConformance(
      Reminder.where { #sql("\($0.priority) > \(1)") }.select(\.id),
      sql: #"SELECT "reminders"."id" FROM "reminders" WHERE "reminders"."priority" > ?"#,
      rows: "3\n6")
    try assertConformance(
      Reminder.select { #sql("upper(\($0.title))", as: String.self) }.where { $0.id == 1 },
      sql: #"SELECT upper("reminders"."title") FROM "reminders" WHERE ("reminders"."id" = ?)"#,
      rows: "GROCERIES")
    try assertConformance(
      #sql("SELECT count(*) FROM \(quote: "remindersLists")", as: Int.self),
      sql: #"SELECT count(*) FROM "remindersLists""#, rows: "2")
    let rows = try conformanceDatabase().read { db in
      try #sql(
        "SELECT \(Reminder.columns) FROM \(Reminder.self) WHERE \(Reminder.isFlagged)",
        as: Reminder.self
      )
      .fetchAll(db)
    }
    #expect(rows.map(\.title) == ["Haircut"])
  }
}

@Suite struct WhereConformanceTests {
  @Test func filters() throws {
    try assertConformance(
      Reminder.where(\.isFlagged).select(\.id),
      sql: #"SELECT "reminders"."id" FROM "reminders" WHERE "reminders"."isFlagged""#, rows: "2")
    try assertConformance(
      Reminder.where(\.isHighPriority).select(\.id),
      sql: #"SELECT "reminders"."id" FROM "reminders" WHERE ("reminders"."priority" = ?)"#,
      rows: "3")
    try assertConformance(
      Reminder.where { $0.priority.eq(3) || $0.isFlagged }.select(\.id),
      sql:
        #"SELECT "reminders"."id" FROM "reminders" WHERE (("reminders"."priority" = ?) OR "reminders"."isFlagged")"#,
      rows: "2\n3")
    try assertConformance(
      Reminder.where(\.isCompleted).or(Reminder.where(\.isFlagged)).select(\.id),
      sql:
        #"SELECT "reminders"."id" FROM "reminders" WHERE ("reminders"."isCompleted") OR ("reminders"."isFlagged")"#,
      rows: "2\n4\n6")
    try assertConformance(
      Reminder.where(\.isCompleted).and(Reminder.where { $0.priority.isNot(nil) }).select(\.id),
      sql:
        #"SELECT "reminders"."id" FROM "reminders" WHERE ("reminders"."isCompleted") AND (("reminders"."priority" IS NOT ?))"#,
      rows: "6")
    // A clause with no condition adds nothing to `and` or `or`, as in the reference.
    try assertConformance(
      Reminder.all.or(Reminder.where(\.isFlagged)).select(\.id),
      sql: #"SELECT "reminders"."id" FROM "reminders" WHERE "reminders"."isFlagged""#,
      rows: "2")
    try assertConformance(
      (Reminder.where(\.isFlagged) || Reminder.all).select(\.id),
      sql: #"SELECT "reminders"."id" FROM "reminders" WHERE "reminders"."isFlagged""#,
      rows: "2")
    try assertConformance(
      Reminder.all.and(Reminder.where(\.isCompleted)).select(\.id),
      sql: #"SELECT "reminders"."id" FROM "reminders" WHERE "reminders"."isCompleted""#,
      rows: "4\n6")
    try assertConformance(
      Reminder.where(\.isCompleted).not().select(\.id).order(by: \.id),
      sql:
        #"SELECT "reminders"."id" FROM "reminders" WHERE NOT ("reminders"."isCompleted") ORDER BY "reminders"."id""#,
      rows: "1\n2\n3\n5")
  }

  @Test func outerJoins() throws {
    try assertConformance(
      Reminder.rightJoin(User.all) { $0.assignedUserID.eq($1.id) }.select { ($0.title, $1.name) },
      sql:
        #"SELECT "reminders"."title", "users"."name" FROM "reminders" RIGHT JOIN "users" ON ("reminders"."assignedUserID" = "users"."id")"#,
      rows: "Groceries | Blob\nSend report | Blob Jr\nNULL | Blob Sr")
    let rows = try conformanceDatabase().read { db in
      try User.fullJoin(Reminder.where { $0.assignedUserID.isNot(nil) }) {
        $0.id.eq($1.assignedUserID)
      }.fetchAll(db)
    }
    // The joined side's conditions join the WHERE clause, as the reference's do: only the
    // rows with an assigned reminder are left.
    #expect(rows.map { $0.0?.name } == ["Blob", "Blob Jr"])
    #expect(rows.map { $0.1?.title } == ["Groceries", "Send report"])
  }
}
