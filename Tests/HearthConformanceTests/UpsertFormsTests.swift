import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// Every form of insert with every conflict clause, as the reference's users write them:
// `onConflictDoUpdate` (with `$1`, with a `where`), `onConflict` (with the `where` of a
// partial index, a `doUpdate` and its `where`, or nothing: DO NOTHING), after rows, drafts,
// chosen columns' values, and selects.
@Suite struct UpsertFormsTests {
  let database: DatabaseQueue

  init() throws {
    database = try conformanceDatabase()
    try database.write { db in
      try db.execute(sql: #"CREATE UNIQUE INDEX "tags_title" ON "tags"("title")"#)
    }
  }

  @Test func aSelectIntoChosenColumnsUpdatesOnConflict() throws {
    try database.write { db in
      try assertQuery(
        Tag.insert {
          $0.title
        } select: {
          RemindersList.select { $0.title.lower() }
            .union(Tag.select(\.title))
        } onConflict: {
          $0.title
        } doUpdate: {
          $0.title += "?"
        }
        .returning(\.title), in: db,
        sql:
          #"INSERT INTO "tags" ("title") SELECT * FROM (SELECT lower("remindersLists"."title") FROM "remindersLists" UNION SELECT "tags"."title" FROM "tags") WHERE 1 ON CONFLICT ("title") DO UPDATE SET "title" = ("tags"."title" || ?) RETURNING "title""#,
        rows: "car?\nkids?\npersonal\nsomeday?\nwork")
    }
  }

  @Test func onConflictAloneDoesNothing() throws {
    // Without a unique index over the targets SQLite refuses the statement: the form is
    // rendered, not dropped.
    let query = ReminderTag.insert {
      ReminderTag(reminderID: 1, tagID: 3)
    } onConflict: {
      ($0.reminderID, $0.tagID)
    }
    #expect(query.query.sql.hasSuffix(#"ON CONFLICT ("reminderID", "tagID") DO NOTHING"#))
    try database.write { db in
      try db.execute(
        sql: #"CREATE UNIQUE INDEX "remindersTags_pair" ON "remindersTags"("reminderID", "tagID")"#
      )
      try assertQuery(
        ReminderTag.insert {
          ReminderTag(reminderID: 1, tagID: 3)
          ReminderTag(reminderID: 2, tagID: 3)
        } onConflict: {
          ($0.reminderID, $0.tagID)
        }
        .returning(\.reminderID), in: db, rows: "2")
    }
  }

  @Test func draftsWithBothWheres() throws {
    try database.write { db in
      try db.execute(sql: #"UPDATE "reminders" SET "isFlagged" = 1 WHERE "id" = 1"#)
      let statement = Reminder.insert {
        Reminder.Draft(id: 1, isCompleted: true, remindersListID: 1, title: "Groceries 2")
        Reminder.Draft(id: 2, isCompleted: true, remindersListID: 1, title: "Haircut 2")
      } onConflict: {
        $0.id
      } where: {
        !$0.isCompleted
      } doUpdate: {
        $0.isCompleted = $1.isCompleted
      } where: { row, _ in
        row.isFlagged
      }
      #expect(
        statement.query.sql.hasSuffix(
          #"ON CONFLICT ("id") WHERE NOT ("reminders"."isCompleted") DO UPDATE SET "isCompleted" = "excluded"."isCompleted" WHERE "reminders"."isFlagged""#
        ))
      try statement.execute(db)
      // Both flagged (row 2 was seeded flagged, row 1 just now): both completed.
      #expect(
        try Reminder.where { $0.id.in([1, 2]) }.order(by: \.id).select(\.isCompleted).fetchAll(db)
          == [true, true])
      try db.execute(
        sql: #"UPDATE "reminders" SET "isCompleted" = 0, "isFlagged" = 0 WHERE "id" = 1"#)
      try Reminder.insert {
        Reminder.Draft(id: 1, isCompleted: true, remindersListID: 1, title: "Groceries")
      } onConflict: {
        $0.id
      } where: {
        !$0.isCompleted
      } doUpdate: {
        $0.isCompleted = $1.isCompleted
      } where: { row, _ in
        row.isFlagged
      }
      .execute(db)
      #expect(try Reminder.find(1).select(\.isCompleted).fetchOne(db) == false)
    }
  }

  @Test func aWhereWithNothingToUpdateLeavesThePlainInsert() throws {
    for onlyFlagged in [false, true] {
      try database.write { db in
        let statement = Reminder.insert {
          Reminder.Draft(remindersListID: 1, title: "Call Ana")
        } where: {
          if onlyFlagged { $0.isFlagged }
        }
        #expect(!statement.query.sql.contains("ON CONFLICT"))
        #expect(!statement.query.sql.contains("WHERE"))
        try statement.execute(db)
        #expect(try Reminder.where { $0.title.eq("Call Ana") }.fetchCount(db) == 1)
        try Reminder.where { $0.title.eq("Call Ana") }.delete().execute(db)
        try Tag.insert {
          Tag(id: 90, title: "errands")
        } where: {
          $0.title.eq("x")
        }.execute(db)
        #expect(try Tag.find(90).select(\.title).fetchOne(db) == "errands")
        try Tag.find(90).delete().execute(db)
      }
    }
  }

  @Test func onConflictDoUpdateWithAWhereOverTheRefusedRow() throws {
    try database.write { db in
      let later = Date(timeIntervalSince1970: 1_800_000_000)
      let earlier = Date(timeIntervalSince1970: 1_600_000_000)
      for (id, stamp) in [(1, later), (2, earlier)] {
        try Reminder.insert {
          Reminder.Draft(id: id, remindersListID: 1, title: "t\(id)", updatedAt: stamp)
        } onConflictDoUpdate: { updates, excluded in
          updates.updatedAt = excluded.updatedAt
          updates.title = excluded.title
        } where: { columns, excluded in
          excluded.updatedAt.gt(columns.updatedAt)
        }
        .execute(db)
      }
      // The later edit won; the earlier one was refused by the where.
      #expect(
        try Reminder.where { $0.id.in([1, 2]) }.order(by: \.id).select(\.title).fetchAll(db)
          == ["t1", "Haircut"])
    }
  }

