import Foundation
import HearthSQLite
import HearthWire

/// The shares a hub syncs, and which zone each synced row belongs to.
///
/// - `hearth_sync_shares(zone, share, cursor)`: each share this hub's person owns or was
///   invited to (`share`: the server's `SyncShare` as JSON), and where pulling its zone has
///   come to.
/// - `hearth_sync_rows.zone`: the zone a row was last pushed to or pulled from; NULL is
///   the private zone. `hearth_sync_held.zone`: the zone a held record came from.
///
/// A row belongs to the share of its root: the record its single foreign keys lead up to
/// (the reference's rule: a table with more than one foreign key is not shared, and stays
/// private), or a reference its plugin declared (`SyncReferences`). A deleted row, whose
/// keys are gone, keeps the zone it had.
public enum SyncShares {
  public static let table = "hearth_sync_shares"

  static let schema = """
    CREATE TABLE IF NOT EXISTS hearth_sync_shares (
      zone TEXT PRIMARY KEY NOT NULL, share TEXT NOT NULL,
      cursor TEXT NOT NULL DEFAULT '{"seq":0,"type":"","name":""}') WITHOUT ROWID;
    """

  /// Creates the table, and `hearth_sync_rows.zone` in a database made before sharing.
  static func prepare(_ db: Database) throws {
    try db.execute(sql: schema)
    for table in [SyncStore.rows, SyncStore.held] {
      let columns = try String.fetchAll(
        db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
      if !columns.contains("zone") {
        try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN zone TEXT")
      }
    }
  }

  /// Every share this hub syncs, by zone.
  public static func all(_ db: Database) throws -> [SyncShare] {
    let decoder = JSONDecoder()
    return try String.fetchAll(db, sql: "SELECT share FROM \(table) ORDER BY zone").map {
      try decoder.decode(SyncShare.self, from: Data($0.utf8))
    }
  }

  /// Records `share` (its pulling cursor kept when it is known already).
  public static func save(_ share: SyncShare, _ db: Database) throws {
    try db.execute(
      sql: """
        INSERT INTO \(table) (zone, share) VALUES (?, ?)
        ON CONFLICT (zone) DO UPDATE SET share = excluded.share
        """, arguments: [share.zone, try JSONText.encode(share)])
  }

  public static func cursor(of zone: String, _ db: Database) throws -> SyncCursor {
    guard
      let text = try String.fetchOne(
        db, sql: "SELECT cursor FROM \(table) WHERE zone = ?", arguments: [zone])
    else { return .start }
    return try JSONDecoder().decode(SyncCursor.self, from: Data(text.utf8))
  }

  public static func setCursor(_ cursor: SyncCursor, of zone: String, _ db: Database) throws {
    try db.execute(
      sql: "UPDATE \(table) SET cursor = ? WHERE zone = ?",
      arguments: [try JSONText.encode(cursor), zone])
  }

  /// Whether some share is one this hub may only read (its writes are then guarded).
  static func hasReadOnly(_ db: Database) throws -> Bool {
    try all(db).contains { !$0.isWritable }
  }

  /// The zone row `key` of `table` belongs to now: its root's share, or nil (private).
  static func zone(
    of table: String, _ key: String, shares: [SyncShare], tables: [String: SyncedTable],
    _ db: Database
  ) throws -> String? {
    if shares.isEmpty { return nil }
    var (current, currentKey) = (table, key)
    for _ in 0..<32 {
      if let share = shares.first(where: { $0.isRoot(current, currentKey) }) {
        return share.zone
      }
      guard let synced = tables[current.lowercased()], let link = synced.link else { return nil }
      let named = link.tableColumn.map { "\(quoteIdentifier($0)) AS parentTable" } ?? "NULL"
      let row = try Row.fetchOne(
        db,
        sql: "SELECT \(quoteIdentifier(link.keyColumn)) AS parentKey, \(named) "
          + "FROM main.\(quoteIdentifier(synced.name)) "
          + "WHERE \(quoteIdentifier(synced.primaryKey)) = ?", arguments: [currentKey])
      guard let row else {
        // Gone (deleted): the zone it had.
        return try storedZone(of: table, key, db)
      }
      let value: DatabaseValue = try row["parentKey"]
      guard !value.isNull, let parent = link.parentTable(named: try row[1] as String?) else {
        return nil
      }
      (current, currentKey) = (parent, SyncCapture.keyText(value))
    }
    return nil
  }

  static func storedZone(of table: String, _ key: String, _ db: Database) throws -> String? {
    try String.fetchOne(
      db, sql: "SELECT zone FROM \(SyncStore.rows) WHERE tbl = ? AND pk = ?",
      arguments: [table, key])
  }

  /// Root record (`type`, `key`) and every row its single-parent foreign keys (or declared
  /// references) lead to it from, as (table, key): what sharing it shares.
  public static func tree(
    type: String, key: String, tables: [SyncedTable], _ db: Database
  ) throws -> [(type: String, name: String)] {
    var found: [(type: String, name: String)] = [(type, key)]
    var frontier: [(type: String, name: String)] = [(type, key)]
    while let (parentType, parentKey) = frontier.popLast() {
      for child in tables {
        guard let link = child.link, link.mayPointTo(parentType) else { continue }
        let ofTable = link.tableColumn.map { " AND \(quoteIdentifier($0)) = ?" } ?? ""
        let keys = try DatabaseValue.fetchAll(
          db,
          sql:
            "SELECT \(quoteIdentifier(child.primaryKey)) FROM main.\(quoteIdentifier(child.name)) "
            + "WHERE \(quoteIdentifier(link.keyColumn)) = ?\(ofTable)",
          arguments: StatementArguments(
            link.tableColumn == nil ? [parentKey] : [parentKey, parentType])
        ).map(SyncCapture.keyText)
        // A table whose foreign key points to itself is walked once per row.
        let rows = keys.map { (type: child.name, name: $0) }
          .filter { row in !found.contains { $0 == row } }
        found += rows
        frontier += rows
      }
    }
    return found
  }

  /// Sets the zone of `rows` (nil: private).
  static func assign(_ rows: [(type: String, name: String)], to zone: String?, _ db: Database)
    throws
  {
    for row in rows {
      try db.execute(
        sql: "UPDATE \(SyncStore.rows) SET zone = ? WHERE tbl = ? AND pk = ?",
        arguments: [zone, row.type, row.name])
    }
  }

  /// Replaces the shares with the server's list: a share that went away is released — the
  /// owner's rows go back to the private zone; a member's copy is deleted here, without a
  /// word to the server (the capture and the guards off). Returns the zones that went.
  @discardableResult
  public static func refresh(
    with shares: [SyncShare], capture: SyncCapture, _ db: Database
  ) throws -> [String] {
    let known = try all(db)
    let current = Set(shares.map(\.zone))
    let gone = known.filter { !current.contains($0.zone) }
    for share in gone {
      if share.isOwner {
        try db.execute(
          sql: "UPDATE \(SyncStore.rows) SET zone = NULL WHERE zone = ?", arguments: [share.zone])
      } else {
        try dropCopy(of: share.zone, capture: capture, db)
      }
      try db.execute(sql: "DELETE FROM \(table) WHERE zone = ?", arguments: [share.zone])
    }
    for share in shares where !known.contains(share) { try save(share, db) }
    return gone.map(\.zone)
  }

  /// Deletes this hub's copy of the rows of `zone` (a share it was a member of), children
  /// first, and their sync state.
  static func dropCopy(of zone: String, capture: SyncCapture, _ db: Database) throws {
    let tables = try SyncStore.syncedTables(db)
    try capture.applying {
      try capture.mutingAll {
        for table in tables.reversed() {
          try db.execute(
            sql: """
              DELETE FROM main.\(quoteIdentifier(table.name))
              WHERE CAST(\(quoteIdentifier(table.primaryKey)) AS TEXT) IN (
                SELECT pk FROM \(SyncStore.rows) WHERE tbl = ? AND zone = ?)
              """, arguments: [table.name, zone])
        }
      }
    }
    try db.execute(sql: "DELETE FROM \(SyncStore.rows) WHERE zone = ?", arguments: [zone])
  }
}
