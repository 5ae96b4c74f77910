import HearthSQLite
import HearthWire

/// References without a foreign key: a synced table's column that holds the primary key of
/// another synced row — of one table, or of the table the same row names in another column
/// (an attachment's `ownerTable` and `ownerID`). The plugin declares them
/// (`SyncEngine(for:tables:references:)`), since the schema cannot say; the row named is
/// then the row's parent for zones, as a foreign key's is: sharing a list shares the
/// attachments of its reminders, and an attachment added to a shared reminder goes to the
/// share.
///
/// - `hearth_sync_references(tbl, col, parent, parentTableColumn, plugin)`: one a table.
public enum SyncReferences {
  static let schema = """
    CREATE TABLE IF NOT EXISTS hearth_sync_references (
      tbl TEXT PRIMARY KEY NOT NULL COLLATE NOCASE, col TEXT NOT NULL, parent TEXT,
      parentTableColumn TEXT, plugin TEXT NOT NULL,
      CHECK ((parent IS NULL) != (parentTableColumn IS NULL))) WITHOUT ROWID;
    """

  /// The declared references, by lowercased table name.
  static func all(_ db: Database) throws -> [String: SyncReference] {
    guard try db.tableExists("hearth_sync_references") else { return [:] }
    var references: [String: SyncReference] = [:]
    for row in try Row.fetchAll(
      db, sql: "SELECT tbl, col, parent, parentTableColumn FROM hearth_sync_references")
    {
      let reference = SyncReference(
        table: try row["tbl"], column: try row["col"], parent: try row["parent"],
        parentTableColumn: try row["parentTableColumn"])
      references[reference.table.lowercased()] = reference
    }
    return references
  }

  /// Declares `references` (of tables `plugin` syncs, `tables`); throws `SyncSchemaError`
  /// for a column that is not there or a parent table that is not synced.
  public static func declare(
    _ references: [SyncReference], plugin: String, tables: [SyncedTable],
    synced: Set<String>, _ db: Database
  ) throws {
    for reference in references {
      guard
        let table = tables.first(where: { $0.name.lowercased() == reference.table.lowercased() })
      else {
        throw SyncSchemaError(
          table: reference.table, problem: "a reference is declared on a table this plugin syncs")
      }
      func column(_ name: String) throws -> String {
        guard let found = table.columns.first(where: { $0.lowercased() == name.lowercased() })
        else {
          throw SyncSchemaError(table: table.name, problem: "it has no column \(name)")
        }
        return found
      }
      let keyColumn = try column(reference.column)
      let tableColumn = try reference.parentTableColumn.map(column)
      guard (reference.parent == nil) != (tableColumn == nil) else {
        throw SyncSchemaError(
          table: table.name,
          problem: "a reference names its parent table, or the column that names it, not both")
      }
      if let parent = reference.parent, !synced.contains(parent.lowercased()) {
        throw SyncSchemaError(
          table: table.name,
          problem: "its reference \(keyColumn) points to \(parent), which is not synced")
      }
      try db.execute(
        sql: """
          INSERT OR REPLACE INTO hearth_sync_references
            (tbl, col, parent, parentTableColumn, plugin) VALUES (?, ?, ?, ?, ?)
          """, arguments: [table.name, keyColumn, reference.parent, tableColumn, plugin])
    }
  }

  /// Whether `references` are declared already, as they are.
  public static func areDeclared(_ references: [SyncReference], _ db: Database) throws -> Bool {
    guard !references.isEmpty else { return true }
    let known = try all(db)
    return references.allSatisfy { reference in
      guard let stored = known[reference.table.lowercased()] else { return false }
      return stored.column.lowercased() == reference.column.lowercased()
        && stored.parent?.lowercased() == reference.parent?.lowercased()
        && stored.parentTableColumn?.lowercased() == reference.parentTableColumn?.lowercased()
    }
  }
}

/// How a row names its parent for zones: the column holding the parent's key, and the
/// parent's table — one table (a foreign key, or a declared reference), or the table the
/// row names in another column.
public struct SyncParentLink: Hashable, Sendable {
  public var keyColumn: String
  public var table: String?
  public var tableColumn: String?

  /// The parent's table for a row whose `tableColumn` holds `named` (nil: the fixed table).
  func parentTable(named: String?) -> String? { table ?? named }

  /// The parent's table as an SQL expression over a row called `row` (`NEW`, `OLD`).
  func tableExpression(_ row: String) -> String {
    if let table { return sqlLiteral(table) }
    return "\(row).\(quoteIdentifier(tableColumn ?? ""))"
  }

  /// Whether a row of this link may have a parent in table `name`.
  func mayPointTo(_ name: String) -> Bool {
    table.map { $0.lowercased() == name.lowercased() } ?? true
  }
}
