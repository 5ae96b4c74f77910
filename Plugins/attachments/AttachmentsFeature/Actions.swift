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

  package static func requireOwner(_ table: String, _ id: Int, _ db: Database) throws -> String {
    let table = try ownerTable(table, db)
    guard
      try #sql("SELECT 1 FROM \(quote: table) WHERE rowid = \(id)", as: Int.self).fetchOne(db)
        != nil
    else { throw CommandError.notFound("\(table) has no row \(id)") }
    return table
  }

  package static func find(_ id: Int, _ db: Database) throws -> Attachment {
    guard let attachment = try Attachment.find(id).fetchOne(db) else {
      throw CommandError.notFound("no attachment \(id); `hearth-attachments list` shows them")
    }
    return attachment
  }

  /// Removes the attachments whose owner row (or table) is gone; returns how many.
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
        try #sql(
          "DELETE FROM attachments WHERE ownerTable = \(table) AND ownerID NOT IN (SELECT rowid FROM \(quote: table))"
        )
        .execute(db)
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

  /// Attaches `kind` to row `id` of `table`, which must exist.
  package static func attach(
    _ kind: Attachment.Kind, to table: String, _ id: Int, now: Date, _ db: Database
  ) throws -> Attachment {
    let owner = try requireOwner(table, id, db)
    return try Attachment.insert {
      Attachment.Draft(ownerTable: owner, ownerID: id, createdAt: now, kind: kind)
    }
    .returning(\.self).fetchOne(db)!
  }

  /// The attachments of `table` (of its row `id`), or all, in the order they were made.
  package static func list(table: String?, id: Int?, _ db: Database) throws -> [Attachment] {
    var query = Attachment.where { _ in true }
    if let table {
      let name = try ownerTable(table, db)
      query = query.where { $0.ownerTable.eq(name) }
    }
    if let id { query = query.where { $0.ownerID.eq(id) } }
    return try query.order(by: \.id).fetchAll(db)
  }

  /// Deletes the attachments `ids`; none when one of them does not exist.
  package static func delete(_ ids: [Int], _ db: Database) throws {
    for id in ids { _ = try find(id, db) }
    try Attachment.where { $0.id.in(ids) }.delete().execute(db)
  }
}
