import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// A row read under an alias is a row of its table to the program: a select of an aliased
// table gives the table's rows, and a `@Selection` field may be stored through an alias.
// A `@Selection` field may hold an optional row: an outer join's optional side.

enum ListAlias: AliasName {}

@Selection
struct AliasedListCount: Equatable {
  @Column(as: TableAlias<RemindersList, ListAlias>.self)
  let remindersList: RemindersList
  let remindersCount: Int
}

enum Assignee: AliasName {}

@Selection
struct ReminderWithAssignee: Equatable {
  let reminder: Reminder
  let assignee: User?
}

@Selection
struct ReminderWithAliasedAssignee: Equatable {
  let reminder: Reminder
  @Column(as: TableAlias<User, Assignee>?.self)
  let assignee: User?
}

@Suite struct AliasFormsTests {
  @Test func aSelectionFieldHoldsAnOptionalRow() throws {
    try conformanceDatabase().read { db in
      let rows = try Reminder.leftJoin(User.all) { $0.assignedUserID.eq($1.id) }
        .order { reminder, _ in reminder.id }
        .select { ReminderWithAssignee.Columns(reminder: $0, assignee: $1) }
        .fetchAll(db)
      #expect(rows.map(\.assignee?.name) == ["Blob", nil, nil, nil, "Blob Jr", nil])
      #expect(rows.map(\.reminder.id) == [1, 2, 3, 4, 5, 6])
      // Left out, the row is nil.
      let unassigned = try Reminder.order(by: \.id).limit(2)
        .select { ReminderWithAssignee.Columns(reminder: $0) }.fetchAll(db)
      #expect(unassigned.map(\.assignee) == [nil, nil])
      let aliased = try Reminder.leftJoin(User.as(Assignee.self).all) {
        $0.assignedUserID.eq($1.id)
      }
      .order { reminder, _ in reminder.id }
      .select { ReminderWithAliasedAssignee.Columns(reminder: $0, assignee: $1) }
      .fetchAll(db)
      #expect(aliased.map(\.assignee?.name) == ["Blob", nil, nil, nil, "Blob Jr", nil])
    }
  }

  @Test func anAliasedTableUnderAnotherAlias() throws {
    try conformanceDatabase().read { db in
      try assertQuery(
        RemindersList.as(ListAlias.self).find(2).as(Assignee.self), in: db,
        sql:
          #"SELECT "assignees"."id", "assignees"."color", "assignees"."title", "assignees"."position" FROM "remindersLists" AS "assignees" WHERE ("assignees"."id" = ?)"#,
        rows: "2 | 15695434 | Work | 1")
    }
  }

  @Test func aSelectOfAnAliasedTableGivesItsRows() throws {
    try conformanceDatabase().read { db in
      let lists = try RemindersList.as(ListAlias.self).order(by: \.id).fetchAll(db)
      #expect(lists.map(\.title) == ["Personal", "Work"])
      #expect(lists.map(\.queryOutput) == (try RemindersList.order(by: \.id).fetchAll(db)))
    }
  }

  @Test func aSelectionFieldStoredThroughAnAlias() throws {
    try conformanceDatabase().read { db in
      let query = RemindersList.as(ListAlias.self).group(by: \.id)
        .join(Reminder.all) { $0.id.eq($1.remindersListID) }
        .select { AliasedListCount.Columns(remindersList: $0, remindersCount: $1.id.count()) }
      try assertQuery(
        query, in: db,
        sql:
          #"SELECT "listAliases"."id", "listAliases"."color", "listAliases"."title", "listAliases"."position", count("reminders"."id") FROM "remindersLists" AS "listAliases" JOIN "reminders" ON ("listAliases"."id" = "reminders"."remindersListID") GROUP BY "listAliases"."id""#,
        rows: "1 | 4889071 | Personal | 0 | 4\n2 | 15695434 | Work | 1 | 2")
      #expect(try query.fetchAll(db).map(\.remindersList.title) == ["Personal", "Work"])
    }
  }
}
