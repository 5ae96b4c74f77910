import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// The models the reference's documentation writes its examples against, declared the way
// its documentation declares them (no annotations where it has none), over a small data set
// of our own. Every test in this target runs its statement on this database.

@Table
struct RemindersList: Codable, Equatable, Identifiable {
  let id: Int
  var color = 0x4a99ef
  var title = ""
  var position = 0
}

@Table
struct Reminder: Codable, Equatable, Identifiable {
  static let incomplete = Self.where { !$0.isCompleted }

  let id: Int
  var assignedUserID: User.ID?
  var dueDate: Date?
  var isCompleted = false
  var isFlagged = false
  var notes = ""
  var priority: Int?
  var remindersListID: Int
  var title = ""
  var updatedAt = Date(timeIntervalSince1970: 1_700_000_000)
}

extension Reminder.TableColumns {
  var isHighPriority: some QueryExpression<Bool> { priority.eq(3) }
}

@Table
struct User: Equatable, Identifiable {
  let id: Int
  var name = ""
  var referrerID: Int?
}

@Table
struct Tag: Equatable, Identifiable {
  let id: Int
  var title = ""
}

@Table("remindersTags")
struct ReminderTag: Equatable {
  let reminderID: Int
  let tagID: Int
}

/// A table with a soft delete, and a default scope that hides deleted rows.
@Table
struct Note: Equatable, Identifiable {
  static let all = Self.where { !$0.isDeleted }

  let id: Int
  var body = ""
  var isDeleted = false
}

/// The reference's documentation data set, in small: two lists, six reminders, three
/// users (one referred by another), tags.
func conformanceDatabase() throws -> DatabaseQueue {
  let database = try DatabaseQueue()
  try database.write { db in
    try db.execute(
      sql: """
        CREATE TABLE "remindersLists" (
          "id" INTEGER PRIMARY KEY AUTOINCREMENT,
          "color" INTEGER NOT NULL DEFAULT 4889071,
          "title" TEXT NOT NULL DEFAULT '',
          "position" INTEGER NOT NULL DEFAULT 0
        ) STRICT;
        CREATE TABLE "users" (
          "id" INTEGER PRIMARY KEY AUTOINCREMENT,
          "name" TEXT NOT NULL DEFAULT '',
          "referrerID" INTEGER REFERENCES "users"("id")
        ) STRICT;
        CREATE TABLE "reminders" (
          "id" INTEGER PRIMARY KEY AUTOINCREMENT,
          "assignedUserID" INTEGER REFERENCES "users"("id"),
          "dueDate" TEXT,
          "isCompleted" INTEGER NOT NULL DEFAULT 0,
          "isFlagged" INTEGER NOT NULL DEFAULT 0,
          "notes" TEXT NOT NULL DEFAULT '',
          "priority" INTEGER,
          "remindersListID" INTEGER NOT NULL REFERENCES "remindersLists"("id") ON DELETE CASCADE,
          "title" TEXT NOT NULL DEFAULT '',
          "updatedAt" TEXT NOT NULL DEFAULT '2023-11-14 22:13:20.000'
        ) STRICT;
        CREATE UNIQUE INDEX "reminders_title" ON "reminders"("title");
        CREATE TABLE "tags" (
          "id" INTEGER PRIMARY KEY AUTOINCREMENT,
          "title" TEXT NOT NULL DEFAULT ''
        ) STRICT;
        CREATE TABLE "remindersTags" (
          "reminderID" INTEGER NOT NULL REFERENCES "reminders"("id") ON DELETE CASCADE,
          "tagID" INTEGER NOT NULL REFERENCES "tags"("id") ON DELETE CASCADE
        ) STRICT;
        CREATE TABLE "notes" (
          "id" INTEGER PRIMARY KEY AUTOINCREMENT,
          "body" TEXT NOT NULL DEFAULT '',
          "isDeleted" INTEGER NOT NULL DEFAULT 0
        ) STRICT;
        """)
    let day = 86_400.0
    let start = Date(timeIntervalSince1970: 1_700_000_000)
    try db.seed {
      RemindersList(id: 1, title: "Personal")
      RemindersList(id: 2, color: 0xef7e4a, title: "Work", position: 1)
      User(id: 1, name: "Blob")
      User(id: 2, name: "Blob Jr", referrerID: 1)
      User(id: 3, name: "Blob Sr")
      Reminder(
        id: 1, assignedUserID: 1, dueDate: start, notes: "Milk, eggs", remindersListID: 1,
        title: "Groceries")
      Reminder(
        id: 2, dueDate: start.addingTimeInterval(-2 * day), isFlagged: true, remindersListID: 1,
        title: "Haircut")
      Reminder(
        id: 3, dueDate: start, notes: "Ask about diet", priority: 3, remindersListID: 1,
        title: "Doctor appointment")
      Reminder(
        id: 4, dueDate: start.addingTimeInterval(-190 * day), isCompleted: true,
        remindersListID: 1, title: "Take a walk")
      Reminder(id: 5, assignedUserID: 2, priority: 1, remindersListID: 2, title: "Send report")
      Reminder(
        id: 6, dueDate: start.addingTimeInterval(2 * day), isCompleted: true, priority: 2,
        remindersListID: 2, title: "Call accountant")
      Tag(id: 1, title: "car")
      Tag(id: 2, title: "kids")
      Tag(id: 3, title: "someday")
      ReminderTag(reminderID: 1, tagID: 2)
      ReminderTag(reminderID: 1, tagID: 3)
      ReminderTag(reminderID: 5, tagID: 1)
      Note(id: 1, body: "kept")
      Note(id: 2, body: "thrown away", isDeleted: true)
    }
  }
  return database
}

/// Asserts the SQL a statement renders and the rows it returns on the conformance database
/// (each test gets a fresh one, so a write's effect is checked by the rows it returns).
func assertConformance(
  _ statement: some Statement, sql: String, rows: String,
  sourceLocation: SourceLocation = #_sourceLocation
) throws {
  let database = try conformanceDatabase()
  try database.write { db in
    try assertQuery(statement, in: db, sql: sql, rows: rows, sourceLocation: sourceLocation)
  }
}
