import Foundation
import HearthCommandLine
import HearthData
import HearthPlugin

// Sync-ups (a recurring meeting: title, length, colour theme), their attendees, and the
// meetings held, each with its date and transcript.

@Table("syncUps")
package struct SyncUp: Codable, Hashable, Identifiable {
  package let id: UUID
  /// The meeting's length, in seconds.
  package var seconds = 300
  package var theme: Theme = .bubblegum
  package var title = ""

  package enum Theme: String, CaseIterable, Codable, QueryBindable {
    case bubblegum, buttercup, indigo, lavender, magenta, navy, orange, oxblood, periwinkle,
      poppy, purple, seafoam, sky, tan, teal, yellow
  }
}

@Table
package struct Attendee: Codable, Hashable, Identifiable {
  package let id: UUID
  package var name = ""
  package var syncUpID: SyncUp.ID
}

@Table
package struct Meeting: Codable, Hashable, Identifiable {
  package let id: UUID
  package var date: Date
  package var syncUpID: SyncUp.ID
  package var transcript = ""
}

package var migrator: DatabaseMigrator {
  var migrator = DatabaseMigrator()
  migrator.registerMigration("Create sync-ups") { db in
    try #sql(
      """
      CREATE TABLE "syncUps" (
        "id" INTEGER PRIMARY KEY AUTOINCREMENT,
        "seconds" INTEGER NOT NULL DEFAULT 300 CHECK ("seconds" BETWEEN 60 AND 86400),
        "theme" TEXT NOT NULL DEFAULT 'bubblegum',
        "title" TEXT NOT NULL CHECK (length("title") BETWEEN 1 AND 200)
      ) STRICT;
      CREATE TABLE "attendees" (
        "id" INTEGER PRIMARY KEY AUTOINCREMENT,
        "name" TEXT NOT NULL CHECK (length("name") BETWEEN 1 AND 200),
        "syncUpID" INTEGER NOT NULL REFERENCES "syncUps"("id") ON DELETE CASCADE
      ) STRICT;
      CREATE INDEX "attendees_syncUp" ON "attendees"("syncUpID");
      CREATE TABLE "meetings" (
        "id" INTEGER PRIMARY KEY AUTOINCREMENT,
        "date" TEXT NOT NULL,
        "syncUpID" INTEGER NOT NULL REFERENCES "syncUps"("id") ON DELETE CASCADE,
        "transcript" TEXT NOT NULL DEFAULT ''
      ) STRICT;
      CREATE INDEX "meetings_syncUp" ON "meetings"("syncUpID", "date");
      """
    )
    .execute(db)
  }
  // UUID keys, for sync: each table rebuilt the SQLite way, every row and relation kept
  // (each row keeps its old id as its rowid, so attachments named by number find it).
  migrator.registerMigration("Key sync-ups by UUID, for sync") { db in
    try #sql(
      """
      CREATE TABLE "new_syncUps" (
        "id" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid()),
        "seconds" INTEGER NOT NULL DEFAULT 300 CHECK ("seconds" BETWEEN 60 AND 86400),
        "theme" TEXT NOT NULL DEFAULT 'bubblegum',
        "title" TEXT NOT NULL CHECK (length("title") BETWEEN 1 AND 200)
      ) STRICT;
      INSERT INTO "new_syncUps" ("rowid", "id", "seconds", "theme", "title")
      SELECT "id", uuid(), "seconds", "theme", "title" FROM "syncUps";
      CREATE TABLE "new_attendees" (
        "id" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid()),
        "name" TEXT NOT NULL CHECK (length("name") BETWEEN 1 AND 200),
        "syncUpID" TEXT NOT NULL REFERENCES "new_syncUps"("id") ON DELETE CASCADE
      ) STRICT;
      INSERT INTO "new_attendees" ("rowid", "id", "name", "syncUpID")
      SELECT a."id", uuid(), a."name", s."id"
      FROM "attendees" a JOIN "new_syncUps" s ON s."rowid" = a."syncUpID";
      CREATE TABLE "new_meetings" (
        "id" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid()),
        "date" TEXT NOT NULL,
        "syncUpID" TEXT NOT NULL REFERENCES "new_syncUps"("id") ON DELETE CASCADE,
        "transcript" TEXT NOT NULL DEFAULT ''
      ) STRICT;
      INSERT INTO "new_meetings" ("rowid", "id", "date", "syncUpID", "transcript")
      SELECT m."id", uuid(), m."date", s."id", m."transcript"
      FROM "meetings" m JOIN "new_syncUps" s ON s."rowid" = m."syncUpID";
      DROP TABLE "attendees";
      DROP TABLE "meetings";
      DROP TABLE "syncUps";
      ALTER TABLE "new_syncUps" RENAME TO "syncUps";
      ALTER TABLE "new_attendees" RENAME TO "attendees";
      ALTER TABLE "new_meetings" RENAME TO "meetings";
      CREATE INDEX "attendees_syncUp" ON "attendees"("syncUpID");
      CREATE INDEX "meetings_syncUp" ON "meetings"("syncUpID", "date");
      """
    )
    .execute(db)
  }
  return migrator
}

/// The engine that keeps sync-ups, attendees and meetings the same on every device.
package func syncUpsSyncEngine(for database: any DatabaseWriter) throws -> SyncEngine {
  try SyncEngine(for: database, tables: SyncUp.self, Attendee.self, Meeting.self)
}

/// What the feature tells the hub: its tables (named by their types) and migrations.
package func syncUpsRegistration() throws -> PluginRegistration {
  try PluginRegistration(
    name: "syncups", version: "1.0", tables: [SyncUp.self, Attendee.self, Meeting.self],
    migrator: migrator)
}

/// A sync-up with its attendees and how many meetings it has had.
package struct SyncUpSummary: Codable, Hashable {
  package var syncUp: SyncUp
  package var attendees: [String]
  package var meetingCount: Int

  package var line: String {
    ShortID.of(syncUp.id)
      + "  \(syncUp.title.shownOnOneLine)  \(syncUp.seconds / 60) min  \(syncUp.theme.rawValue)  "
      + "\(attendees.joined(separator: ", "))  · \(meetingCount) meeting(s)"
  }
}

package enum Queries {
  package static func summaries(_ db: Database, only id: SyncUp.ID? = nil) throws -> [SyncUpSummary]
  {
    var query = SyncUp.where { _ in true }
    if let id { query = query.where { $0.id.eq(id) } }
    let rows = try query.order(by: \.title)
      .select { syncUp in
        (syncUp, Meeting.where { $0.syncUpID.eq(syncUp.id) }.count())
      }
      .fetchAll(db)
    let ids = rows.map(\.0.id)
    let attendees = try Attendee.where { $0.syncUpID.in(ids) }.order {
      ($0.name.collate(.nocase), $0.id)
    }.fetchAll(db)
    let names = Dictionary(grouping: attendees, by: \.syncUpID).mapValues { $0.map(\.name) }
    return rows.map {
      SyncUpSummary(syncUp: $0.0, attendees: names[$0.0.id] ?? [], meetingCount: $0.1)
    }
  }
}
