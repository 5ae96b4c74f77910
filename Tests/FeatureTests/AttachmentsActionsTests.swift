import Foundation
import HearthData
import HearthDataTestSupport
import HearthPlugin
import Testing

@testable import AttachmentsFeature

@Suite struct AttachmentsActionsTests {
  let database: DatabaseQueue
  let now = Date(timeIntervalSince1970: 1_000_000)

  init() throws {
    database = try DatabaseQueue()
    try migrator.migrate(database)
    // Another feature's table, whose rows the attachments belong to.
    try database.write { db in
      try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
      try db.execute(sql: "INSERT INTO notes (id, text) VALUES (1, 'a'), (2, 'b')")
    }
  }

  @Test func attachmentsBelongToRowsThatExist() throws {
    let link = try database.write { db in
      try AttachmentActions.attach(
        .link(URL(string: "https://example.com")!), to: "NOTES", "1", now: now, db)
    }
    #expect(link.ownerTable == "notes")  // the table's own spelling
    _ = try database.write {
      try AttachmentActions.attach(.note("hello"), to: "notes", "2", now: now, $0)
    }
    let missing = #expect(throws: CommandError.self) {
      try database.write {
        try AttachmentActions.attach(.note("x"), to: "notes", "9", now: now, $0)
      }
    }
    #expect(missing?.message == "notes has no row 9")
    try database.read { db in
      #expect(
        try AttachmentActions.list(table: "notes", handle: "2", db).map(\.kind) == [.note("hello")])
      try assertQuery(
        Attachment.order { $0.rowid }.select { ($0.ownerID, $0.kind.note) }, in: db,
        rows: "1 | NULL\n2 | hello")
    }
  }

  @Test func sweepingRemovesTheAttachmentsOfDeletedRowsAndTables() throws {
    try database.write { db in
      _ = try AttachmentActions.attach(.note("one"), to: "notes", "1", now: now, db)
      _ = try AttachmentActions.attach(.note("two"), to: "notes", "2", now: now, db)
      try db.execute(sql: "DELETE FROM notes WHERE id = 1")
    }
    #expect(try database.write(AttachmentActions.sweepOrphans) == 1)
    try database.write { try $0.execute(sql: "DROP TABLE notes") }
    #expect(try database.write(AttachmentActions.sweepOrphans) == 1)
    #expect(try database.read { try Attachment.fetchCount($0) } == 0)
  }

  @Test func filesNoAttachmentNamesAreCollectedOnceOldEnough() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("hearth-attachments-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = ImageStore(databasePath: directory.appendingPathComponent("hub.sqlite").path)
    let kept = try store.store(Data([0x89, 0x50, 0x4E, 0x47, 1]))
    let orphan = try store.store(Data([0x89, 0x50, 0x4E, 0x47, 2]))
    _ = try database.write {
      try AttachmentActions.attach(.image(kept), to: "notes", "1", now: now, $0)
    }
    // Young files are left (their row may not be committed yet); old ones go.
    #expect(try AttachmentActions.collectFiles(store, database, olderThan: 3600, now: Date()) == 0)
    let later = Date().addingTimeInterval(7200)
    #expect(try AttachmentActions.collectFiles(store, database, olderThan: 3600, now: later) == 1)
    #expect(store.digests() == [kept])
    #expect(try !store.verify(orphan))
  }

  /// A table keyed by UUID, rows named by a prefix; attachments made before it was (by
  /// number, under the first migration) follow its rows to their new keys.
  @Test func ownersKeyedByUUIDAreNamedByPrefixAndOldNumbersAreAdopted() throws {
    let old = try DatabaseQueue()
    try migrator.migrate(old, upTo: "Create attachments")
    try old.write { db in
      try db.execute(sql: "CREATE TABLE cards (id INTEGER PRIMARY KEY, title TEXT)")
      try db.execute(sql: "INSERT INTO cards (id, title) VALUES (7, 'seven'), (8, 'eight')")
      try db.execute(
        sql: """
          INSERT INTO attachments (ownerTable, ownerID, createdAt, note)
          VALUES ('cards', 7, '2026-01-01 00:00:00.000', 'on seven'),
                 ('cards', 8, '2026-01-01 00:00:01.000', 'on eight')
          """)
    }
    try migrator.migrate(old)
    // The owner feature's own migration: UUID keys, old ids kept as rowids.
    try old.write { db in
      try db.execute(
        sql: """
          CREATE TABLE new_cards (id TEXT PRIMARY KEY NOT NULL, title TEXT);
          INSERT INTO new_cards (rowid, id, title) SELECT id, uuid(), title FROM cards;
          DROP TABLE cards;
          ALTER TABLE new_cards RENAME TO cards;
          DELETE FROM cards WHERE title = 'eight';
          """)
    }
    #expect(try old.write(AttachmentActions.sweepOrphans) == 1)  // eight's went with it
    let seven = try #require(
      try old.read { try String.fetchOne($0, sql: "SELECT id FROM cards WHERE title = 'seven'") })
    try old.read { db in
      let kept = try AttachmentActions.list(table: "cards", handle: String(seven.prefix(8)), db)
      #expect(kept.map(\.kind) == [.note("on seven")])
      #expect(kept.map(\.ownerID) == [seven])
    }
    let more = try old.write { db in
      try AttachmentActions.attach(
        .note("again"), to: "cards", String(seven.prefix(5)), now: now, db)
    }
    #expect(more.ownerID == seven)
    let wrong = #expect(throws: CommandError.self) {
      try old.write { try AttachmentActions.attach(.note("x"), to: "cards", "zz", now: now, $0) }
    }
    #expect(wrong?.exitCode == .notFound)
  }
}
