import Foundation
import HearthData
import HearthPlugin

// The reminders feature's tables: lists, reminders, tags (many-to-many), a full-text index
// kept by triggers, and the alerts its background duty writes when a reminder falls due.

@Table
struct RemindersList: Codable, Hashable, Identifiable {
  let id: UUID
  @Column(as: Color.HexRepresentation.self)
  var color: Color = .blue
  var position = 0
  var title = ""
}

@Table
struct Reminder: Codable, Hashable, Identifiable {
  let id: UUID
  var remindersListID: RemindersList.ID
  var title = ""
  var notes = ""
  var dueDate: Date?
  var isFlagged = false
  var priority: Priority?
  var status: Status = .incomplete
  /// When the reminder was marked completing: the duty completes it `completionDelay` later.
  var completingAt: Date?
  var position = 0

  enum Priority: Int, QueryBindable, NamedCases, Codable {
    case low = 1
    case medium, high
    var name: String { ["low", "medium", "high"][rawValue - 1] }
    func encode(to encoder: any Encoder) throws { try encodeName(to: encoder) }
    init(from decoder: any Decoder) throws { self = try Self.decodeName(from: decoder) }
  }

  enum Status: Int, QueryBindable, NamedCases, Codable {
    case incomplete = 0
    case completing = 1
    case completed = 2
    var name: String { ["incomplete", "completing", "completed"][rawValue] }
    func encode(to encoder: any Encoder) throws { try encodeName(to: encoder) }
    init(from decoder: any Decoder) throws { self = try Self.decodeName(from: decoder) }
  }
}

/// A tag, keyed by its title (as the reference's): the same tag made on two devices is one
/// row once they sync.
@Table
struct Tag: Codable, Hashable, Identifiable {
  @Column(primaryKey: true)
  var title: String
  var id: String { title }
}

/// A reminder's tag. Its key is made of the two it joins (`ReminderTag.key`), so tagging a
/// reminder on two devices makes one row.
@Table("remindersTags")
struct ReminderTag: Hashable, Identifiable {
  let id: String
  var reminderID: Reminder.ID
  var tagID: Tag.ID

  init(reminderID: Reminder.ID, tagID: Tag.ID) {
    self.id = Self.key(reminderID, tagID)
    self.reminderID = reminderID
    self.tagID = tagID
  }

  static func key(_ reminderID: Reminder.ID, _ tagID: Tag.ID) -> String {
    reminderID.uuidString.lowercased() + "/" + tagID
  }
}

/// The full-text index of reminders: title, notes and tag names, one row per reminder
/// (`rowid` = the reminder's rowid), kept by the triggers of the schema.
@Table
struct ReminderText: FTS5 {
  let rowid: Int
  var title: String
  var notes: String
  var tags: String
}

/// An announcement that a reminder fell due, written once per reminder and due date by the
/// `run` duty; any process sees it on the change bus (`hearth subscribe reminderAlerts`).
@Table
struct ReminderAlert: Codable, Hashable, Identifiable {
  let id: Int
  var reminderID: Reminder.ID
  var dueDate: Date
  var announcedAt: Date
}

/// An RGB colour, stored as the integer 0xRRGGBB.
struct Color: Hashable, Codable, Sendable {
  var rgb: Int

  static let blue = Color(rgb: 0x4A99EF)
  static let named: [(String, Color)] = [
    ("red", Color(rgb: 0xEF7E4A)), ("orange", Color(rgb: 0xF2A33A)),
    ("yellow", Color(rgb: 0xE8C547)), ("green", Color(rgb: 0x5BC26A)), ("blue", .blue),
    ("purple", Color(rgb: 0xA35BC2)), ("brown", Color(rgb: 0x9C7A5B)),
  ]

  /// `#4a99ef`.
  var hex: String { "#" + String(format: "%06x", rgb) }

  /// A colour from `#rrggbb`, `rrggbb` or a name.
  init?(parsing text: String) {
    let lowered = text.lowercased()
    if let named = Self.named.first(where: { $0.0 == lowered }) {
      self = named.1
      return
    }
    let digits = lowered.hasPrefix("#") ? String(lowered.dropFirst()) : lowered
    guard digits.count == 6, let value = Int(digits, radix: 16) else { return nil }
    rgb = value
  }

