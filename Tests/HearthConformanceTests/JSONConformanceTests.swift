import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// JSON, as the reference's "JSON" article writes it: aggregating values and whole rows into
// arrays, rows as objects, and the length of an array.
@Selection
struct ListWithReminders {
  let remindersList: RemindersList
  @Column(as: [Reminder].JSONRepresentation.self)
  let reminders: [Reminder]
}

@Suite struct JSONConformanceTests {
  @Test func groupArrayOfValues() throws {
    try assertConformance(
      Reminder.where { $0.remindersListID.eq(2) }.select { $0.title.jsonGroupArray() },
      sql:
        #"SELECT json_group_array("reminders"."title") FROM "reminders" WHERE ("reminders"."remindersListID" = ?)"#,
      rows: #"["Send report","Call accountant"]"#)
    let titles = try conformanceDatabase().read { db in
      try Reminder.select { $0.title.jsonGroupArray() }.fetchOne(db)
    }
    #expect(titles?.count == 6)
  }

  @Test func aRowAsAnObject() throws {
    try assertConformance(
      Reminder.find(4).select { $0.jsonObject() },
      sql:
        #"SELECT json_object('id', "reminders"."id", 'assignedUserID', "reminders"."assignedUserID", 'dueDate', "reminders"."dueDate", 'isCompleted', json(CASE "reminders"."isCompleted" WHEN 0 THEN 'false' WHEN 1 THEN 'true' END), 'isFlagged', json(CASE "reminders"."isFlagged" WHEN 0 THEN 'false' WHEN 1 THEN 'true' END), 'notes', "reminders"."notes", 'priority', "reminders"."priority", 'remindersListID', "reminders"."remindersListID", 'title', "reminders"."title", 'updatedAt', "reminders"."updatedAt") FROM "reminders" WHERE ("reminders"."id" = ?)"#,
      rows:
        #"{"id":4,"assignedUserID":null,"dueDate":"2023-05-08 22:13:20.000","isCompleted":true,"isFlagged":false,"notes":"","priority":null,"remindersListID":1,"title":"Take a walk","updatedAt":"2023-11-14 22:13:20.000"}"#
    )
    let decoded = try conformanceDatabase().read { db in
      try (
        Reminder.find(4).select { $0.jsonObject() }.fetchOne(db),
        Reminder.find(4).fetchOne(db)
      )
    }
    #expect(decoded.0 == decoded.1)
  }

  @Test func aOneToManyAssociationInOneQuery() throws {
    let database = try conformanceDatabase()
    try database.write { db in
      try RemindersList.insert { RemindersList.Draft(title: "Empty") }.execute(db)
    }
    let rows = try database.read { db in
      try RemindersList
        .group(by: \.id)
        .leftJoin(Reminder.all) { $0.id.eq($1.remindersListID) }
        .select { ListWithReminders.Columns(remindersList: $0, reminders: $1.jsonGroupArray()) }
        .fetchAll(db)
    }
    #expect(rows.map(\.remindersList.title) == ["Personal", "Work", "Empty"])
    // An aggregate meets its rows in no promised order.
    #expect(rows.map { $0.reminders.map(\.id).sorted() } == [[1, 2, 3, 4], [5, 6], []])
    let walk = try database.read { db in try Reminder.find(4).fetchOne(db) }
    #expect(rows[0].reminders.first { $0.id == 4 } == walk)
  }

  @Test func lengthOfAJSONArray() throws {
    try assertConformance(
      RemindersList.select { list in
        Reminder.where { $0.remindersListID == list.id }.select { $0.id.jsonGroupArray() }
          .jsonArrayLength()
      },
      sql:
        #"SELECT json_array_length((SELECT json_group_array("reminders"."id") FROM "reminders" WHERE ("reminders"."remindersListID" = "remindersLists"."id"))) FROM "remindersLists""#,
      rows: "4\n2")
  }

  @Test func datesInsideJSONColumnsRoundTrip() throws {
    let database = try DatabaseQueue()
    try database.write { db in
      try db.execute(
        sql: #"CREATE TABLE "schedules" ("id" INTEGER PRIMARY KEY, "dates" TEXT NOT NULL)"#)
      let dates = [Date(timeIntervalSince1970: 1_700_000_000.5), Date(timeIntervalSince1970: 0)]
      try Schedule.insert { Schedule(id: 1, dates: dates) }.execute(db)
      try assertQuery(
        Schedule.select { $0.dates.jsonArrayLength() }, in: db,
        sql: #"SELECT json_array_length("schedules"."dates") FROM "schedules""#, rows: "2")
      #expect(
        try String.fetchOne(db, sql: "SELECT dates FROM schedules")
          == #"["2023-11-14 22:13:20.500","1970-01-01 00:00:00.000"]"#)
      #expect(try Schedule.all.fetchOne(db)?.dates == dates)
      // A date written as Foundation's default number still reads.
      try db.execute(sql: "UPDATE schedules SET dates = '[0]'")
      #expect(try Schedule.all.fetchOne(db)?.dates == [Date(timeIntervalSinceReferenceDate: 0)])
    }
  }
}

@Table
struct Schedule {
  let id: Int
  @Column(as: [Date].JSONRepresentation.self)
  var dates: [Date]
}
