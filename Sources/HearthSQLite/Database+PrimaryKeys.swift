import CSQLite

// The primary key of each changed row, for tables whose key is not the rowid (a text UUID,
// a composite key): what the change feed names rows by when the rowid is not their name
// elsewhere (another device's copy of the table). Recorded with the columns, when the
// connection `recordsUpdatedColumns`.
extension Database {
  /// Records the key of the row the pre-update hook reports: its new values for an insert
  /// and an update, its old ones for a delete (an update that moves the rowid is a delete of
  /// the old row and an insert of the new one, as the tracker counts it).
  func recordPrimaryKey(
    _ connection: OpaquePointer, operation: Int32, table: String, oldKey: Int64, newKey: Int64
  ) {
    let columns = keyColumns(of: table)
    guard !columns.isEmpty else { return }
    let read = { (side: Side) in Self.values(connection, columns, side) }
    switch operation {
    case SQLITE_INSERT:
      changeTracker.recordKey(read(.new), table: table, rowID: newKey)
    case SQLITE_DELETE:
      changeTracker.recordKey(read(.old), table: table, rowID: oldKey)
    case SQLITE_UPDATE:
      if oldKey != newKey { changeTracker.recordKey(read(.old), table: table, rowID: oldKey) }
      changeTracker.recordKey(read(.new), table: table, rowID: newKey)
    default:
      break
    }
  }

  private enum Side { case old, new }

  private static func values(_ connection: OpaquePointer, _ columns: [Int32], _ side: Side)
    -> [DatabaseValue]
  {
    columns.map { index in
      var value: OpaquePointer?
      let code =
        side == .old
        ? sqlite3_preupdate_old(connection, index, &value)
        : sqlite3_preupdate_new(connection, index, &value)
      guard code == SQLITE_OK, let value else { return .null }
      return Row.value(value)
    }
  }

  /// The hook's indexes of `table`'s primary-key columns, in key order; empty when the rowid
  /// is the key (an `INTEGER PRIMARY KEY`, or no declared key). Read once per schema, from
  /// inside the hook when first needed, as SQLite's own session extension reads a table's
  /// layout from its pre-update hook.
  func keyColumns(of table: String) -> [Int32] {
    if let known = primaryKeyColumns[table] { return known }
    var rows: [(position: Int32, type: String, keyPosition: Int32)] = []
    isReadingOwnSchema = true
    defer { isReadingOwnSchema = false }
    var statement: OpaquePointer?
    let sql = "SELECT cid, type, pk FROM pragma_table_xinfo(?1) ORDER BY cid"
    if sqlite3_prepare_v2(sqliteConnection, sql, -1, &statement, nil) == SQLITE_OK {
      hearth_sqlite3_bind_text_transient(statement, 1, table, -1)
      while sqlite3_step(statement) == SQLITE_ROW {
        let type = sqlite3_column_text(statement, 1).map { String(cString: $0) } ?? ""
        rows.append((sqlite3_column_int(statement, 0), type, sqlite3_column_int(statement, 2)))
      }
    }
    sqlite3_finalize(statement)
    let key = rows.filter { $0.keyPosition > 0 }.sorted { $0.keyPosition < $1.keyPosition }
    let isRowID = key.isEmpty || (key.count == 1 && key[0].type.uppercased() == "INTEGER")
    let columns = isRowID ? [] : key.map(\.position)
    primaryKeyColumns[table] = columns
    return columns
  }
}
