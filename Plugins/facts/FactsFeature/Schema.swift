// The facts feature's data: its tables, their migrations and what it registers with the hub.
import Foundation
import HearthData
import HearthPlugin

@Table
package struct Fact: Codable, Hashable, Identifiable {
  package let id: UUID
  package var number: Int
  package var body = ""
  package var createdAt: Date
}

/// The fact of a day, chosen by the `run` duty.
@Table("dailyFacts")
package struct DailyFact: Codable, Hashable {
  @Column(primaryKey: true)
  package var day: String
  package var factID: Fact.ID
}

package var migrator: DatabaseMigrator {
  var migrator = DatabaseMigrator()
  migrator.registerMigration("Create facts") { db in
    try #sql(
      """
      CREATE TABLE "facts" (
        "id" INTEGER PRIMARY KEY AUTOINCREMENT,
        "number" INTEGER NOT NULL,
        "body" TEXT NOT NULL,
        "createdAt" TEXT NOT NULL
      ) STRICT;
      CREATE INDEX "facts_number" ON "facts"("number");
      CREATE TABLE "dailyFacts" (
        "day" TEXT PRIMARY KEY NOT NULL,
        "factID" INTEGER NOT NULL REFERENCES "facts"("id") ON DELETE CASCADE
      ) STRICT;
      """
    )
    .execute(db)
  }
  // UUID keys, for sync: each table rebuilt the SQLite way, every row and relation kept
  // (each fact keeps its old id as its rowid, so attachments named by number find it).
  migrator.registerMigration("Key facts by UUID, for sync") { db in
    try #sql(
      """
      CREATE TABLE "new_facts" (
        "id" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid()),
        "number" INTEGER NOT NULL,
        "body" TEXT NOT NULL,
        "createdAt" TEXT NOT NULL
      ) STRICT;
      INSERT INTO "new_facts" ("rowid", "id", "number", "body", "createdAt")
      SELECT "id", uuid(), "number", "body", "createdAt" FROM "facts";
      CREATE TABLE "new_dailyFacts" (
        "day" TEXT PRIMARY KEY NOT NULL,
        "factID" TEXT NOT NULL REFERENCES "new_facts"("id") ON DELETE CASCADE
      ) STRICT;
      INSERT INTO "new_dailyFacts" ("day", "factID")
      SELECT d."day", f."id" FROM "dailyFacts" d JOIN "new_facts" f ON f."rowid" = d."factID";
      DROP TABLE "dailyFacts";
      DROP TABLE "facts";
      ALTER TABLE "new_facts" RENAME TO "facts";
      ALTER TABLE "new_dailyFacts" RENAME TO "dailyFacts";
      CREATE INDEX "facts_number" ON "facts"("number");
      CREATE INDEX "dailyFacts_fact" ON "dailyFacts"("factID");
      """
    )
    .execute(db)
  }
  return migrator
}

/// The seeds' `Facts` request: the facts matching a search, newest first, with the search's
/// count and the total.
package struct Facts: FetchKeyRequest {
  package var query = ""
  package struct Value: Codable, Equatable {
    package var facts: [Fact] = []
    package var searchCount = 0
    package var totalCount = 0
  }

  package init(query: String = "") { self.query = query }

  package func fetch(_ db: Database) throws -> Value {
    let search =
      Fact
      .where { $0.body.contains(query) }
      .order { ($0.createdAt.desc(), $0.rowid.desc()) }
    return try Value(
      facts: search.fetchAll(db),
      searchCount: search.fetchCount(db),
      totalCount: Fact.fetchCount(db)
    )
  }
}

/// The engine that keeps the facts, and each day's pick, the same on every device.
package func factsSyncEngine(for database: any DatabaseWriter) throws -> SyncEngine {
  try SyncEngine(for: database, tables: Fact.self, DailyFact.self)
}

/// What the feature tells the hub: its tables (named by their types) and migrations.
package func factsRegistration() throws -> PluginRegistration {
  try PluginRegistration(
    name: "facts", version: "1.0", tables: [Fact.self, DailyFact.self], migrator: migrator)
}