  init(rgb: Int) { self.rgb = rgb }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(hex)
  }

  init(from decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    guard let color = Color(parsing: text) else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: "not a colour: \(text)"))
    }
    self = color
  }

  /// The column representation: the colour as one integer.
  struct HexRepresentation: QueryBindable {
    typealias QueryValue = Self
    var queryOutput: Color
    init(queryOutput: Color) { self.queryOutput = queryOutput }
    var queryBinding: QueryBinding { queryOutput.rgb.databaseValue }
    init(decoder: inout QueryRowDecoder) throws {
      queryOutput = Color(rgb: try decoder.decode(Int.self))
    }
  }
}

/// An enum that reads and writes its cases' names in JSON (`"high"`, not `3`). Each enum
/// implements `Codable` itself, calling these: a protocol extension would lose to the
/// standard library's raw-value coding.
protocol NamedCases: CaseIterable {
  var name: String { get }
}

extension NamedCases {
  func encodeName(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(name)
  }

  static func decodeName(from decoder: any Decoder) throws -> Self {
    let name = try decoder.singleValueContainer().decode(String.self)
    guard let value = allCases.first(where: { $0.name == name }) else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: "no case named \(name)"))
    }
    return value
  }
}

/// The engine that keeps the lists, reminders and tags the same on every device of the
/// account (the alerts and the full-text index are each device's own).
package func remindersSyncEngine(for database: any DatabaseWriter) throws -> SyncEngine {
  try SyncEngine(
    for: database, tables: RemindersList.self, Reminder.self, Tag.self, ReminderTag.self)
}

/// What the feature tells the hub: its tables (named by their types; the full-text table's
/// shadow tables follow it) and migrations.
package func remindersRegistration() throws -> PluginRegistration {
  try PluginRegistration(
    name: "reminders", version: "1.0",
    tables: [
      RemindersList.self, Reminder.self, Tag.self, ReminderTag.self, ReminderText.self,
      ReminderAlert.self, ReminderCalendarData.self, CalDAVPassword.self,
    ],
    migrator: migrator)
}

package var migrator: DatabaseMigrator {
  var migrator = DatabaseMigrator()
  migrator.registerMigration("Create reminders tables") { db in
    try #sql(
      """
      CREATE TABLE "remindersLists" (
        "id" INTEGER PRIMARY KEY AUTOINCREMENT,
        "color" INTEGER NOT NULL DEFAULT 4889071,
        "position" INTEGER NOT NULL DEFAULT 0,
        "title" TEXT NOT NULL CHECK (length("title") BETWEEN 1 AND 200)
      ) STRICT;
      CREATE TABLE "reminders" (
        "id" INTEGER PRIMARY KEY AUTOINCREMENT,
        "remindersListID" INTEGER NOT NULL REFERENCES "remindersLists"("id") ON DELETE CASCADE,
        "title" TEXT NOT NULL CHECK (length("title") BETWEEN 1 AND 1000),
        "notes" TEXT NOT NULL DEFAULT '',
        "dueDate" TEXT,
        "isFlagged" INTEGER NOT NULL DEFAULT 0,
        "priority" INTEGER CHECK ("priority" BETWEEN 1 AND 3),
        "status" INTEGER NOT NULL DEFAULT 0 CHECK ("status" BETWEEN 0 AND 2),
        "completingAt" TEXT,
        "position" INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE INDEX "reminders_list" ON "reminders"("remindersListID", "position");
      CREATE INDEX "reminders_due" ON "reminders"("dueDate") WHERE "dueDate" IS NOT NULL;
      CREATE TABLE "tags" (
        "id" INTEGER PRIMARY KEY AUTOINCREMENT,
        "title" TEXT NOT NULL UNIQUE COLLATE NOCASE CHECK (length("title") BETWEEN 1 AND 100)
      ) STRICT;
      CREATE TABLE "remindersTags" (
        "reminderID" INTEGER NOT NULL REFERENCES "reminders"("id") ON DELETE CASCADE,
        "tagID" INTEGER NOT NULL REFERENCES "tags"("id") ON DELETE CASCADE,
        PRIMARY KEY ("reminderID", "tagID")
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX "remindersTags_tag" ON "remindersTags"("tagID");
      CREATE TABLE "reminderAlerts" (
        "id" INTEGER PRIMARY KEY AUTOINCREMENT,
        "reminderID" INTEGER NOT NULL REFERENCES "reminders"("id") ON DELETE CASCADE,
        "dueDate" TEXT NOT NULL,
        "announcedAt" TEXT NOT NULL,
        UNIQUE ("reminderID", "dueDate")
      ) STRICT;
      CREATE VIRTUAL TABLE "reminderTexts" USING fts5("title", "notes", "tags");
      CREATE TRIGGER "reminders_text_insert" AFTER INSERT ON "reminders" BEGIN
        INSERT INTO "reminderTexts"("rowid", "title", "notes", "tags")
        VALUES (new."id", new."title", new."notes", '');
      END;
      CREATE TRIGGER "reminders_text_update" AFTER UPDATE OF "title", "notes" ON "reminders" BEGIN
        UPDATE "reminderTexts" SET "title" = new."title", "notes" = new."notes"
        WHERE "rowid" = new."id";
      END;
      CREATE TRIGGER "reminders_text_delete" AFTER DELETE ON "reminders" BEGIN
        DELETE FROM "reminderTexts" WHERE "rowid" = old."id";
      END;
      CREATE TRIGGER "remindersTags_text_insert" AFTER INSERT ON "remindersTags" BEGIN
        UPDATE "reminderTexts" SET "tags" = (
          SELECT group_concat("tags"."title", ' ') FROM "tags"
          JOIN "remindersTags" ON "remindersTags"."tagID" = "tags"."id"
          WHERE "remindersTags"."reminderID" = new."reminderID")
        WHERE "rowid" = new."reminderID";
      END;
      CREATE TRIGGER "remindersTags_text_delete" AFTER DELETE ON "remindersTags" BEGIN
        UPDATE "reminderTexts" SET "tags" = coalesce((
          SELECT group_concat("tags"."title", ' ') FROM "tags"
          JOIN "remindersTags" ON "remindersTags"."tagID" = "tags"."id"
          WHERE "remindersTags"."reminderID" = old."reminderID"), '')
        WHERE "rowid" = old."reminderID";
      END;
      """
    )
    .execute(db)
  }
  migrator.registerMigration("Key reminders by UUID, for sync") { db in
    try db.execute(sql: uuidKeysMigration)
  }
  migrator.registerMigration("CalDAV: clients' calendar data and app passwords") { db in
    try db.execute(sql: calDAVMigration)
  }
  return migrator
}

