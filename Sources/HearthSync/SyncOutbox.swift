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
    let rows = try Row.fetchAll(
      db,
      sql: "SELECT tbl, pk, pending FROM \(SyncStore.rows) WHERE pending != '{}' "
        + "AND (tbl, pk) > (?, ?) ORDER BY tbl, pk LIMIT ?",
      arguments: [after?.table ?? "", after?.key ?? "", limit]
    ).map { row in
      (
        table: try row["tbl"] as String, key: try row["pk"] as String,
        pending: try row["pending"] as String
      )
    }
    // Each table's rows of the batch in one query (their keys are text: `SyncedTable`).
    var values: [String: [String: Row]] = [:]
    for (name, keys) in Dictionary(grouping: rows, by: \.table) {
      guard let table = tables[name.lowercased()] else { continue }
      var found: [String: Row] = [:]
      for row in try Row.fetchAll(
        db,
        sql: "SELECT * FROM main.\(quoteIdentifier(table.name)) "
          + "WHERE \(quoteIdentifier(table.primaryKey)) IN (SELECT value FROM json_each(?))",
        arguments: [try JSONText.encode(keys.map(\.key))])
      {
        found[SyncCapture.keyText(try row[table.primaryKey] as DatabaseValue)] = row
      }
      values[name] = found
    }
    var entries: [Entry] = []
    for (name, key, pendingText) in rows {
      let pending = try JSONText.strings(pendingText)
      var record = SyncRecord(
        type: name, name: key, created: pending[SyncRow.createdKey],
        deleted: pending[SyncRow.deletedKey])
      if let table = tables[name.lowercased()], let values = values[name]?[key] {
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
    if let bound {
      for entry in entries {
        let clamped = entry.record.clamped(to: bound)
        if clamped != entry.record { try clamp(entry.record, to: clamped, db) }
      }
    }
    // Usually nothing changed the rows since they were read, so all of each was pushed:
    // a push's rows (of one zone) cleared in one statement.
    let zones = Set(entries.map(\.zone))
    if zones.count == 1, let zone = zones.first {
      let list = try JSONText.encode(
        entries.map { [$0.record.type, $0.record.name, $0.pendingText] })
      try db.execute(
        sql: "UPDATE \(SyncStore.rows) SET pending = '{}', zone = ? WHERE (tbl, pk, pending) IN "
          + "(SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?))",
        arguments: [zone, list])
      if db.changesCount == entries.count { return }
    }
    for entry in entries {
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
