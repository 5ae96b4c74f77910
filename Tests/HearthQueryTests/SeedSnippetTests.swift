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

// MARK: - 002: the usage guide (fetching, dynamic queries, pagination, CRUD)

enum UsageGuideSeed {
  @Table
  struct Item: Identifiable {
    let id: Int  // Primary key (auto-generated for Int)
    var title = ""
    var isInStock = true
    var notes = ""
  }

  @Table
  struct Reminder: Identifiable {
    let id: Int
    var isCompleted = false
    var status: Status = .incomplete
    var title = ""

    enum Status: Int, QueryBindable {
      case incomplete = 0
      case completed = 1
      case completing = 2
    }
  }

  @Table
  struct Fact: Identifiable {
    let id: Int
    var body: String
  }

  @Table
  struct Tag: Hashable, Identifiable {
    @Column(primaryKey: true)
    var title: String
    var id: String { title }
  }

  @Table
  struct Player {
    let id: Int
    var name = ""
    var score = 0
  }

  static func database() throws -> DatabaseQueue {
    let database = try DatabaseQueue()
    try migrator.migrate(database)
    return database
  }

  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("Create tables") { db in
      try #sql(
        """
        CREATE TABLE "items" (
          "id" INTEGER PRIMARY KEY AUTOINCREMENT,
          "title" TEXT NOT NULL DEFAULT '',
          "isInStock" INTEGER NOT NULL DEFAULT 1,
          "notes" TEXT NOT NULL DEFAULT ''
        ) STRICT
        """
      )
      .execute(db)
      try #sql(
        """
        CREATE TABLE "reminders" (
          "id" INTEGER PRIMARY KEY AUTOINCREMENT,
          "isCompleted" INTEGER NOT NULL DEFAULT 0,
          "status" INTEGER NOT NULL DEFAULT 0,
          "title" TEXT NOT NULL DEFAULT ''
        ) STRICT
        """
      )
      .execute(db)
      try #sql(
        #"CREATE TABLE "facts" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "body" TEXT NOT NULL)"#
      )
      .execute(db)
      try #sql(#"CREATE TABLE "tags" ("title" TEXT PRIMARY KEY NOT NULL)"#).execute(db)
      try #sql(
        """
        CREATE TABLE players (
          id INTEGER PRIMARY KEY,
          name TEXT,
          score INTEGER
        )
        """
      )
      .execute(db)
    }
    // Register more migrations as your app evolves
    migrator.registerMigration("Add 'description' column") { db in
      try #sql(
        """
        ALTER TABLE "items"
        ADD COLUMN "description" TEXT
        """
      )
      .execute(db)
    }
    return migrator
  }
}

extension UsageGuideSeed {
  @Suite struct Tests {
    let database: DatabaseQueue