/// The second migration: every table's integer key becomes a UUID (text, `uuid()` for new
/// rows), every row and relation kept, the SQLite way (a `new_` table filled from the old
/// one, the old dropped, the new renamed). Each migrated row keeps its old integer id as its
/// rowid, so the full-text index (keyed by rowid) stays valid and the attachments feature
/// can find the new id of a row it named by number. Tags are keyed by their title, and a
/// reminder's tag by the two ids it joins; the alerts keep integer ids (they are not synced).
private let uuidKeysMigration = """
  DROP TRIGGER "reminders_text_insert";
  DROP TRIGGER "reminders_text_update";
  DROP TRIGGER "reminders_text_delete";
  DROP TRIGGER "remindersTags_text_insert";
  DROP TRIGGER "remindersTags_text_delete";
  CREATE TABLE "new_remindersLists" (
    "id" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid()),
    "color" INTEGER NOT NULL DEFAULT 4889071,
    "position" INTEGER NOT NULL DEFAULT 0,
    "title" TEXT NOT NULL CHECK (length("title") BETWEEN 1 AND 200)
  ) STRICT;
  INSERT INTO "new_remindersLists" ("rowid", "id", "color", "position", "title")
  SELECT "id", uuid(), "color", "position", "title" FROM "remindersLists";
  CREATE TABLE "new_reminders" (
    "id" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid()),
    "remindersListID" TEXT NOT NULL
      REFERENCES "new_remindersLists"("id") ON DELETE CASCADE,
    "title" TEXT NOT NULL CHECK (length("title") BETWEEN 1 AND 1000),
    "notes" TEXT NOT NULL DEFAULT '',
    "dueDate" TEXT,
    "isFlagged" INTEGER NOT NULL DEFAULT 0,
    "priority" INTEGER CHECK ("priority" BETWEEN 1 AND 3),
    "status" INTEGER NOT NULL DEFAULT 0 CHECK ("status" BETWEEN 0 AND 2),
    "completingAt" TEXT,
    "position" INTEGER NOT NULL DEFAULT 0
  ) STRICT;
  INSERT INTO "new_reminders" ("rowid", "id", "remindersListID", "title", "notes", "dueDate",
    "isFlagged", "priority", "status", "completingAt", "position")
  SELECT r."id", uuid(), l."id", r."title", r."notes", r."dueDate", r."isFlagged",
    r."priority", r."status", r."completingAt", r."position"
  FROM "reminders" r JOIN "new_remindersLists" l ON l."rowid" = r."remindersListID";
  CREATE TABLE "new_tags" (
    "title" TEXT PRIMARY KEY NOT NULL CHECK (length("title") BETWEEN 1 AND 100)
  ) STRICT;
  INSERT INTO "new_tags" ("rowid", "title") SELECT "id", "title" FROM "tags";
  CREATE TABLE "new_remindersTags" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "reminderID" TEXT NOT NULL REFERENCES "new_reminders"("id") ON DELETE CASCADE,
    "tagID" TEXT NOT NULL REFERENCES "new_tags"("title") ON DELETE CASCADE
  ) STRICT;
  INSERT INTO "new_remindersTags" ("id", "reminderID", "tagID")
  SELECT r."id" || '/' || t."title", r."id", t."title"
  FROM "remindersTags" rt
  JOIN "new_reminders" r ON r."rowid" = rt."reminderID"
  JOIN "new_tags" t ON t."rowid" = rt."tagID";
  CREATE TABLE "new_reminderAlerts" (
    "id" INTEGER PRIMARY KEY AUTOINCREMENT,
    "reminderID" TEXT NOT NULL REFERENCES "new_reminders"("id") ON DELETE CASCADE,
    "dueDate" TEXT NOT NULL,
    "announcedAt" TEXT NOT NULL,
    UNIQUE ("reminderID", "dueDate")
  ) STRICT;
  INSERT INTO "new_reminderAlerts" ("id", "reminderID", "dueDate", "announcedAt")
  SELECT a."id", r."id", a."dueDate", a."announcedAt"
  FROM "reminderAlerts" a JOIN "new_reminders" r ON r."rowid" = a."reminderID";
  DROP TABLE "remindersTags";
  DROP TABLE "reminderAlerts";
  DROP TABLE "reminders";
  DROP TABLE "tags";
  DROP TABLE "remindersLists";
  ALTER TABLE "new_remindersLists" RENAME TO "remindersLists";
  ALTER TABLE "new_reminders" RENAME TO "reminders";
  ALTER TABLE "new_tags" RENAME TO "tags";
  ALTER TABLE "new_remindersTags" RENAME TO "remindersTags";
  ALTER TABLE "new_reminderAlerts" RENAME TO "reminderAlerts";
  CREATE INDEX "reminders_list" ON "reminders"("remindersListID", "position");
  CREATE INDEX "reminders_due" ON "reminders"("dueDate") WHERE "dueDate" IS NOT NULL;
  CREATE INDEX "remindersTags_reminder" ON "remindersTags"("reminderID");
  CREATE INDEX "remindersTags_tag" ON "remindersTags"("tagID");
  CREATE TRIGGER "reminders_text_insert" AFTER INSERT ON "reminders" BEGIN
    INSERT INTO "reminderTexts"("rowid", "title", "notes", "tags")
    VALUES (new."rowid", new."title", new."notes", '');
  END;
  CREATE TRIGGER "reminders_text_update" AFTER UPDATE OF "title", "notes" ON "reminders" BEGIN
    UPDATE "reminderTexts" SET "title" = new."title", "notes" = new."notes"
    WHERE "rowid" = new."rowid";
  END;
  CREATE TRIGGER "reminders_text_delete" AFTER DELETE ON "reminders" BEGIN
    DELETE FROM "reminderTexts" WHERE "rowid" = old."rowid";
  END;
  CREATE TRIGGER "remindersTags_text_insert" AFTER INSERT ON "remindersTags" BEGIN
    UPDATE "reminderTexts" SET "tags" = (
      SELECT group_concat("tagID", ' ') FROM "remindersTags"
      WHERE "reminderID" = new."reminderID")
    WHERE "rowid" = (SELECT "rowid" FROM "reminders" WHERE "id" = new."reminderID");
  END;
  CREATE TRIGGER "remindersTags_text_delete" AFTER DELETE ON "remindersTags" BEGIN
    UPDATE "reminderTexts" SET "tags" = coalesce((
      SELECT group_concat("tagID", ' ') FROM "remindersTags"
      WHERE "reminderID" = old."reminderID"), '')
    WHERE "rowid" = (SELECT "rowid" FROM "reminders" WHERE "id" = old."reminderID");
  END;
  """