  @Test func chosenColumnsWithAConditionalWhere() throws {
    let onlyFlagged = false
    try database.write { db in
      try assertQuery(
        Reminder.insert {
          ($0.id, $0.remindersListID, $0.title)
        } values: {
          (3, 1, "Dentist")
        } onConflictDoUpdate: {
          $0.title = "Dentist"
        } where: {
          if onlyFlagged { $0.isFlagged }
        }
        .returning(\.title), in: db, rows: "Dentist")
    }
  }

  @Test func wholeRowsAndWholeRowSelects() throws {
    try database.write { db in
      try assertQuery(
        Tag.insert {
          $0
        } values: {
          Tag(id: 1, title: "bike")
        } onConflict: {
          $0.id
        } doUpdate: {
          $0.title = $1.title
        }
        .returning(\.title), in: db, rows: "bike")
      try assertQuery(
        Tag.insert {
          $0
        } select: {
          Tag.where { $0.id.eq(2) }.select { Tag.Columns(id: $0.id, title: $0.title + "!") }
        } onConflictDoUpdate: {
          $0.title = $1.title
        }
        .returning(\.title), in: db, rows: "kids!")
      try assertQuery(
        Tag.insert {
          Tag(id: 3, title: "one day")
        } onConflictDoUpdate: {
          $0.title = $1.title
        }
        .returning(\.title), in: db, rows: "one day")
    }
  }

  @Test func rowsAndDraftsInOneInsert() throws {
    try database.write { db in
      try assertQuery(
        Tag.insert {
          Tag(id: 10, title: "ten")
          Tag.Draft(title: "next")
          [Tag(id: 20, title: "twenty")]
        }
        .returning(\.id), in: db, rows: "10\n11\n20")
      try assertQuery(
        Reminder.insert(\.remindersListID) { 2 }.returning(\.remindersListID), in: db, rows: "2")
      try assertQuery(
        Tag.insert { Tag(id: 30, title: "thirty") }.returning(\.title), in: db, rows: "thirty")
    }
  }
}
