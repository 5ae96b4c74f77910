import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// Ordering, limits, grouping, subqueries, `Case`, compound selects, deletes and primary
// keys, as the reference's articles write them.
@Suite struct OrderConformanceTests {
  @Test func orderings() throws {
    try assertConformance(
      Reminder.order(by: \.title).select(\.id),
      sql: #"SELECT "reminders"."id" FROM "reminders" ORDER BY "reminders"."title""#,
      rows: "6\n3\n1\n2\n5\n4")
    try assertConformance(
      Reminder.order { $0.title.desc() }.select(\.id).limit(2),
      sql: #"SELECT "reminders"."id" FROM "reminders" ORDER BY "reminders"."title" DESC LIMIT ?"#,
      rows: "4\n5")
    try assertConformance(
      Reminder.order { ($0.remindersListID.desc(), $0.priority.asc(nulls: .last)) }.select(\.id),
      sql:
        #"SELECT "reminders"."id" FROM "reminders" ORDER BY "reminders"."remindersListID" DESC, "reminders"."priority" ASC NULLS LAST"#,
      rows: "5\n6\n3\n1\n2\n4")
    try assertConformance(
      Reminder.order(by: \.isCompleted, \.id).select(\.id),
      sql:
        #"SELECT "reminders"."id" FROM "reminders" ORDER BY "reminders"."isCompleted", "reminders"."id""#,
      rows: "1\n2\n3\n5\n4\n6")
    for byTitle in [true, false] {
      let query = Reminder.where(\.isCompleted).order {
        if byTitle { $0.title } else { $0.id.desc() }
      }.select(\.id)
      try assertConformance(
        query,
        sql: byTitle
          ? #"SELECT "reminders"."id" FROM "reminders" WHERE "reminders"."isCompleted" ORDER BY "reminders"."title""#
          : #"SELECT "reminders"."id" FROM "reminders" WHERE "reminders"."isCompleted" ORDER BY "reminders"."id" DESC"#,
        rows: "6\n4")
    }
  }

