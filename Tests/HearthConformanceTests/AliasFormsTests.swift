import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// A row read under an alias is a row of its table to the program: a select of an aliased
// table gives the table's rows, and a `@Selection` field may be stored through an alias.

enum ListAlias: AliasName {}

@Selection
struct AliasedListCount: Equatable {
  @Column(as: TableAlias<RemindersList, ListAlias>.self)
  let remindersList: RemindersList
  let remindersCount: Int
}

@Suite struct AliasFormsTests {
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
