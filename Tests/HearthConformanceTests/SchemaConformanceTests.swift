import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// Aliases, triggers, common table expressions, `#sql`, `Values` and schemas, as the
// reference's articles write them.
@Suite struct AliasConformanceTests {
  @Test func selfJoinSelectingWholeRows() throws {
    let rows = try conformanceDatabase().read { db in
      try User.join(User.as(Referrer.self).all) { $0.referrerID.eq($1.id) }.fetchAll(db)
    }
    #expect(rows.map(\.0.name) == ["Blob Jr"])
    #expect(rows.map(\.1.name) == ["Blob"])
    #expect(rows.map(\.1.base) == [User(id: 1, name: "Blob")])
  }

  @Test func aliasInWhereOrderAndCount() throws {
    try assertConformance(
      User.as(Referrer.self).where { $0.name.hasPrefix("Blob S") }.select(\.id),
      sql:
        #"SELECT "referrers"."id" FROM "users" AS "referrers" WHERE ("referrers"."name" LIKE ? ESCAPE ?)"#,
      rows: "3")
    try assertConformance(
      User.as(Referrer.self).order { $0.name.desc() }.select(\.name).limit(1),
      sql:
        #"SELECT "referrers"."name" FROM "users" AS "referrers" ORDER BY "referrers"."name" DESC LIMIT ?"#,
      rows: "Blob Sr")
    try assertConformance(
      User.as(Referrer.self).count(), sql: #"SELECT count(*) FROM "users" AS "referrers""#,
      rows: "3")
    try assertConformance(
      User.as(Referrer.self).find(2).select(\.name),
      sql: #"SELECT "referrers"."name" FROM "users" AS "referrers" WHERE ("referrers"."id" = ?)"#,
      rows: "Blob Jr")
  }

  @Test func subqueryOnItsOuterQuerysTable() throws {
    // Users who referred someone: the inner query reads "users" under another name.
    try assertConformance(
      User.where { user in
        User.as(Referrer.self).where { $0.referrerID.eq(user.id) }.exists()
      }.select(\.name),
      sql:
        #"SELECT "users"."name" FROM "users" WHERE EXISTS (SELECT "referrers"."id", "referrers"."name", "referrers"."referrerID" FROM "users" AS "referrers" WHERE ("referrers"."referrerID" = "users"."id"))"#,
      rows: "Blob")
  }

  @Test func aliasNameDefaultsToThePluralOfTheType() {
    enum Parent: AliasName {}
    enum Category: AliasName {}
    enum Named: AliasName { static let aliasName = "elders" }
    #expect(Parent.aliasName == "parents")
    #expect(Category.aliasName == "categories")
    #expect(User.as(Named.self).tableAlias == "elders")
  }
}

@Suite struct TriggerConformanceTests {
  @Test func touchADateColumnAfterAnUpdate() throws {
    let database = try conformanceDatabase()
    try database.write { db in
      let trigger = Reminder.createTemporaryTrigger(after: .update(touch: \.updatedAt))
      #expect(
        trigger.query.sql.hasSuffix(
          #"AFTER UPDATE ON "reminders" FOR EACH ROW BEGIN UPDATE "reminders" SET "updatedAt" = strftime('%Y-%m-%d %H:%M:%f', 'now') WHERE ("reminders"."rowid" = "new"."rowid"); END"#
        ))
      try trigger.execute(db)
      try Reminder.find(1).update { $0.title = "Milk" }.execute(db)
      let stamps = try Reminder.order(by: \.id).select(\.updatedAt).limit(2).fetchAll(db)
      #expect(stamps[0].timeIntervalSinceNow > -60)
      #expect(stamps[1] == Date(timeIntervalSince1970: 1_700_000_000))
    }
  }

  @Test func touchWithAClosureAfterAnInsert() throws {
    let database = try conformanceDatabase()
    try database.write { db in
      try Reminder.createTemporaryTrigger(after: .insert(touch: { $0.isFlagged = true }))
        .execute(db)
      try Reminder.insert { Reminder.Draft(remindersListID: 1, title: "New") }.execute(db)
      #expect(try Reminder.where { $0.title == "New" }.select(\.isFlagged).fetchOne(db) == true)
    }
  }

  @Test func touchOnlyWhenChosenColumnsChange() throws {
    let database = try conformanceDatabase()
    try database.write { db in
      let fixed = Date(timeIntervalSince1970: 1_800_000_000)
      try Reminder.createTemporaryTrigger(
        after: .update(of: { $0.title }, touch: \.updatedAt, date: #bind(fixed))
      ).execute(db)
      try Reminder.find(2).update { $0.notes = "short" }.execute(db)
      try Reminder.find(3).update { $0.title = "Dentist" }.execute(db)
      let stamps = try Reminder.where { $0.id.in([2, 3]) }.order(by: \.id).select(\.updatedAt)
        .fetchAll(db)
      #expect(stamps == [Date(timeIntervalSince1970: 1_700_000_000), fixed])
    }
  }

  @Test func aTriggerThatKeepsOneListWhenTheLastIsDeleted() throws {
    let database = try conformanceDatabase()
    try database.write { db in
      try RemindersList.createTemporaryTrigger(
        after: .delete { _ in
          RemindersList.insert { RemindersList.Draft(title: "Personal") }
        } when: { _ in
          !RemindersList.exists()
        }
      ).execute(db)
      try RemindersList.delete().execute(db)
      #expect(try RemindersList.select(\.title).fetchAll(db) == ["Personal"])
    }
  }
}

