import Foundation
import HearthQuery

@Table
struct RemindersList: Hashable, Identifiable {
  let id: Int
  var color = 0x4a99ef
  var title = ""
  var position = 0
}

@Table
struct Reminder: Hashable, Identifiable {
  let id: Int
  var dueDate: Date?
  var isFlagged = false
  var notes = ""
  var priority: Priority?
  var remindersListID: RemindersList.ID
  var status: Status = .incomplete
  var title = ""

  enum Priority: Int, QueryBindable {
    case low = 1
    case medium
    case high
  }

  enum Status: Int, QueryBindable {
    case incomplete = 0
    case completed = 1
    case completing = 2
  }

  var isCompleted: Bool { status != .incomplete }
}

extension Reminder.TableColumns {
  var isCompleted: some QueryExpression<Bool> {
    status.neq(Reminder.Status.incomplete)
  }
  var isScheduled: some QueryExpression<Bool> {
    !isCompleted && dueDate.isNot(nil)
  }
}

extension Reminder {
  static let incomplete = Self.where { !$0.isCompleted }
}

@Table("remindersTags")
struct ReminderTag: Hashable {
  let reminderID: Reminder.ID
  let tagID: Tag.ID
}

@Table
struct Tag: Hashable, Identifiable {
  @Column(primaryKey: true)
  var title: String
  var id: String { title }
}

func makeRemindersDatabase() throws -> DatabaseQueue {
  let database = try DatabaseQueue()
  try database.write { db in
    try #sql(
      """
      CREATE TABLE "remindersLists" (
        "id" INTEGER PRIMARY KEY AUTOINCREMENT,
        "color" INTEGER NOT NULL DEFAULT 4889071,
        "title" TEXT NOT NULL DEFAULT '',
        "position" INTEGER NOT NULL DEFAULT 0
      ) STRICT
      """
    ).execute(db)
    try #sql(
      """
      CREATE TABLE "reminders" (
        "id" INTEGER PRIMARY KEY AUTOINCREMENT,
        "dueDate" TEXT,
        "isFlagged" INTEGER NOT NULL DEFAULT 0,
        "notes" TEXT NOT NULL DEFAULT '',
        "priority" INTEGER,
        "remindersListID" INTEGER NOT NULL REFERENCES "remindersLists"("id") ON DELETE CASCADE,
        "status" INTEGER NOT NULL DEFAULT 0,
        "title" TEXT NOT NULL DEFAULT ''
      ) STRICT
      """
    ).execute(db)
    try #sql(
      """
      CREATE TABLE "tags" ("title" TEXT PRIMARY KEY NOT NULL COLLATE NOCASE) STRICT
      """
    ).execute(db)
    try #sql(
      """
      CREATE TABLE "remindersTags" (
        "reminderID" INTEGER NOT NULL REFERENCES "reminders"("id") ON DELETE CASCADE,
        "tagID" TEXT NOT NULL REFERENCES "tags"("title") ON DELETE CASCADE ON UPDATE CASCADE
      ) STRICT
      """
    ).execute(db)
    try db.seed {
      RemindersList(id: 1, title: "Personal", position: 0)
      RemindersList(id: 2, color: 0xef7e4a, title: "Work", position: 1)
      Reminder(
        id: 1, dueDate: Date(timeIntervalSince1970: 1_700_000_000), notes: "Milk, eggs",
        remindersListID: 1, title: "Groceries")
      Reminder(id: 2, isFlagged: true, priority: .high, remindersListID: 1, title: "Haircut")
      Reminder(id: 3, remindersListID: 2, status: .completed, title: "Send report")
      Tag(title: "car")
      Tag(title: "kids")
      ReminderTag(reminderID: 1, tagID: "kids")
    }
  }
  return database
}
