// The attachments feature's data work: functions of a `Database` (and of the image files),
// which the commands run through the hub and the tests run on a local database.
import Foundation
import HearthData
import HearthPlugin

package enum AttachmentActions {
  /// The exact name of table `name` (compared case-insensitively), which must exist.
  package static func ownerTable(_ name: String, _ db: Database) throws -> String {
    guard
      let table = try String.fetchOne(
        db,
        sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE",
        arguments: [name])
    else {
      throw CommandError.notFound("no table '\(name)'; `hearth query` can list them")
    }
    return table
  }

  /// The column that names a row of `table`: its one primary-key column (text, for a
  /// synced table: a UUID), else its rowid.
  static func ownerKey(_ table: String, _ db: Database) throws -> (name: String, isText: Bool) {
    let keys = try Row.fetchAll(
      db, sql: "SELECT name, upper(type) AS type FROM pragma_table_info(?) WHERE pk > 0",
      arguments: [table])
    guard keys.count == 1 else { return ("rowid", false) }
    return (try keys[0]["name"], (try keys[0]["type"] as String).contains("TEXT"))
  }

  /// The owner row `handle` names in `table` (which must exist): its key, or for a text key
  /// a unique prefix of it (as commands show ids); returns the table's exact name and the
  /// row's key as text.
  package static func requireOwner(_ table: String, _ handle: String, _ db: Database) throws
    -> (table: String, id: String)
  {
    let table = try ownerTable(table, db)
    let key = try ownerKey(table, db)
    let select = "SELECT CAST(\(quoteIdentifier(key.name)) AS TEXT) FROM \(quoteIdentifier(table))"
    if let exact = try String.fetchOne(
      db, sql: select + " WHERE \(quoteIdentifier(key.name)) = ?", arguments: [handle])
    {
      return (table, exact)
    }
    if key.isText, let pattern = try? ShortID.pattern(handle, what: "row") {
      let found = try String.fetchAll(
        db, sql: select + " WHERE \(quoteIdentifier(key.name)) LIKE ? LIMIT 2",
        arguments: [pattern])
      if found.count > 1 {
        throw CommandError.usage("'\(handle)' names more than one row of \(table); type more")
      }
      if let id = found.first { return (table, id) }
    }
    throw CommandError.notFound("\(table) has no row \(handle)")
  }

  /// What people call the rows `attachments` are on, by attachment: each owner's `title`,
  /// `name` or `text` column, whichever its table has first. An attachment whose table has
  /// none, or whose row is gone, has no entry. Each table's schema is read once.
  package static func ownerTitles(_ attachments: [Attachment], _ db: Database) -> [UUID: String] {
    var titles: [UUID: String] = [:]
    for (table, owned) in Dictionary(grouping: attachments, by: \.ownerTable) {
      guard
        let column = try? String.fetchOne(
          db,
          sql: """
            SELECT name FROM pragma_table_info(?) WHERE name IN ('title', 'name', 'text')
            ORDER BY CASE name WHEN 'title' THEN 0 WHEN 'name' THEN 1 ELSE 2 END LIMIT 1
            """, arguments: [table]),
        let key = try? ownerKey(table, db)
      else { continue }
      let select =
        "SELECT CAST(\(quoteIdentifier(column)) AS TEXT) FROM \(quoteIdentifier(table)) "
        + "WHERE CAST(\(quoteIdentifier(key.name)) AS TEXT) = ?"
      for attachment in owned {
        titles[attachment.id] = try? String.fetchOne(
          db, sql: select, arguments: [attachment.ownerID])
      }
    }
    return titles
  }

  /// The attachment a typed handle (a prefix of its id, as `list` shows) names.
  package static func find(_ handle: String, _ db: Database) throws -> Attachment {
    let id = try ShortID.resolve(handle, what: "attachment", in: Attachment.tableName, db)
    return try Attachment.find(id).fetchOne(db)!
  }

  /// Owners named by number (attached before their table was keyed by UUID) named by
  /// their new key: a table rebuilt with UUID keys keeps each row's old id as its rowid.
  package static func adoptRenumberedOwners(
    _ table: String, key: (name: String, isText: Bool), _ db: Database
  ) throws {
    guard key.isText else { return }
    let (t, k) = (quoteIdentifier(table), quoteIdentifier(key.name))
    try db.execute(
      sql: """
        UPDATE attachments SET ownerID = (
          SELECT \(k) FROM \(t) WHERE \(t).rowid = CAST(attachments.ownerID AS INTEGER))
        WHERE ownerTable = ? AND ownerID NOT GLOB '*[^0-9]*'
          AND NOT EXISTS (SELECT 1 FROM \(t) WHERE \(k) = attachments.ownerID)
          AND EXISTS (SELECT 1 FROM \(t) WHERE \(t).rowid = CAST(attachments.ownerID AS INTEGER))
        """, arguments: [table])
  }

  /// Removes the attachments whose owner row (or table) is gone; returns how many. Owners
  /// named by their old number are first named by their new key (`adoptRenumberedOwners`).
  package static func sweepOrphans(_ db: Database) throws -> Int {
    var removed = 0
    let tables = try Attachment.select(\.ownerTable).distinct().fetchAll(db)
    for table in tables {
      let exists =
        try Int.fetchOne(
          db, sql: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
          arguments: [table]
        )
        != nil
      if exists {
        let owner = try ownerKey(table, db)
        try adoptRenumberedOwners(table, key: owner, db)
        let key = quoteIdentifier(owner.name)
        try db.execute(
          sql: """
            DELETE FROM attachments WHERE ownerTable = ?
              AND ownerID NOT IN (SELECT CAST(\(key) AS TEXT) FROM \(quoteIdentifier(table)))
            """, arguments: [table])
      } else {
        try Attachment.where { $0.ownerTable.eq(table) }.delete().execute(db)
      }
      removed += db.changesCount
    }
    return removed
  }

  /// The digests of every image attachment.
  package static func imageDigests(_ db: Database) throws -> [String] {
    let digests = try Attachment.where { $0.kind.image.isNot(nil) }.select { $0.kind.image }
      .fetchAll(db)
    return digests.compactMap { $0 }
  }

  /// Removes image files no attachment names, older than `age` (a younger one may belong to
  /// an `add` whose row is not committed yet); returns how many.
  package static func collectFiles(
    _ store: ImageStore, _ database: any DatabaseReader, olderThan age: TimeInterval, now: Date
  ) throws -> Int {
    let named = Set(try database.read(imageDigests))
    var removed = 0
    for digest in store.digests() where !named.contains(digest) {
      let attributes = try? FileManager.default.attributesOfItem(atPath: store.url(digest).path)
      let modified = attributes?[.modificationDate] as? Date ?? .distantPast
      if now.timeIntervalSince(modified) >= age {
        store.remove(digest)
        removed += 1
      }
    }
    return removed
  }

  /// Attaches `kind` to the row `handle` names in `table` (see `requireOwner`).
  package static func attach(
    _ kind: Attachment.Kind, to table: String, _ handle: String, now: Date, _ db: Database
  ) throws -> Attachment {
    let owner = try requireOwner(table, handle, db)
    return try Attachment.insert {
      Attachment.Draft(ownerTable: owner.table, ownerID: owner.id, createdAt: now, kind: kind)
    }
    .returning(\.self).fetchOne(db)!
  }

  /// The attachments of `table` (of the row `handle` names), or all, oldest first.
  package static func list(table: String?, handle: String?, _ db: Database) throws
    -> [Attachment]
  {
    var query = Attachment.where { _ in true }
    if let table, let handle {
      let owner = try requireOwner(table, handle, db)
      query = query.where { $0.ownerTable.eq(owner.table) && $0.ownerID.eq(owner.id) }
    } else if let table {
      let name = try ownerTable(table, db)
      query = query.where { $0.ownerTable.eq(name) }
    }
    return try query.order { ($0.createdAt, $0.rowid) }.fetchAll(db)
  }

  /// Deletes the attachments the handles name; none when one of them names none.
  package static func delete(_ handles: [String], _ db: Database) throws -> [Attachment.ID] {
    let ids = try handles.map { try find($0, db).id }
    try Attachment.where { $0.id.in(ids) }.delete().execute(db)
    return ids
  }
}