@Suite struct CommonTableExpressionConformanceTests {
  @Test func aCTEFilteringTheMainQuery() throws {
    let query = With {
      RemindersList
        .group(by: \.id)
        .leftJoin(Reminder.all) { $0.id.eq($1.remindersListID) }
        .select { remindersList, _ in HighPriorityRemindersList.Columns(id: remindersList.id) }
        .having { $1.priority.avg() > 1.5 }
    } query: {
      RemindersList.where { $0.id.in(HighPriorityRemindersList.select(\.id)) }.select(\.title)
    }
    try assertConformance(
      query,
      sql:
        #"WITH RECURSIVE "highPriorityRemindersLists" ("id") AS (SELECT "remindersLists"."id" FROM "remindersLists" LEFT JOIN "reminders" ON ("remindersLists"."id" = "reminders"."remindersListID") GROUP BY "remindersLists"."id" HAVING (avg("reminders"."priority") > ?)) SELECT "remindersLists"."title" FROM "remindersLists" WHERE ("remindersLists"."id" IN (SELECT "highPriorityRemindersLists"."id" FROM "highPriorityRemindersLists"))"#,
      // Work's priorities average exactly 1.5; NULL priorities are left out of the mean.
      rows: "Personal")
  }

  @Test func aCTEFeedingAnUpdateAndADelete() throws {
    let database = try conformanceDatabase()
    try database.write { db in
      try With {
        Reminder.where { $0.priority.isNot(nil) }.select {
          HighPriorityRemindersList.Columns(id: $0.remindersListID)
        }
      } query: {
        RemindersList.where { $0.id.in(HighPriorityRemindersList.select(\.id)) }
          .update { $0.title += " (Urgent!)" }
      }.execute(db)
      #expect(
        try RemindersList.order(by: \.id).select(\.title).fetchAll(db) == [
          "Personal (Urgent!)", "Work (Urgent!)",
        ])
      try With {
        Reminder.where { $0.isFlagged }.select {
          HighPriorityRemindersList.Columns(id: $0.remindersListID)
        }
      } query: {
        RemindersList.where { !$0.id.in(HighPriorityRemindersList.select(\.id)) }.delete()
      }.execute(db)
      #expect(try RemindersList.select(\.id).fetchAll(db) == [1])
    }
  }

  @Test func aRecursiveCTEStartedFromValuesThenACompound() throws {
    let counts = With {
      Values(Counts.Columns(value: 1))
        .union(
          all: true, Counts.where { $0.value < 5 }.select { Counts.Columns(value: $0.value + 1) })
    } query: {
      Counts.where { $0.value.gt(3) }.select(\.value)
        .union(Counts.where { $0.value.lt(2) }.select(\.value))
    }
    try assertConformance(
      counts,
      sql:
        #"WITH RECURSIVE "countses" ("value") AS (SELECT ? AS "value" UNION ALL SELECT ("countses"."value" + ?) FROM "countses" WHERE ("countses"."value" < ?)) SELECT "countses"."value" FROM "countses" WHERE ("countses"."value" > ?) UNION SELECT "countses"."value" FROM "countses" WHERE ("countses"."value" < ?)"#,
      rows: "1\n4\n5")
  }

  @Test func aSelectionHoldingATableIsATableToo() throws {
    let query = With {
      RemindersList.group(by: \.id).leftJoin(Reminder.all) { $0.id.eq($1.remindersListID) }
        .select { ListWithCount.Columns(list: $0, reminderCount: $1.count()) }
    } query: {
      ListWithCount.where { $0.reminderCount > 2 }
    }
    let titles = With {
      RemindersList.group(by: \.id).leftJoin(Reminder.all) { $0.id.eq($1.remindersListID) }
        .select { ListWithCount.Columns(list: $0, reminderCount: $1.count()) }
    } query: {
      ListWithCount.where { $0.reminderCount > 2 }.select { $0.list.title }
    }
    try assertConformance(
      titles,
      sql:
        #"WITH RECURSIVE "listWithCounts" ("id", "color", "title", "position", "reminderCount") AS (SELECT "remindersLists"."id", "remindersLists"."color", "remindersLists"."title", "remindersLists"."position", count("reminders"."id") FROM "remindersLists" LEFT JOIN "reminders" ON ("remindersLists"."id" = "reminders"."remindersListID") GROUP BY "remindersLists"."id") SELECT "listWithCounts"."title" FROM "listWithCounts" WHERE ("listWithCounts"."reminderCount" > ?)"#,
      rows: "Personal")
    let rows = try conformanceDatabase().read { db in try query.fetchAll(db) }
    #expect(rows.map(\.list.title) == ["Personal"])
    #expect(rows.map(\.reminderCount) == [4])
  }

  @Test func valuesOfSeveralColumns() throws {
    try assertConformance(
      Values(1, "Hello", true), sql: "SELECT ?, ?, ?", rows: "1 | Hello | 1")
    let row = try DatabaseQueue().read { db in try Values(2, "two", 2.5).fetchOne(db) }
    #expect(row?.0 == 2)
    #expect(row?.1 == "two")
    #expect(row?.2 == 2.5)
  }
}

