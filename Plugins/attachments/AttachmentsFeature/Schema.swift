import Foundation
import HearthData
import HearthPlugin
import HearthWire

// Links, notes and images attached to any row of any feature (the owner: a table and the
// row's primary key, as text: a UUID for the features' synced tables), stored with the
// seeds' single-table inheritance: one nullable column per case.
//
// Image bytes are kept content-addressed on disk, beside the database
// (`attachments/ab/abcdef…`, named by their SHA-256), not in the database: an image written
// once is never copied through the WAL, the hub's messages or every reader's page cache,
// and the same picture attached twice is stored once. The row holds the digest; `verify`
// re-hashes the files, and `run` collects the files no row names any more.

@Table
package struct Attachment: Codable, Hashable, Identifiable {
  package let id: UUID
  package var ownerTable: String
  /// The owner row's primary key as text (its rowid for a table without a one-column key).
  package var ownerID: String
  package var createdAt: Date
  package let kind: Kind

  @CasePathable @Selection @dynamicMemberLookup
  package enum Kind: Hashable, Codable {
    case link(URL)
    case note(String)
    /// The SHA-256 of the image's bytes, in hex: the name of its file.
    case image(String)
  }
}

/// The engine that keeps the attachments' rows the same on every device of the account,
/// and their image files with them (`image` names a file of the plugin's directory). An
/// attachment names its owner row by table and key, without a foreign key: declared, it
/// goes with its owner, into a share with it.
package func attachmentsSyncEngine(for database: any DatabaseWriter) throws -> SyncEngine {
  try SyncEngine(
    for: database, tables: Attachment.self, fileColumns: ["attachments.image"],
    references: [.column("attachments.ownerID", referencesTableNamedIn: "ownerTable")])
}

/// What the feature tells the hub: its table (named by its type) and migrations.
package func attachmentsRegistration() throws -> PluginRegistration {
  try PluginRegistration(
    name: "attachments", version: "1.0", tables: [Attachment.self], migrator: migrator)
}

package var migrator: DatabaseMigrator {
  var migrator = DatabaseMigrator()
  migrator.registerMigration("Create attachments") { db in
    try #sql(
      """
      CREATE TABLE "attachments" (
        "id" INTEGER PRIMARY KEY AUTOINCREMENT,
        "ownerTable" TEXT NOT NULL,
        "ownerID" INTEGER NOT NULL,
        "createdAt" TEXT NOT NULL,
        "link" TEXT,
        "note" TEXT,
        "image" TEXT CHECK ("image" IS NULL OR length("image") = 64),
        CHECK (("link" IS NOT NULL) + ("note" IS NOT NULL) + ("image" IS NOT NULL) = 1)
      ) STRICT;
      CREATE INDEX "attachments_owner" ON "attachments"("ownerTable", "ownerID");
      CREATE INDEX "attachments_image" ON "attachments"("image") WHERE "image" IS NOT NULL;
      """
    )
    .execute(db)
  }
  // UUID keys, for sync; the owner's key as text. An owner named by number whose table is
  // now keyed by UUID (the other features' own migration) is found again by the `run` duty
  // (`AttachmentActions.adoptRenumberedOwners`): those tables keep old ids as rowids.
  migrator.registerMigration("Key attachments by UUID, for sync") { db in
    try #sql(
      """
      CREATE TABLE "new_attachments" (
        "id" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid()),
        "ownerTable" TEXT NOT NULL,
        "ownerID" TEXT NOT NULL,
        "createdAt" TEXT NOT NULL,
        "link" TEXT,
        "note" TEXT,
        "image" TEXT CHECK ("image" IS NULL OR length("image") = 64),
        CHECK (("link" IS NOT NULL) + ("note" IS NOT NULL) + ("image" IS NOT NULL) = 1)
      ) STRICT;
      INSERT INTO "new_attachments" ("rowid", "id", "ownerTable", "ownerID", "createdAt",
        "link", "note", "image")
      SELECT "id", uuid(), "ownerTable", CAST("ownerID" AS TEXT), "createdAt", "link", "note",
        "image"
      FROM "attachments";
      DROP TABLE "attachments";
      ALTER TABLE "new_attachments" RENAME TO "attachments";
      CREATE INDEX "attachments_owner" ON "attachments"("ownerTable", "ownerID");
      CREATE INDEX "attachments_image" ON "attachments"("image") WHERE "image" IS NOT NULL;
      """
    )
    .execute(db)
  }
  return migrator
}

/// Where image files live: the plugin's own directory (`plugins/attachments/` beside the
/// hub's database), the one its unit may write. Images an older version kept in
/// `attachments/` are moved there the first time the directory is wanted (where this process
/// may not move them, they are used where they are).
package struct ImageStore {
  let directory: URL

  init(databasePath: String) {
    let paths = HubPaths(databasePath: databasePath, runtimeDirectory: "")
    let own = URL(fileURLWithPath: paths.filesDirectory(ofPlugin: "attachments"))
    let older = URL(fileURLWithPath: databasePath).deletingLastPathComponent()
      .appendingPathComponent("attachments")
    if FileManager.default.fileExists(atPath: older.path),
      !FileManager.default.fileExists(atPath: own.path)
    {
      try? FileManager.default.createDirectory(
        at: own.deletingLastPathComponent(), withIntermediateDirectories: true)
      directory = rename(older.path, own.path) == 0 ? own : older
    } else {
      directory = own
    }
  }

  func url(_ digest: String) -> URL {
    directory.appendingPathComponent(String(digest.prefix(2))).appendingPathComponent(digest)
  }

  /// Stores `data` under its digest (once: the same bytes are the same file) and returns the
  /// digest. Written whole and durably (`DurableFile`), so a file under a digest is
  /// complete, and stays so through a crash once the row naming it is written.
  func store(_ data: Data) throws -> String {
    let digest = SHA256.hex(data)
    let target = url(digest)
    if FileManager.default.fileExists(atPath: target.path), (try? verify(digest)) == true {
      return digest
    }
    do {
      try DurableFile.write(data, to: target)
    } catch {
      throw CommandError(
        "cannot store the image in \(directory.path): \(error.localizedDescription)")
    }
    return digest
  }

  /// Whether the file of `digest` is there and still hashes to it.
  func verify(_ digest: String) throws -> Bool {
    guard let data = FileManager.default.contents(atPath: url(digest).path) else { return false }
    return SHA256.hex(data) == digest
  }

  /// Every stored digest.
  func digests() -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: directory.path)
    var found: [String] = []
    while let path = enumerator?.nextObject() as? String {
      let name = (path as NSString).lastPathComponent
      if name.count == 64, name.allSatisfy(\.isHexDigit) { found.append(name) }
    }
    return found
  }

  func remove(_ digest: String) { try? FileManager.default.removeItem(at: url(digest)) }
}

/// The image formats accepted, by their first bytes.
func imageFormat(_ data: Data) -> String? {
  let bytes = [UInt8](data.prefix(12))
  func starts(_ prefix: [UInt8]) -> Bool { bytes.starts(with: prefix) }
  if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "png" }
  if starts([0xFF, 0xD8, 0xFF]) { return "jpeg" }
  if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "gif" }
  if bytes.count >= 12, starts(Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
    return "webp"
  }
  return nil
}
