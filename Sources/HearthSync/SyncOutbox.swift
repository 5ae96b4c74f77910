import Foundation
import HearthSQLite
import HearthWire

/// What this hub owes the server: the rows with pending changes, as records to push (only
/// the changed columns, with their current values), and the acknowledgement that clears
/// what the server took.
public enum SyncOutbox {
  /// One row's push: its record and the pending changes it carries (as read).
  public struct Entry: Sendable {
    public var record: SyncRecord
    var pending: [String: String]
    /// `pending` as it was stored: unchanged since, the whole of it was pushed.
    var pendingText: String
    /// The zone it goes to: its root's share, or nil (the private zone).
    public var zone: String?
  }

  /// Up to `limit` rows with pending changes (read in one snapshot), in the order of their
  /// table and key, after `after` when given.
  public static func batch(
    limit: Int, after: (table: String, key: String)? = nil, _ db: Database
  ) throws -> [Entry] {
    let tables = Dictionary(
      try SyncStore.syncedTables(db).map { ($0.name.lowercased(), $0) }
    ) { first, _ in first }
    let shares = try SyncShares.all(db)
    let selects = tables.mapValues { table in
      "SELECT * FROM main.\(quoteIdentifier(table.name)) WHERE \(quoteIdentifier(table.primaryKey)) = ?"
    }
    let rows = try Row.fetchAll(
      db,
      sql: "SELECT tbl, pk, pending FROM \(SyncStore.rows) WHERE pending != '{}' "
        + "AND (tbl, pk) > (?, ?) ORDER BY tbl, pk LIMIT ?",
      arguments: [after?.table ?? "", after?.key ?? "", limit])
    var entries: [Entry] = []
    for row in rows {
      let (name, key): (String, String) = (try row["tbl"], try row["pk"])
      let pendingText: String = try row["pending"]
      let pending = try JSONText.strings(pendingText)
      var record = SyncRecord(
        type: name, name: key, created: pending[SyncRow.createdKey],
        deleted: pending[SyncRow.deletedKey])
      if let table = tables[name.lowercased()], let select = selects[name.lowercased()],
        let values = try Row.fetchOne(db, sql: select, arguments: [key])
      {
        for column in table.columns {
          guard let time = pending[column], values.hasColumn(column) else { continue }
          record.fields[column] = WireValue(try values[column] as DatabaseValue)
          record.times[column] = time
        }
      }
      let zone = try SyncShares.zone(of: name, key, shares: shares, tables: tables, db)
      entries.append(Entry(record: record, pending: pending, pendingText: pendingText, zone: zone))
    }
    return entries
  }

  /// After the server took `entries`: each row's pending changes less those it carried
  /// (a change made since, of the same column, stays pending); their times past `bound`
  /// (the push's, when the server said it) read as the bound, as every hub reads them.
  public static func acknowledge(_ entries: [Entry], bound: Int64? = nil, _ db: Database) throws {
    for entry in entries {
      if let bound {
        let clamped = entry.record.clamped(to: bound)
        if clamped != entry.record { try clamp(entry.record, to: clamped, db) }
      }
      // Usually nothing changed the row since it was read: all of it was pushed.
      try db.execute(
        sql: "UPDATE \(SyncStore.rows) SET pending = '{}', zone = ? "
          + "WHERE tbl = ? AND pk = ? AND pending = ?",
        arguments: [entry.zone, entry.record.type, entry.record.name, entry.pendingText])
      if db.changesCount > 0 { continue }
      var row = try SyncRow.fetch(entry.record.type, entry.record.name, db)
      for (key, time) in entry.pending where row.pending[key] == time { row.pending[key] = nil }
      try db.execute(
        sql: "UPDATE \(SyncStore.rows) SET pending = ?, zone = ? WHERE tbl = ? AND pk = ?",
        arguments: [JSONText.object(row.pending), entry.zone, row.table, row.key])
    }
  }

  /// The times of `record` this hub pushed still the row's here, as the server's bound made
  /// them (`clamped`): a hub whose clock runs ahead of the server's reads its own edits as
  /// every other hub does.
  private static func clamp(_ record: SyncRecord, to clamped: SyncRecord, _ db: Database) throws {
    var row = try SyncRow.fetch(record.type, record.name, db)
    for (column, time) in record.times where row.times[column] == time {
      row.times[column] = clamped.times[column]
    }
    if let created = record.created, row.created == created { row.created = clamped.created }
    if let deleted = record.deleted, row.deleted == deleted { row.deleted = clamped.deleted }
    try row.save(db)
  }
}
