import Foundation
import HearthQuery
import Testing

// The snippets of ../shared/seeds that use only tables, enums, representations, selects,
// expressions, inserts, updates, deletes and #sql: each written as the seed writes it (the
// import aside), run against a real database, its result checked.

// MARK: - 001: table models

enum TableModelsSeed {
  @Table
  nonisolated struct SyncUp: Hashable, Identifiable {
    let id: UUID
    var title = ""
    var seconds: Int = 60 * 5
    var theme: Theme = .bubblegum
  }

  enum Theme: String, QueryBindable {
    case bubblegum, buttercup, indigo, lavender
  }

  @Table
  nonisolated struct Meeting: Hashable, Identifiable {
    let id: UUID  // Automatically becomes primary key
    var date: Date
    var notes: String
  }

  @Table
  nonisolated struct Tag: Hashable, Identifiable {
    @Column(primaryKey: true)
    var title: String
    var id: String { title }
  }

  @Table
  nonisolated struct RemindersListAsset: Hashable, Identifiable {
    @Column(primaryKey: true)
    let remindersListID: RemindersList.ID
    var coverImage: Data?
    var id: RemindersList.ID { remindersListID }
  }

  @Table
  nonisolated struct RemindersList: Hashable, Identifiable {
    let id: UUID
    @Column(as: Color.HexRepresentation.self)
    var color: Color = Self.defaultColor
    var title = ""

    static let defaultColor = Color(red: 0x4a, green: 0x99, blue: 0xef)
  }

  @Table
  nonisolated struct Attendee: Hashable, Identifiable {
    let id: UUID
    var name = ""
    var syncUpID: SyncUp.ID  // Foreign key to SyncUp table
  }

  @Table
  nonisolated struct Reminder: Hashable, Identifiable {
    let id: UUID
    var dueDate: Date?
    var isFlagged = false
    var priority: Priority?
    var status: Status = .incomplete
    var title = ""

    var isCompleted: Bool {
      status != .incomplete
    }

    enum Priority: Int, QueryBindable {
      case low = 1
      case medium
      case high
    }

    enum Status: Int, QueryBindable {
      case completed = 1
      case completing = 2
      case incomplete = 0
    }
  }

  static func database() throws -> DatabaseQueue {
    let database = try DatabaseQueue()
    try database.write { db in
      try #sql(
        """
        CREATE TABLE "syncUps" (
          "id" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (lower(
            hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2)
            || '-a' || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))),
          "title" TEXT NOT NULL DEFAULT '',
          "seconds" INTEGER NOT NULL DEFAULT 300,
          "theme" TEXT NOT NULL DEFAULT 'bubblegum'
        ) STRICT;
        CREATE TABLE "meetings" ("id" TEXT PRIMARY KEY NOT NULL, "date" TEXT NOT NULL, "notes" TEXT NOT NULL) STRICT;
        CREATE TABLE "tags" ("title" TEXT PRIMARY KEY NOT NULL) STRICT;
        CREATE TABLE "remindersListAssets" ("remindersListID" TEXT PRIMARY KEY NOT NULL, "coverImage" BLOB) STRICT;
        CREATE TABLE "remindersLists" ("id" TEXT PRIMARY KEY NOT NULL, "color" INTEGER NOT NULL, "title" TEXT NOT NULL) STRICT;
        CREATE TABLE "attendees" ("id" TEXT PRIMARY KEY NOT NULL, "name" TEXT NOT NULL, "syncUpID" TEXT NOT NULL REFERENCES "syncUps"("id")) STRICT;
        CREATE TABLE "reminders" (
          "id" TEXT PRIMARY KEY NOT NULL, "dueDate" TEXT, "isFlagged" INTEGER NOT NULL DEFAULT 0,
          "priority" INTEGER, "status" INTEGER NOT NULL DEFAULT 0, "title" TEXT NOT NULL DEFAULT ''
        ) STRICT;
        """
      ).execute(db)
    }
    return database
  }
}

extension TableModelsSeed.SyncUp.Draft: Identifiable {}

extension TableModelsSeed.Reminder.TableColumns {
  var isCompleted: some QueryExpression<Bool> {
    status.neq(TableModelsSeed.Reminder.Status.incomplete)
  }
}

extension TableModelsSeed.Reminder {
  static let incomplete = Self.where { !$0.isCompleted }
}

extension TableModelsSeed {
  @Suite struct Tests {
    @Test func draftsInsertWithTheirDefaults() throws {
      let database = try TableModelsSeed.database()
      try database.write { db in
        // Usage:
        try SyncUp.insert {
          SyncUp.Draft(
            title: "Daily Standup",
            seconds: 900
          )
        }.execute(db)
      }
      let syncUp = try #require(try database.read { try SyncUp.fetchOne($0) })
      #expect(
        syncUp.title == "Daily Standup" && syncUp.seconds == 900 && syncUp.theme == .bubblegum)
      let stored = try database.read { try String.fetchOne($0, sql: "SELECT theme FROM syncUps") }
      #expect(stored == "bubblegum")
      let draft = SyncUp.Draft()
      #expect(draft.seconds == 300 && draft.title == "")
    }

    @Test func keysRepresentationsAndForeignKeys() throws {
      let database = try TableModelsSeed.database()
      let syncUpID = UUID()
      let listID = UUID()
      try database.write { db in
        try db.seed {
          SyncUp(id: syncUpID, title: "Design")
          Attendee(id: UUID(), name: "Blob", syncUpID: syncUpID)
          Meeting(id: UUID(), date: Date(timeIntervalSince1970: 0), notes: "Kick-off")
          Tag(title: "car")
          RemindersList(id: listID, title: "Personal")
          RemindersListAsset(remindersListID: listID, coverImage: Data([1, 2]))
        }
      }
      try database.read { (db: Database) throws in
        #expect(try Tag.find("car").fetchOne(db)?.id == "car")
        #expect(try RemindersListAsset.find(listID).fetchOne(db)?.coverImage == Data([1, 2]))
        #expect(try RemindersList.find(listID).fetchOne(db)?.color == RemindersList.defaultColor)
        #expect(try Attendee.where { $0.syncUpID == syncUpID }.fetchCount(db) == 1)
        #expect(try Meeting.fetchOne(db)?.notes == "Kick-off")
      }
    }

    @Test func computedPropertiesAndStaticHelpers() throws {
      let database = try TableModelsSeed.database()
      try database.write { db in
        try db.seed {
          Reminder(id: UUID(), title: "Open")
          Reminder(id: UUID(), status: .completed, title: "Done")
          Reminder(id: UUID(), status: .completing, title: "Finishing")
        }
      }
      // Usage:
      let incompleteTasks = try database.read { db in try Reminder.incomplete.fetchAll(db) }
      #expect(incompleteTasks.map(\.title) == ["Open"])
      #expect(incompleteTasks.allSatisfy { !$0.isCompleted })
    }
  }
}
