import HearthSQLite
import HearthWire

/// A table the hub syncs, as its schema says: its text primary key, its columns, and the
/// one foreign key that makes a row another's child. Read from the database (`read`), and
/// checked against the rules a synced table keeps (`validate`).
public struct SyncedTable: Hashable, Sendable {
  public var name: String
  /// The primary key's column (one, of type TEXT: a UUID as text).
  public var primaryKey: String
  /// Every column but the key, in the table's order.
  public var columns: [String]
  /// The table this one's single foreign key points to, if it has exactly one.
  public var parent: String?
  /// That foreign key's column.
  public var parentColumn: String?
  /// Every table its foreign keys point to.
  public var references: Set<String>
  /// The row's parent for zones: its single foreign key, or the reference the plugin
  /// declared (`SyncReferences`), which wins.
  public var link: SyncParentLink?

  /// The table `name` of `db`'s schema; nil when there is none.
  public static func read(_ name: String, _ db: Database) throws -> SyncedTable? {
    let columns = try Row.fetchAll(
      db, sql: "SELECT name, type, pk FROM pragma_table_info(?) ORDER BY cid", arguments: [name])
    guard !columns.isEmpty else { return nil }
    let canonical =
      try String.fetchOne(
        db, sql: "SELECT name FROM sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE",
        arguments: [name]) ?? name
    let keys: [Row] = try columns.filter { try ($0["pk"] as Int) > 0 }
    let links = try Row.fetchAll(
      db, sql: "SELECT id, \"table\", \"from\" FROM pragma_foreign_key_list(?)",
      arguments: [name])
    let foreign = try Set(links.map { try $0["table"] as String })
    let foreignKeyIDs = try Set(links.map { try $0["id"] as Int })
    return SyncedTable(
      name: canonical,
      primaryKey: keys.count == 1 ? try keys[0]["name"] : "",
      columns: try columns.filter { try ($0["pk"] as Int) == 0 || keys.count != 1 }.map {
        try $0["name"]
      },
      parent: foreignKeyIDs.count == 1 && links.count == 1 ? foreign.first : nil,
      parentColumn: foreignKeyIDs.count == 1 && links.count == 1 ? try links[0]["from"] : nil,
      references: foreign,
      link: foreignKeyIDs.count == 1 && links.count == 1
        ? SyncParentLink(keyColumn: try links[0]["from"], table: foreign.first) : nil)
  }

  /// Whether the rows' parent is the one their foreign key names (so a missing parent fails
  /// the key), not a declared reference.
  var isLinkedByForeignKey: Bool {
    guard let link, link.tableColumn == nil, let parent, let parentColumn else { return false }
    return link.keyColumn == parentColumn && link.table?.lowercased() == parent.lowercased()
  }

  /// This table with `reference` as its rows' parent.
  func linked(by reference: SyncReference) -> SyncedTable {
    var table = self
    table.link = SyncParentLink(
      keyColumn: reference.column, table: reference.parent,
      tableColumn: reference.parentTableColumn)
    return table
  }

  /// The rules a synced table keeps (the reference's, for the same reasons: rows made on
  /// two devices must never collide): one primary-key column of type TEXT (a UUID, not an
  /// integer two devices would both pick), no other UNIQUE index (two devices both creating
  /// "Family" must not make one of them fail), foreign keys only to tables synced with it,
  /// no `:` in its name. Throws `SyncSchemaError` naming the rule.
  public static func validate(
    _ names: [String], alsoSynced: Set<String> = [], _ db: Database
  ) throws -> [SyncedTable] {
    var tables: [SyncedTable] = []
    let synced = Set((names + alsoSynced).map { $0.lowercased() })
    for name in names {
      guard let table = try read(name, db) else {
        throw SyncSchemaError(table: name, problem: "there is no such table")
      }
      guard !name.contains(":") else {
        throw SyncSchemaError(table: name, problem: "a synced table's name has no ':'")
      }
      let keyType = try String.fetchOne(
        db, sql: "SELECT upper(type) FROM pragma_table_info(?) WHERE pk > 0", arguments: [name])
      guard !table.primaryKey.isEmpty, keyType?.contains("TEXT") == true else {
        throw SyncSchemaError(
          table: name,
          problem: "a synced table's primary key is one TEXT column holding a UUID "
            + "(\"id\" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid())), "
            + "not an integer two devices would both choose")
      }
      let unique = try String.fetchAll(
        db, sql: "SELECT name FROM pragma_index_list(?) WHERE \"unique\" AND origin != 'pk'",
        arguments: [name])
      if let index = unique.first {
        throw SyncSchemaError(
          table: name,
          problem: "a synced table has no UNIQUE constraint but its primary key (\(index)): "
            + "two devices creating the same value would make one of them fail")
      }
      if let outside = table.references.first(where: { !synced.contains($0.lowercased()) }) {
        throw SyncSchemaError(
          table: name, problem: "its foreign key points to \(outside), which is not synced")
      }
      tables.append(table)
    }
    return tables
  }
}

/// A table that cannot be synced, and the rule it breaks.
public struct SyncSchemaError: Error, Hashable, Sendable, CustomStringConvertible {
  public var table: String
  public var problem: String
  public init(table: String, problem: String) {
    self.table = table
    self.problem = problem
  }
  public var description: String { "cannot sync table \(table): \(problem)" }
}

extension SyncedTable {
  /// The statements applying a pulled record runs on the table, written once.
  struct Statements {
    let columnSet: Set<String>
    let exists: String
    let delete: String
    private let quotedName: String
    private let quotedKey: String
    /// The insert of every column (a pulled row's usual form).
    private let insertAll: String
    private let columns: [String]

    init(_ table: SyncedTable) {
      columnSet = Set(table.columns)
      columns = table.columns
      quotedName = "main." + quoteIdentifier(table.name)
      quotedKey = quoteIdentifier(table.primaryKey)
      exists = "SELECT 1 FROM \(quotedName) WHERE \(quotedKey) = ?"
      delete = "DELETE FROM \(quotedName) WHERE \(quotedKey) = ?"
      insertAll = Self.insert(into: quotedName, [quotedKey] + table.columns.map(quoteIdentifier))
    }

    /// The insert of the key and `columns`, in that order.
    func insert(_ columns: [String]) -> String {
      columns == self.columns
        ? insertAll : Self.insert(into: quotedName, [quotedKey] + columns.map(quoteIdentifier))
    }

    private static func insert(into table: String, _ quoted: [String]) -> String {
      let marks = Array(repeating: "?", count: quoted.count).joined(separator: ", ")
      return "INSERT INTO \(table) (\(quoted.joined(separator: ", "))) VALUES (\(marks))"
    }
  }
}
