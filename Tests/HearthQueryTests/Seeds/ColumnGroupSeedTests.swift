import Foundation
import HearthQuery
import Testing

// The snippets of ../shared/seeds that use only tables, enums, representations, selects,
// expressions, inserts, updates, deletes and #sql: each written as the seed writes it (the
// import aside), run against a real database, its result checked.

// MARK: - 003: column groups

enum ColumnGroupSeed {
  @Selection
  struct Timestamps {
    let createdAt: Date
    let updatedAt: Date?
  }

  @Table
  nonisolated struct RemindersList: Identifiable {
    let id: UUID
    var title = ""
    let timestamps: Timestamps  // Embedded column group
  }

  @Table
  struct Reminder: Identifiable {
    let id: Int
    var remindersListID: RemindersList.ID
    var title = ""
  }

  @Selection
  struct Row {
    let reminderTitle: String
    let timestamps: Timestamps
  }
}

extension ColumnGroupSeed {
  @Suite struct Tests {
    @Test func flattensQueriesAndNests() throws {
      let database = try DatabaseQueue()
      let listID = UUID()
      let created = Date(timeIntervalSince1970: 1_700_000_000)
      try database.write { db in
        try #sql(
          """
          CREATE TABLE "remindersLists" (
              "id" TEXT PRIMARY KEY NOT NULL,
              "title" TEXT NOT NULL DEFAULT '',
              "createdAt" TEXT NOT NULL,
              "updatedAt" TEXT
          ) STRICT;
          CREATE TABLE "reminders" (
            "id" INTEGER PRIMARY KEY, "remindersListID" TEXT NOT NULL, "title" TEXT NOT NULL);
          """
        )
        .execute(db)
        try RemindersList.insert {
          RemindersList(
            id: listID, title: "Home", timestamps: Timestamps(createdAt: created, updatedAt: nil))
        }
        .execute(db)
        try Reminder.insert { Reminder(id: 1, remindersListID: listID, title: "Dishes") }
          .execute(db)
      }
      #expect(
        RemindersList.TableColumns.allColumns.map(\.name) == [
          "id", "title", "createdAt", "updatedAt",
        ])
      #expect(RemindersList._columnWidth == 4)

      let cutoffDate = created.addingTimeInterval(60)
      let lists = try database.read { db in
        try RemindersList.where { $0.timestamps.createdAt <= cutoffDate }.fetchAll(db)
      }
      #expect(lists.map(\.title) == ["Home"])
      #expect(lists.first?.timestamps.createdAt == created)
      #expect(lists.first?.timestamps.updatedAt == nil)
      expectSQL(
        RemindersList.where { $0.timestamps.updatedAt.is(nil) },
        #"SELECT "remindersLists"."id", "remindersLists"."title", "remindersLists"."createdAt", "remindersLists"."updatedAt" FROM "remindersLists" WHERE ("remindersLists"."updatedAt" IS ?)"#
      )

      let rows = try database.read { db in
        try Reminder.join(RemindersList.all) { $0.remindersListID.eq($1.id) }
          .select { Row.Columns(reminderTitle: $0.title, timestamps: $1.timestamps) }
          .fetchAll(db)
      }
      #expect(rows.map(\.reminderTitle) == ["Dishes"])
      #expect(rows.first?.timestamps.createdAt == created)
    }
  }
}