  @Test func limits() throws {
    // Without an order, SQLite reads the title index: the first title.
    try assertConformance(
      Reminder.limit(1).select(\.title),
      sql: #"SELECT "reminders"."title" FROM "reminders" LIMIT ?"#, rows: "Call accountant")
    try assertConformance(
      Reminder.order(by: \.id).limit(2, offset: 1).select(\.id),
      sql:
        #"SELECT "reminders"."id" FROM "reminders" ORDER BY "reminders"."id" LIMIT ? OFFSET ?"#,
      rows: "2\n3")
    try assertConformance(
      Reminder.order(by: \.id).offset(4).select(\.id),
      sql:
        #"SELECT "reminders"."id" FROM "reminders" ORDER BY "reminders"."id" LIMIT ? OFFSET ?"#,
      rows: "5\n6")
    try assertConformance(
      Reminder.where(\.isCompleted).limit(1).select(\.title),
      sql: #"SELECT "reminders"."title" FROM "reminders" WHERE "reminders"."isCompleted" LIMIT ?"#,
      rows: "Take a walk")
    let page = try conformanceDatabase().read { db in
      try Reminder.order(by: \.id).limit(2, offset: 2).fetchAll(db).map(\.id)
    }
    #expect(page == [3, 4])
  }
}

@Suite struct GroupConformanceTests {
  @Test func groupsAndHaving() throws {
    try assertConformance(
      Reminder.group(by: \.remindersListID).select { ($0.remindersListID, $0.count()) },
      sql:
        #"SELECT "reminders"."remindersListID", count(*) FROM "reminders" GROUP BY "reminders"."remindersListID""#,
      rows: "1 | 4\n2 | 2")
    try assertConformance(
      Reminder.group(by: \.remindersListID).having { $0.count() > 2 }.select(\.remindersListID),
      sql:
        #"SELECT "reminders"."remindersListID" FROM "reminders" GROUP BY "reminders"."remindersListID" HAVING (count(*) > ?)"#,
      rows: "1")
    try assertConformance(
      Reminder.group(by: \.remindersListID, \.isCompleted).select {
        ($0.remindersListID, $0.isCompleted, $0.count())
      },
      sql:
        #"SELECT "reminders"."remindersListID", "reminders"."isCompleted", count(*) FROM "reminders" GROUP BY "reminders"."remindersListID", "reminders"."isCompleted""#,
      rows: "1 | 0 | 3\n1 | 1 | 1\n2 | 0 | 1\n2 | 1 | 1")
    try assertConformance(
      RemindersList.group(by: \.id).leftJoin(Reminder.all) { $0.id.eq($1.remindersListID) }
        .having { $1.count(filter: $1.isCompleted.eq(true)) >= 1 }
        .select { ($0.title, $1.count()) },
      sql:
        #"SELECT "remindersLists"."title", count("reminders"."id") FROM "remindersLists" LEFT JOIN "reminders" ON ("remindersLists"."id" = "reminders"."remindersListID") GROUP BY "remindersLists"."id" HAVING (count("reminders"."id") FILTER (WHERE ("reminders"."isCompleted" = ?)) >= ?)"#,
      rows: "Personal | 4\nWork | 2")
    let showAll = false
    try assertConformance(
      Reminder.group(by: \.remindersListID).having { if !showAll { $0.count() < 3 } }
        .select(\.remindersListID),
      sql:
        #"SELECT "reminders"."remindersListID" FROM "reminders" GROUP BY "reminders"."remindersListID" HAVING (count(*) < ?)"#,
      rows: "2")
  }
}

@Suite struct SubqueryConformanceTests {
  @Test func subqueriesInEveryPosition() throws {
    try assertConformance(
      Reminder.where {
        $0.remindersListID.in(RemindersList.where { $0.title == "Work" }.select(\.id))
      }
      .select(\.id),
      sql:
        #"SELECT "reminders"."id" FROM "reminders" WHERE ("reminders"."remindersListID" IN (SELECT "remindersLists"."id" FROM "remindersLists" WHERE ("remindersLists"."title" = ?)))"#,
      rows: "5\n6")
    try assertConformance(
      RemindersList.select { list in
        (list.title, Reminder.where { $0.remindersListID == list.id }.count())
      },
      sql:
        #"SELECT "remindersLists"."title", (SELECT count(*) FROM "reminders" WHERE ("reminders"."remindersListID" = "remindersLists"."id")) FROM "remindersLists""#,
      rows: "Personal | 4\nWork | 2")
    try assertConformance(
      Reminder.where { $0.priority == Reminder.select { $0.priority.max() } }.select(\.title),
      sql:
        #"SELECT "reminders"."title" FROM "reminders" WHERE ("reminders"."priority" = (SELECT max("reminders"."priority") FROM "reminders"))"#,
      rows: "Doctor appointment")
    try assertConformance(
      RemindersList.update {
        $0.position = Reminder.where { $0.remindersListID == 1 }.count()
      }.returning(\.position),
      sql:
        #"UPDATE "remindersLists" SET "position" = (SELECT count(*) FROM "reminders" WHERE ("reminders"."remindersListID" = ?)) RETURNING "position""#,
      rows: "4\n4")
    try assertConformance(
      Tag.insert {
        $0.title
      } select: {
        User.select { $0.name.lower() }
      }.returning(\.title),
      sql:
        #"INSERT INTO "tags" ("title") SELECT lower("users"."name") FROM "users" RETURNING "title""#,
      rows: "blob\nblob jr\nblob sr")
  }
}

@Suite struct CaseConformanceTests {
  @Test func caseExpressions() throws {
    try assertConformance(
      Reminder.order(by: \.id).select {
        Case($0.priority).when(3, then: "high").when(2, then: "medium").else("low")
      },
      sql:
        #"SELECT (CASE "reminders"."priority" WHEN ? THEN ? WHEN ? THEN ? ELSE ? END) FROM "reminders" ORDER BY "reminders"."id""#,
      rows: "low\nlow\nhigh\nlow\nlow\nmedium")
    try assertConformance(
      Reminder.order(by: \.id).select { Case().when($0.isCompleted, then: "done") },
      sql:
        #"SELECT (CASE WHEN "reminders"."isCompleted" THEN ? END) FROM "reminders" ORDER BY "reminders"."id""#,
      rows: "NULL\nNULL\nNULL\ndone\nNULL\ndone")
    try assertConformance(
      Reminder.order { Case().when($0.isFlagged, then: 0).else(1) }.select(\.id).limit(1),
      sql:
        #"SELECT "reminders"."id" FROM "reminders" ORDER BY (CASE WHEN "reminders"."isFlagged" THEN ? ELSE ? END) LIMIT ?"#,
      rows: "2")
    try assertConformance(
      Reminder.where { Case($0.remindersListID).when(1, then: $0.isFlagged).else($0.isCompleted) }
        .select(\.id),
      sql:
        #"SELECT "reminders"."id" FROM "reminders" WHERE (CASE "reminders"."remindersListID" WHEN ? THEN "reminders"."isFlagged" ELSE "reminders"."isCompleted" END)"#,
      rows: "2\n6")
    try assertConformance(
      Reminder.where { $0.id.in([1, 2]) }.update {
        $0.title = Case($0.id).when(1, then: "One").else("Two")
      }.returning(\.title),
      sql:
        #"UPDATE "reminders" SET "title" = (CASE "reminders"."id" WHEN ? THEN ? ELSE ? END) WHERE ("reminders"."id" IN (?, ?)) RETURNING "title""#,
      rows: "One\nTwo")
  }
}

@Suite struct CompoundConformanceTests {
  @Test func compoundSelects() throws {
    try assertConformance(
      Tag.select(\.title).union(User.select(\.name)).order(byColumn: 1),
      sql:
        #"SELECT "tags"."title" FROM "tags" UNION SELECT "users"."name" FROM "users" ORDER BY 1"#,
      rows: "Blob\nBlob Jr\nBlob Sr\ncar\nkids\nsomeday")
    try assertConformance(
      Reminder.where { $0.id < 3 }.select(\.remindersListID)
        .union(all: true, Reminder.where { $0.id > 4 }.select(\.remindersListID)),
      sql:
        #"SELECT "reminders"."remindersListID" FROM "reminders" WHERE ("reminders"."id" < ?) UNION ALL SELECT "reminders"."remindersListID" FROM "reminders" WHERE ("reminders"."id" > ?)"#,
      rows: "1\n1\n2\n2")
    try assertConformance(
      Reminder.select(\.remindersListID).intersect(RemindersList.select(\.id)),
      sql:
        #"SELECT "reminders"."remindersListID" FROM "reminders" INTERSECT SELECT "remindersLists"."id" FROM "remindersLists""#,
      rows: "1\n2")
    try assertConformance(
      RemindersList.select(\.id).except(Reminder.where(\.isFlagged).select(\.remindersListID)),
      sql:
        #"SELECT "remindersLists"."id" FROM "remindersLists" EXCEPT SELECT "reminders"."remindersListID" FROM "reminders" WHERE "reminders"."isFlagged""#,
      rows: "2")
    try assertConformance(
      Values(0).union(Reminder.where { $0.priority.isNot(nil) }.select(\.id)).order(byColumn: 1),
      sql:
        #"SELECT ? UNION SELECT "reminders"."id" FROM "reminders" WHERE ("reminders"."priority" IS NOT ?) ORDER BY 1"#,
      rows: "0\n3\n5\n6")
  }
}

@Suite struct DeleteConformanceTests {
  @Test func deletes() throws {
    try assertConformance(
      Reminder.delete().returning(\.id),
      sql: #"DELETE FROM "reminders" RETURNING "id""#,
      rows: "1\n2\n3\n4\n5\n6")
    try assertConformance(
      Reminder.where(\.isCompleted).delete().returning(\.title),
      sql:
        #"DELETE FROM "reminders" WHERE "reminders"."isCompleted" RETURNING "title""#,
      rows: "Take a walk\nCall accountant")
    try assertConformance(
      Reminder.delete().where { $0.id == 2 }.returning(\.title),
      sql: #"DELETE FROM "reminders" WHERE ("reminders"."id" = ?) RETURNING "title""#,
      rows: "Haircut")
    let database = try conformanceDatabase()
    try database.write { db in
      let reminder = try #require(try Reminder.find(3).fetchOne(db))
      try assertQuery(
        Reminder.delete(reminder), in: db,
        sql: #"DELETE FROM "reminders" WHERE ("reminders"."id" = ?)"#, rows: "")
      #expect(try Reminder.find(3).fetchCount(db) == 0)
      try assertQuery(
        Note.where { $0.id.in([1, 2]) }.delete().returning(\.id), in: db,
        sql:
          #"DELETE FROM "notes" WHERE (NOT ("notes"."isDeleted")) AND (("notes"."id" IN (?, ?))) RETURNING "id""#,
        rows: "1")
    }
  }
}

@Suite struct PrimaryKeyConformanceTests {
  @Test func primaryKeyedStatements() throws {
    try assertConformance(
      Reminder.find(2).select(\.title),
      sql: #"SELECT "reminders"."title" FROM "reminders" WHERE ("reminders"."id" = ?)"#,
      rows: "Haircut")
    try assertConformance(
      Reminder.find([1, 5]).select(\.title),
      sql: #"SELECT "reminders"."title" FROM "reminders" WHERE ("reminders"."id" IN (?, ?))"#,
      rows: "Groceries\nSend report")
    let database = try conformanceDatabase()
    try database.write { db in
      var reminder = try #require(try Reminder.find(1).fetchOne(db))
      reminder.isCompleted = true
      try Reminder.update(reminder).execute(db)
      #expect(try Reminder.find(1).select(\.isCompleted).fetchOne(db) == true)
      try Reminder.upsert { Reminder.Draft(id: 1, remindersListID: 2, title: "Moved") }.execute(db)
      #expect(
        try Reminder.find(1).select { ($0.title, $0.remindersListID) }.fetchOne(db)?.0 == "Moved")
      let draft = Reminder.Draft(reminder)
      #expect(draft.id == 1)
      #expect(draft.title == reminder.title)
      let id = try Reminder.insert { Reminder.Draft(remindersListID: 1, title: "New") }
        .returning(\.id).fetchOne(db)
      #expect(id == 7)
    }
  }
}