    init() throws {
      database = try UsageGuideSeed.database()
      try database.write { db in
        try db.seed {
          Item(id: 1, title: "Zucchini", isInStock: true, notes: "")
          Item(id: 2, title: "Apples", isInStock: false, notes: "Note")
          Item(id: 3, title: "Milk", isInStock: true, notes: "")
          Reminder(id: 1, isCompleted: true, status: .completed, title: "B")
          Reminder(id: 2, isCompleted: false, title: "A")
          Reminder(id: 3, isCompleted: true, status: .completing, title: "C")
          Player(id: 1, name: "Blob", score: 5)
          Player(id: 2, name: "Blob Jr", score: 20)
          Player(id: 3, name: "Blob Sr", score: 35)
        }
      }
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T { try database.read(body) }

    @Test func fetchingWithOrderingAndFiltering() throws {
      try read { (db: Database) throws in
        #expect(try Item.order(by: \.title).fetchAll(db).map(\.id) == [2, 3, 1])
        #expect(try Item.order(by: \.isInStock, \.title).fetchAll(db).map(\.id) == [2, 3, 1])
        #expect(
          try Reminder.where(\.isCompleted).order { $0.title.desc() }.fetchAll(db).map(\.id) == [
            3, 1,
          ])
        #expect(
          try Item.order {
            (
              $0.isInStock,
              $0.title
            )
          }.fetchAll(db).map(\.id) == [2, 3, 1])
        #expect(
          try Item.order {
            (
              $0.isInStock,
              $0.title.desc()
            )
          }.fetchAll(db).map(\.id) == [2, 1, 3])
        #expect(try Item.order { $0.id.desc() }.fetchAll(db).map(\.id) == [3, 2, 1])
        #expect(
          try Reminder.where(\.isCompleted).order(by: \.title).fetchAll(db).map(\.id) == [1, 3])
      }
    }

    @Test func fetchingWithSQL() throws {
      try read { db in
        let completedReminders: [Reminder] = try #sql(
          "SELECT * FROM reminders WHERE isCompleted ORDER BY title DESC"
        ).fetchAll(db)
        #expect(completedReminders.map(\.id) == [3, 1])
        let interpolated: [Reminder] = try #sql(
          """
          SELECT \(Reminder.columns)
          FROM \(Reminder.self)
          WHERE \(Reminder.isCompleted)
          ORDER BY \(Reminder.title) DESC
          """
        ).fetchAll(db)
        #expect(interpolated.map(\.id) == [3, 1])
        let completedRemindersCount: Int? = try #sql(
          "SELECT count(*) FROM reminders WHERE isCompleted"
        ).fetchOne(db)
        #expect(completedRemindersCount == 2)
      }
    }

    @Test func fetchingSingleValues() throws {
      try read { (db: Database) throws in
        #expect(try Reminder.count().fetchOne(db) == 3)
        #expect(try Reminder.where(\.isCompleted).count().fetchOne(db) == 2)
        #expect(try Item.where(\Item.isInStock).count().fetchOne(db) == 2)
        let players =
          try Player
          .where { $0.score > 10 }
          .fetchAll(db)
        #expect(players.map(\.id) == [2, 3])
        let averageScore =
          try Player
          .select { $0.score.avg() }
          .fetchOne(db)
        #expect(averageScore == 20)
      }
    }

    @Test func factsFetchKeyRequestQueries() throws {
      try database.write { db in
        try Fact.insert {
          Fact.Draft(body: "Some fact text")
        }
        .execute(db)
        try Fact.insert { Fact.Draft(body: "Another text about 42") }.execute(db)
      }
      let query = "42"
      try read { (db: Database) throws in
        let search =
          Fact
          .where { $0.body.contains(query) }
          .order { $0.id.desc() }
        #expect(try search.fetchAll(db).map(\.body) == ["Another text about 42"])
        #expect(try search.fetchCount(db) == 1)
        #expect(try Fact.fetchCount(db) == 2)
        #expect(try Fact.order { $0.id.desc() }.fetchAll(db).map(\.id) == [2, 1])
      }
    }

    @Test func dynamicQueriesAndPagination() throws {
      for order in ["forward", "reverse"] {
        let filterID: Int? = nil
        let items = try read { db in
          try Item
            .where { $0.id > #bind(filterID ?? 0) }
            .order {
              if order == "forward" {
                $0.title
              } else {
                $0.title.desc()
              }
            }
            .limit(10)
            .fetchAll(db)
        }
        #expect(
          items.map(\.title)
            == (order == "forward"
              ? ["Apples", "Milk", "Zucchini"] : ["Zucchini", "Milk", "Apples"]))
      }
      let pageSize = 2
      let page = 1  // 0-indexed
      let secondPage = try read { db in
        try Item
          .order { $0.title }
          .limit(pageSize, offset: page * pageSize)
          .fetchAll(db)
      }
      #expect(secondPage.map(\.title) == ["Zucchini"])
      // Cursor (keyset) pagination
      let firstPage = try read { db in try Item.order { $0.id }.limit(2).fetchAll(db) }
      let lastID = firstPage.last?.id
      let nextItems = try read { db in
        try Item
          .where { $0.id > #bind(lastID ?? 0) }
          .order { $0.id }
          .limit(20)
          .fetchAll(db)
      }
      #expect(nextItems.map(\.id) == [3])
    }

    @Test func createReadUpdateDelete() throws {
      try database.write { db in
        try Item.insert {
          Item(id: 10, title: "New Item", isInStock: true, notes: "")
        }
        .execute(db)
        try Item.insert().execute(db)
        try Item.insert(Item(id: 20, title: "Twenty", isInStock: false, notes: ""))
          .execute(db)
      }
      try database.write { db in
        let count = try Reminder.fetchCount(db)
        let items = try Item.where(\.isInStock).fetchAll(db)
        #expect(count == 3)
        #expect(items.map(\.id) == [1, 3, 10, 11])
      }
      var existingItem = try #require(try read { try Item.find(10).fetchOne($0) })
      existingItem.title = "New Title"
      try database.write { db in
        try Item.update(existingItem).execute(db)
      }
      #expect(try read { try Item.find(10).fetchOne($0) }?.title == "New Title")
      try database.write { db in
        try Reminder
          .where { $0.status.eq(#bind(.completing)) }
          .update { $0.status = #bind(.completed) }
          .execute(db)
      }
      #expect(
        try read { try Reminder.where { $0.status.eq(#bind(.completed)) }.fetchCount($0) } == 2)
      try database.write { db in
        try Item.delete(existingItem).execute(db)
      }
      let idsToDelete = [1, 2]
      try database.write { db in
        try Item
          .where { $0.id.in(idsToDelete) }
          .delete()
          .execute(db)
      }
      #expect(try read { try Item.fetchAll($0) }.map(\.id) == [3, 11, 20])
      try database.write { db in
        try db.seed {
          Tag(title: "car")
          Tag(title: "kids")
          Tag(title: "someday")
        }
      }
      let tagTitles = ["car", "someday"]
      try database.write { db in
        try Tag
          .where { $0.title.in(tagTitles) }
          .delete()
          .execute(db)
      }
      #expect(try read { try Tag.fetchAll($0) }.map(\.title) == ["kids"])
    }

    @Test func uniqueIndexMigration() throws {
      try database.write { db in
        try Item.insert {
          Item.Draft(title: "Milk")
          Item.Draft(title: "Apples")
        }.execute(db)
      }
      var migrator = UsageGuideSeed.migrator
      migrator.registerMigration("Make 'title' unique") { db in
        // 1️⃣ Delete all items that have duplicate title, keeping the first created one:
        try Item
          .delete()
          .where {
            !$0.id.in(
              Item
                .select { $0.id.min() }
                .group(by: \.title)
            )
          }
          .execute(db)
        // 2️⃣ Create unique index
        try #sql(
          """
          CREATE UNIQUE INDEX
          "items_title" ON "items" ("title")
          """
        )
        .execute(db)
      }
      try migrator.migrate(database)
      #expect(try read { try Item.order(by: \.id).fetchAll($0) }.map(\.id) == [1, 2, 3])
      #expect(throws: DatabaseError.self) {
        try database.write { try Item.insert { Item.Draft(title: "Milk") }.execute($0) }
      }
    }
  }
}

// MARK: - 000 and 001: joins (sports and teams, records, reminders with tags)

enum JoinSeed {
  @Table
  struct Sport: Identifiable {
    let id: Int
    var name = ""
  }

  @Table
  struct Team: Identifiable {
    let id: Int
    var name = ""
    var sportID: Sport.ID
  }

  @Selection
  struct SportWithTeamCount {
    let sport: Sport
    let teamCount: Int
  }

  @Table
  struct RemindersList: Identifiable {
    let id: Int
    var title = ""
  }

  @Table
  struct Reminder: Identifiable {
    let id: Int
    var remindersListID: RemindersList.ID
    var title = ""
  }

  @Selection
  struct Record {
    let reminderTitle: String
    let remindersListTitle: String
  }

  @Table("remindersTags")
  struct ReminderTag: Identifiable {
    let id: Int
    let reminderID: Reminder.ID
    let tagID: Tag.ID
  }

  @Table
  struct Tag: Identifiable {
    let id: Int
    var title = ""
  }
}

extension JoinSeed.Reminder {
  static let withTags = group(by: \.id)
    .leftJoin(JoinSeed.ReminderTag.all) { $0.id.eq($1.reminderID) }
    .leftJoin(JoinSeed.Tag.all) { $1.tagID.eq($2.primaryKey) }
}

extension JoinSeed {
  @Suite struct Tests {
    let database: DatabaseQueue

    init() throws {
      database = try DatabaseQueue()
      try database.write { db in
        try #sql(
          """
          CREATE TABLE "sports" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL DEFAULT '');
          CREATE TABLE "teams" (
            "id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL DEFAULT '',
            "sportID" INTEGER NOT NULL REFERENCES "sports"("id"));
          CREATE TABLE "remindersLists" ("id" INTEGER PRIMARY KEY, "title" TEXT NOT NULL);
          CREATE TABLE "reminders" (
            "id" INTEGER PRIMARY KEY,
            "remindersListID" INTEGER NOT NULL REFERENCES "remindersLists"("id"),
            "title" TEXT NOT NULL);
          CREATE TABLE "tags" ("id" INTEGER PRIMARY KEY, "title" TEXT NOT NULL);
          CREATE TABLE "remindersTags" (
            "id" INTEGER PRIMARY KEY,
            "reminderID" INTEGER NOT NULL REFERENCES "reminders"("id"),
            "tagID" INTEGER NOT NULL REFERENCES "tags"("id"));
          """
        )
        .execute(db)
        try db.seed {
          Sport(id: 1, name: "Football")
          Sport(id: 2, name: "Curling")
          Team(id: 1, name: "Reds", sportID: 1)
          Team(id: 2, name: "Blues", sportID: 1)
          RemindersList(id: 1, title: "Home")
          RemindersList(id: 2, title: "Work")
          Reminder(id: 1, remindersListID: 2, title: "Report")
          Reminder(id: 2, remindersListID: 1, title: "Dishes")
          Tag(id: 1, title: "weekly")
          Tag(id: 2, title: "chores")
          ReminderTag(id: 1, reminderID: 2, tagID: 1)
          ReminderTag(id: 2, reminderID: 2, tagID: 2)
        }
      }
    }

    @Test func sportsWithTheirTeamCounts() throws {
      let query =
        Sport
        .group(by: \.id)
        .leftJoin(Team.all) { $0.id.eq($1.sportID) }
        .select {
          SportWithTeamCount.Columns(sport: $0, teamCount: $1.count())
        }
      let rows = try database.read { try query.fetchAll($0) }
      #expect(rows.map(\.sport.name) == ["Football", "Curling"])
      #expect(rows.map(\.teamCount) == [2, 0])
    }

    @Test func recordsFromJoinedTables() throws {
      let query =
        Reminder
        .join(RemindersList.all) { $0.remindersListID.eq($1.id) }
        .select {
          Record.Columns(
            reminderTitle: $0.title,
            remindersListTitle: $1.title
          )
        }
      let records = try database.read { try query.fetchAll($0) }
      #expect(records.map(\.reminderTitle) == ["Report", "Dishes"])
      #expect(records.map(\.remindersListTitle) == ["Work", "Home"])
    }

    @Test func remindersWithTags() throws {
      let rows = try database.read { db in
        try Reminder.withTags
          .select { ($0.title, $2.title.groupConcat()) }
          .fetchAll(db)
      }
      #expect(rows.map(\.0) == ["Report", "Dishes"])
      #expect(rows[0].1 == nil)
      #expect(rows[1].1.map { Set($0.split(separator: ",")) } == ["weekly", "chores"])
    }
  }
}

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

// MARK: - Single-table inheritance (003)

enum EnumTableSeed {
  @Table
  nonisolated struct Attachment: Identifiable {
    let id: UUID
    let kind: Kind

    @CasePathable @Selection @dynamicMemberLookup
    enum Kind {
      case link(URL)
      case note(String)
      case image(URL)
    }
  }

  @Table
  struct Owner {
    let id: Int
    var attachmentID: UUID?
  }
}

extension EnumTableSeed {
  @Suite struct Tests {
    let database: DatabaseQueue

    init() throws {
      database = try DatabaseQueue()
      try database.write { db in
        try #sql(
          """
          CREATE TABLE "attachments" (
              "id" TEXT PRIMARY KEY NOT NULL DEFAULT (uuid()),
              "link" TEXT, "note" TEXT, "image" TEXT
          ) STRICT
          """
        )
        .execute(db)
      }
    }

    /// The stored row, column by column.
    func storedRow(_ id: UUID) throws -> [String?] {
      try database.read { db in
        let row = try Row.fetchOne(
          db, sql: #"SELECT "link", "note", "image" FROM "attachments" WHERE "id" = ?"#,
          arguments: [id])
        guard let row else { return [] }
        return try (0..<3).map { try row[$0] as String? }
      }
    }

    @Test func flattensCasesIntoNullableColumns() {
      #expect(Attachment.TableColumns.allColumns.map(\.name) == ["id", "link", "note", "image"])
      #expect(Attachment._columnWidth == 4)
      expectSQL(
        Attachment.where { $0.kind.image.isNot(nil) },
        #"SELECT "attachments"."id", "attachments"."link", "attachments"."note", "attachments"."image" FROM "attachments" WHERE ("attachments"."image" IS NOT ?)"#
      )
    }

    @Test func insertsQueriesAndSwitchesCases() throws {
      try database.write { db in
        try Attachment.insert { Attachment.Draft(kind: .note("Hello!")) }.execute(db)
        try Attachment.insert {
          Attachment.Draft(kind: .image(URL(string: "file:///photos/cat.jpg")!))
        }
        .execute(db)
      }
      // Inserts: (id, NULL, 'Hello!', NULL), the id from the column's uuid() default.
      let note = try #require(
        try database.read { db in try Attachment.where { $0.kind.note.isNot(nil) }.fetchOne(db) })
      #expect(note.kind.is(\.note))
      #expect(note.kind[case: \.note] == "Hello!")
      #expect(try storedRow(note.id) == [nil, "Hello!", nil])
      // The id came from the column's `DEFAULT (uuid())`: lowercase text of a version-4 UUID.
      let storedID = try database.read { db in
        try String.fetchOne(db, sql: #"SELECT "id" FROM "attachments" WHERE "note" IS NOT NULL"#)
      }
      let text = try #require(storedID)
      #expect(text == note.id.uuidString.lowercased())
      #expect(Array(text)[14] == "4" && "89ab".contains(Array(text)[19]))

      // Filter by case.
      let images = try database.read { db in
        try Attachment.where { $0.kind.image.isNot(nil) }.fetchAll(db)
      }
      #expect(images.map { $0.kind[case: \.image] } == [URL(string: "file:///photos/cat.jpg")!])
      #expect(images.first?.id != note.id)

      // Update changes which columns are populated.
      let id = note.id
      try database.write { db in
        try Attachment.find(id).update {
          $0.kind = .link(URL(string: "https://example.com")!)
        }
        .execute(db)
      }
      #expect(try storedRow(id) == ["https://example.com", nil, nil])
      let link = try database.read { db in try Attachment.find(id).fetchOne(db) }
      #expect(link?.kind[case: \.link] == URL(string: "https://example.com"))
      #expect(link?.kind.is(\.note) == false)

      expectSQL(
        Attachment.find(id).update { $0.kind = .note("Bye") },
        #"UPDATE "attachments" SET "link" = NULL, "note" = ?, "image" = NULL WHERE ("attachments"."id" = ?)"#
      )
    }

    @Test func aRowWithNoCaseIsADecodingError() throws {
      let id = UUID()
      try database.write { db in
        try #sql("INSERT INTO \(Attachment.self) (id) VALUES (\(id))").execute(db)
      }
      #expect(throws: QueryDecodingError.self) {
        try database.read { db in try Attachment.find(id).fetchOne(db) }
      }
    }

    @Test func aGroupIsAssignedColumnByColumn() throws {
      let id = UUID()
      try database.write { db in
        try Attachment.insert { Attachment(id: id, kind: .note("draft")) }.execute(db)
        // A case built from an expression, not a value: the note column gets the SQL.
        let note = Attachment.columns.kind.note ?? ""
        try Attachment.find(id).update { $0.kind = .note(note.upper()) }.execute(db)
      }
      #expect(try storedRow(id) == [nil, "DRAFT", nil])
      try database.write { db in
        try Attachment.find(id).update { $0.kind = .image(URL(string: "file:///a.png")!) }
          .execute(db)
      }
      #expect(try storedRow(id) == [nil, nil, "file:///a.png"])
    }

    @Test func enumGroupsSelectAndDecodeThroughJoins() throws {
      try database.write { db in
        try Attachment.insert { Attachment.Draft(kind: .note("n")) }.execute(db)
        try #sql("CREATE TABLE owners (id INTEGER PRIMARY KEY, attachmentID TEXT)").execute(db)
        try #sql("INSERT INTO owners VALUES (1, (SELECT id FROM attachments)), (2, NULL)")
          .execute(db)
      }
      let kinds = try database.read { db in
        try Owner.leftJoin(Attachment.all) { $0.attachmentID.eq($1.id) }
          .order { o, _ in o.id }
          .select { ($0.id, $1) }
          .fetchAll(db)
      }
      #expect(kinds.map(\.0) == [1, 2])
      #expect(kinds[0].1?.kind[case: \.note] == "n")
      #expect(kinds[1].1 == nil)
      let selected = try database.read { db in
        try Attachment.select(\.kind).fetchAll(db)
      }
      #expect(selected.map { $0.note } == ["n"])
    }

    @Test func casePathsEmbedAndExtract() {
      let path = Attachment.Kind.allCasePaths.note
      #expect(path.embed("x")[case: \.note] == "x")
      #expect(path.extract(from: .link(URL(string: "https://a.b")!)) == nil)
      #expect(path.name == "note")
    }
  }
}
