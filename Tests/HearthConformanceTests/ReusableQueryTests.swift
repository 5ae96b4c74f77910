import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

extension RemindersList {
  static let withReminderCount = group(by: \.id)
    .join(Reminder.all) { $0.id.eq($1.remindersListID) }
    .select { $1.id.count() }
}

extension Reminder {
  static let flagged = Self.where(\.isFlagged)
  static let titles = Self.order(by: \.title).select(\.title)
}

// A table's static helpers reach on from any query of the table, and from its Draft.
@Suite struct ReusableQueryTests {
  let database: DatabaseQueue

  init() throws {
    database = try conformanceDatabase()
  }

  @Test func aWhereHelperAddsItsConditions() throws {
    try database.read { db in
      try assertQuery(
        Reminder.where { $0.remindersListID.eq(1) }.incomplete.select(\.id), in: db,
        sql:
          #"SELECT "reminders"."id" FROM "reminders" WHERE (("reminders"."remindersListID" = ?)) AND (NOT ("reminders"."isCompleted"))"#,
        rows: "1\n2\n3")
      try assertQuery(Reminder.select(\.id).incomplete.flagged, in: db, rows: "2")
      try assertQuery(
        Reminder.where { $0.id.gt(2) }.titles, in: db,
        rows: "Call accountant\nDoctor appointment\nSend report\nTake a walk")
    }
  }

  @Test func aSelectHelperAddsItsColumnsJoinsAndGroups() throws {
    try database.read { db in
      try assertQuery(
        RemindersList.order(by: \.id).select(\.title).withReminderCount, in: db,
        sql:
          #"SELECT "remindersLists"."title", count("reminders"."id") FROM "remindersLists" JOIN "reminders" ON ("remindersLists"."id" = "reminders"."remindersListID") GROUP BY "remindersLists"."id" ORDER BY "remindersLists"."id""#,
        rows: "Personal | 4\nWork | 2")
      let rows = try RemindersList.limit(1).select(\.title).withReminderCount.fetchAll(db)
      #expect(rows.map { "\($0.0) \($0.1)" } == ["Personal 4"])
      // After a select of whole rows, the helper's columns follow them.
      let lists = try RemindersList.order(by: \.id).withReminderCount.fetchAll(db)
      #expect(lists.map { "\($0.0.title) \($0.1)" } == ["Personal 4", "Work 2"])
    }
  }

  @Test func aDraftReachesItsTablesHelpersAndColumns() throws {
    try database.read { db in
      try assertQuery(Reminder.Draft.incomplete.select(\.id), in: db, rows: "1\n2\n3\n5")
      try assertQuery(Reminder.Draft.select(\.id).incomplete.flagged, in: db, rows: "2")
      try assertQuery(
        Reminder.Draft.where { $0.id.lte(3) }.select(\.isHighPriority), in: db,
        rows: "NULL\nNULL\n1")
    }
  }

  @Test func asSelectAndSelectStar() throws {
    try database.read { db in
      let titles = try Reminder.incomplete.asSelect().select(\.title).limit(1).fetchAll(db)
      #expect(titles == ["Groceries"])
      let rows = try Reminder.join(RemindersList.all) { $0.remindersListID.eq($1.id) }
        .select { ($0.id, $1.title) }.selectStar().where { reminder, _ in reminder.id.eq(5) }
        .fetchAll(db)
      #expect(rows.map { "\($0.0.title) \($0.1.title)" } == ["Send report Work"])
    }
  }
}