@Suite struct RawSQLConformanceTests {
  @Test func aSelectOfSeveralTablesDecodesIntoATuple() throws {
    let rows = try conformanceDatabase().read { db in
      try #sql(
        """
        SELECT \(Reminder.columns), \(RemindersList.columns)
        FROM \(Reminder.self) JOIN \(RemindersList.self)
          ON \(Reminder.remindersListID) = \(RemindersList.id)
        WHERE \(Reminder.priority) = \(3)
        """, as: (Reminder, RemindersList).self
      ).fetchAll(db)
    }
    #expect(rows.map(\.0.title) == ["Doctor appointment"])
    #expect(rows.map(\.1.title) == ["Personal"])
  }

  @Test func aTupleOfTablesAndColumns() throws {
    let row = try conformanceDatabase().read { db in
      try #sql(
        "SELECT \(User.columns), count(*) FROM \(User.self) WHERE \(User.id) = 1",
        as: (User, Int).self
      ).fetchOne(db)
    }
    #expect(row?.0.name == "Blob")
    #expect(row?.1 == 1)
  }
}

@Suite struct InsertEdgeConformanceTests {
  @Test func aDraftOfDefaultsOnlyInsertsDefaultValues() throws {
    let database = try DatabaseQueue()
    try database.write { db in
      try db.execute(sql: #"CREATE TABLE "ticks" ("id" INTEGER PRIMARY KEY)"#)
      try assertQuery(
        Tick.insert { Tick.Draft() }.returning(\.id), in: db,
        sql: #"INSERT INTO "ticks" DEFAULT VALUES RETURNING "id""#, rows: "1")
      try assertQuery(
        Tick.insert().returning(\.id), in: db,
        sql: #"INSERT INTO "ticks" DEFAULT VALUES RETURNING "id""#, rows: "2")
    }
  }

  @Test func anInsertOfNoRowsDoesNothing() throws {
    let none: [Tag] = []
    let database = try conformanceDatabase()
    let insert = Tag.insert { none }
    #expect(insert.query.sql == "")
    try database.write { db in
      try insert.execute(db)
      #expect(try insert.returning(\.id).fetchAll(db).isEmpty)
      #expect(try Tag.count().fetchOne(db) == 3)
    }
  }

  @Test func aTableInAnAttachedSchema() throws {
    let database = try DatabaseQueue()
    try database.write { db in
      try db.execute(sql: "ATTACH DATABASE ':memory:' AS archive")
      try db.execute(
        sql:
          #"CREATE TABLE "archive"."archivedNotes" ("id" INTEGER PRIMARY KEY, "body" TEXT NOT NULL)"#
      )
      try assertQuery(
        ArchivedNote.insert { ArchivedNote(id: 1, body: "old") }.returning(\.body), in: db,
        sql:
          #"INSERT INTO "archive"."archivedNotes" ("id", "body") VALUES (?, ?) RETURNING "body""#,
        rows: "old")
      try assertQuery(
        ArchivedNote.where { $0.id == 1 }.select(\.body), in: db,
        sql:
          #"SELECT "archivedNotes"."body" FROM "archive"."archivedNotes" WHERE ("archivedNotes"."id" = ?)"#,
        rows: "old")
      try ArchivedNote.find(1).update { $0.body = "older" }.execute(db)
      #expect(try ArchivedNote.all.fetchAll(db) == [ArchivedNote(id: 1, body: "older")])
      try ArchivedNote.find(1).delete().execute(db)
      #expect(try ArchivedNote.count().fetchOne(db) == 0)
    }
  }
}

// As the reference's "Common table expressions" article declares them: a selection is a
// table.
@Selection
struct HighPriorityRemindersList {
  let id: Int
}

@Selection
struct Counts {
  let value: Int
}

/// A selection holding a whole table row, as a common table expression's rows.
@Selection
struct ListWithCount {
  let list: RemindersList
  let reminderCount: Int
}

/// The reference's smallest table: a key and nothing else.
@Table
struct Tick {
  let id: Int
}

@Table(schema: "archive")
struct ArchivedNote: Equatable {
  let id: Int
  var body = ""
}
