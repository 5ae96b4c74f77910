import Foundation
import HearthHTTP
import HearthSQLite
import HearthWire

/// A table as the browser shows it: its columns, how its rows are found again (rowid or
/// primary key), its full-text index, and the foreign keys that point out of it.
public struct BrowsedTable: Sendable {
  public var name: String
  public var columns: [String]
  /// The primary key's columns, in key order (empty: the rowid alone).
  public var primaryKey: [String]
  public var hasRowid: Bool
  /// An FTS5 table itself: searched with MATCH on its own name.
  public var isFullText: Bool
  /// The FTS5 table whose rowids are this table's (by `content=`, or kept by this table's
  /// triggers), searched for this table's rows.
  public var fullTextIndex: String?
  /// Out of this table: `(column, parent table, parent column or nil for its key)`.
  public var foreignKeys: [(from: String, table: String, to: String?)]
  /// The plugin that owns it, `hub` for the hub's own tables, nil when no one claims it.
  public var owner: String?

  /// What a row page's path and a keyset position are made of: the rowid, or the key.
  var tiebreak: [String] { hasRowid ? ["rowid"] : primaryKey }
  public var searchable: Bool { isFullText || fullTextIndex != nil }
}

/// Reads tables for the browser: the schema, keyset pages, rows by key and what points to
/// them. Every query is bounded: at most `rowCap` rows, and the connection's time limit.
public enum TableBrowser {
  public static let rowCap = 500
  /// The tables FTS5 keeps beside an index named X: X_data, X_idx…
  static let shadowSuffixes: Set<String> = ["_data", "_idx", "_content", "_docsize", "_config"]

  /// Every table of the database, with FTS5's shadow tables and SQLite's own left out.
  public static func tables(_ db: Database) throws -> [BrowsedTable] {
    let schema = try Row.fetchAll(
      db,
      sql: """
        SELECT type, name, tbl_name, coalesce(sql, '') AS sql FROM sqlite_schema
        WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name
        """)
    var owners: [String: String] = [:]
    if try db.tableExists(HubTables.tables) {
      for row in try Row.fetchAll(db, sql: "SELECT name, plugin FROM \(HubTables.tables)") {
        owners[(try row["name"] as String).lowercased()] = try row["plugin"]
      }
    }
    let virtualFTS = Set(
      try schema.filter { row in
        try (row["type"] as String) == "table"
          && (row["sql"] as String).lowercased().contains("using fts5")
      }.map { try ($0["name"] as String).lowercased() })
    var indexOf: [String: String] = [:]
    for row in schema {
      let name: String = try row["name"]
      let sql = (try row["sql"] as String).lowercased()
      if virtualFTS.contains(name.lowercased()), let content = option("content", in: sql) {
        indexOf[content] = name
      }
      // A trigger of table T that inserts into an FTS5 table keeps that index of T's rows.
      if try (row["type"] as String) == "trigger" {
        let table = (try row["tbl_name"] as String).lowercased()
        for fts in virtualFTS where indexOf[table] == nil {
          if sql.contains("insert into \"\(fts)\"") || sql.contains("insert into \(fts)") {
            indexOf[table] = schema.first { (try? $0["name"] as String)?.lowercased() == fts }
              .flatMap { try? $0["name"] as String }
          }
        }
      }
    }
    var tables: [BrowsedTable] = []
    for row in schema where try (row["type"] as String) == "table" {
      let name: String = try row["name"]
      let lower = name.lowercased()
      if virtualFTS.contains(where: { fts in shadowSuffixes.contains { lower == fts + $0 } }) {
        continue
      }
      let sql = (try row["sql"] as String).lowercased()
      var columns: [String] = []
      var key: [(Int, String)] = []
      for column in try Row.fetchAll(
        db, sql: "SELECT name, pk FROM pragma_table_info(?) ORDER BY cid", arguments: [name])
      {
        let columnName: String = try column["name"]
        columns.append(columnName)
        let position: Int = try column["pk"]
        if position > 0 { key.append((position, columnName)) }
      }
      let foreignKeys = try Row.fetchAll(
        db,
        sql: "SELECT \"from\", \"table\", \"to\" FROM pragma_foreign_key_list(?) ORDER BY id, seq",
        arguments: [name]
      ).map {
        (
          from: try $0["from"] as String, table: try $0["table"] as String,
          to: try $0["to"] as String?
        )
      }
      tables.append(
        BrowsedTable(
          name: name, columns: columns, primaryKey: key.sorted { $0.0 < $1.0 }.map(\.1),
          hasRowid: !sql.contains("without rowid"), isFullText: virtualFTS.contains(lower),
          fullTextIndex: indexOf[lower], foreignKeys: foreignKeys,
          owner: owners[lower] ?? (lower.hasPrefix(HubTables.prefix) ? "hub" : nil)))
    }
    return tables
  }

  /// The value of option `name` in an FTS5 declaration (`content='reminders'`), unquoted.
  static func option(_ name: String, in sql: String) -> String? {
    guard let range = sql.range(of: name + "=") ?? sql.range(of: name + " =") else { return nil }
    let rest = sql[range.upperBound...].drop { $0 == " " }
    let quote = rest.first.flatMap { "'\"".contains($0) ? $0 : nil }
    let body =
      quote.map { q in rest.dropFirst().prefix { $0 != q } }
      ?? rest.prefix { $0 != "," && $0 != ")" && $0 != " " }
    return body.isEmpty ? nil : String(body)
  }

  /// One page of rows, and the position after its last row when there are more.
  public struct Page: Sendable {
    /// Each row: its key (rowid or primary key values), then every column's value.
    public var rows: [(key: RowKey, values: [DatabaseValue])]
    public var next: [KeyValue]?
    public var total: Int?
  }

  public struct Order: Sendable, Equatable {
    public var column: String?
    public var descending: Bool
    public init(column: String?, descending: Bool) {
      self.column = column
      self.descending = descending
    }
  }

  /// Rows of `table` in `order`, after keyset position `after`, matching `search` when the
  /// table has a full-text index; at most `limit` (capped at `rowCap`).
  public static func page(
    of table: BrowsedTable, order: Order, after: [KeyValue]?, search: String?, limit: Int,
    _ db: Database
  ) throws -> Page {
    let limit = max(1, min(limit, rowCap))
    let tiebreak = table.tiebreak
    let sortColumn = order.column.flatMap { column in table.columns.first { $0 == column } }
    var conditions: [String] = []
    var arguments: [DatabaseValue] = []
    if let search, !search.isEmpty, table.searchable {
      let match = ftsQuery(search)
      if table.isFullText {
        conditions.append("\(quoted(table.name)) MATCH ?")
      } else if let index = table.fullTextIndex {
        conditions.append(
          "rowid IN (SELECT rowid FROM \(quoted(index)) WHERE \(quoted(index)) MATCH ?)")
      }
      arguments.append(DatabaseValue(storage: .text(match)))
    }
    let direction = order.descending ? "DESC" : "ASC"
    let comparison = order.descending ? "<" : ">"
    let keyList = "(" + tiebreak.map(quoted).joined(separator: ", ") + ")"
    let keyHoles = "(" + tiebreak.map { _ in "?" }.joined(separator: ", ") + ")"
    if let after {
      let expected = (sortColumn == nil ? 0 : 1) + tiebreak.count
      guard after.count == expected else { throw BrowseError.badPosition }
      let keyValues = after.suffix(tiebreak.count).map(databaseValue)
      if let sortColumn {
        let column = quoted(sortColumn)
        let value = databaseValue(after[0])
        let nullsLast = !order.descending
        switch (value.isNull, nullsLast) {
        case (false, true):
          conditions.append(
            "(\(column) IS NULL OR \(column) > ? OR (\(column) = ? AND \(keyList) > \(keyHoles)))")
          arguments += [value, value] + keyValues
        case (true, true):
          conditions.append("(\(column) IS NULL AND \(keyList) > \(keyHoles))")
          arguments += keyValues
        case (false, false):
          conditions.append(
            "(\(column) IS NOT NULL AND (\(column) < ? OR (\(column) = ? AND \(keyList) < \(keyHoles))))"
          )
          arguments += [value, value] + keyValues
        case (true, false):
          conditions.append("(\(column) IS NOT NULL OR \(keyList) < \(keyHoles))")
          arguments += keyValues
        }
      } else {
        conditions.append("\(keyList) \(comparison) \(keyHoles)")
        arguments += keyValues
      }
    }
    var orderTerms: [String] = []
    if let sortColumn {
      orderTerms.append("\(quoted(sortColumn)) IS NULL \(direction)")
      orderTerms.append("\(quoted(sortColumn)) \(direction)")
    }
    orderTerms += tiebreak.map { "\(quoted($0)) \(direction)" }
    let selected = (table.hasRowid ? ["rowid"] : []) + table.columns.map(quoted)
    let sql =
      "SELECT \(selected.joined(separator: ", ")) FROM \(quoted(table.name))"
      + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
      + " ORDER BY " + orderTerms.joined(separator: ", ") + " LIMIT \(limit + 1)"
    let fetched = try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments))
    var rows = fetched.prefix(limit).map { row in
      let values = row.databaseValues
      return (key: key(of: table, values), values: Array(values.dropFirst(table.hasRowid ? 1 : 0)))
    }
    var next: [KeyValue]?
    if fetched.count > limit, let last = rows.last {
      var position: [KeyValue] = []
      if let sortColumn, let index = table.columns.firstIndex(of: sortColumn) {
        position.append(keyValue(last.values[index]))
      }
      switch last.key {
      case .rowid(let rowid): position.append(.integer(rowid))
      case .key(let values): position += values
      }
      next = position
    }
    if rows.count > limit { rows.removeLast() }
    let total: Int? =
      (search?.isEmpty ?? true)
      ? try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoted(table.name))") : nil
    return Page(rows: rows, next: next, total: total)
  }

  /// The row with `key`, nil when there is none.
  public static func row(_ key: RowKey, of table: BrowsedTable, _ db: Database) throws
    -> [DatabaseValue]?
  {
    let (condition, arguments) = try keyCondition(key, of: table)
    let selected = table.columns.map(quoted).joined(separator: ", ")
    return try Row.fetchOne(
      db, sql: "SELECT \(selected) FROM \(quoted(table.name)) WHERE \(condition)",
      arguments: StatementArguments(arguments)
    )?.databaseValues
  }

  /// The rows of `table` with these rowids (for a live page: what a commit inserted or
  /// changed), each with its key; at most `rowCap`.
  public static func rows(withRowids rowids: [Int64], of table: BrowsedTable, _ db: Database)
    throws -> [(key: RowKey, values: [DatabaseValue])]
  {
    guard table.hasRowid, !rowids.isEmpty else { return [] }
    let list = rowids.prefix(rowCap).map(String.init).joined(separator: ",")
    let selected = (["rowid"] + table.columns.map(quoted)).joined(separator: ", ")
    return try Row.fetchAll(
      db,
      sql:
        "SELECT \(selected) FROM \(quoted(table.name)) WHERE rowid IN (\(list)) ORDER BY rowid DESC"
    ).map { row in
      let values = row.databaseValues
      return (key: key(of: table, values), values: Array(values.dropFirst()))
    }
  }

  /// Rows elsewhere that point to this one: by a foreign key, or by a reference a synced
  /// plugin declared (an attachment's `ownerTable`/`ownerID`). Each: the table, the column,
  /// and up to `limit` rows.
  public struct Referrers: Sendable {
    public var table: BrowsedTable
    public var column: String
    public var rows: [(key: RowKey, values: [DatabaseValue])]
  }

  public static func referrers(
    of values: [DatabaseValue], in table: BrowsedTable, among tables: [BrowsedTable],
    limit: Int = 50, _ db: Database
  ) throws -> [Referrers] {
    var found: [Referrers] = []
    func value(ofColumn column: String?) -> DatabaseValue? {
      let name = column ?? (table.primaryKey.count == 1 ? table.primaryKey[0] : nil)
      return name.flatMap { name in table.columns.firstIndex(of: name).map { values[$0] } }
    }
    func fetch(_ other: BrowsedTable, where condition: String, _ arguments: [DatabaseValue])
      throws -> [(key: RowKey, values: [DatabaseValue])]
    {
      let selected = ((other.hasRowid ? ["rowid"] : []) + other.columns.map(quoted))
        .joined(separator: ", ")
      return try Row.fetchAll(
        db,
        sql: "SELECT \(selected) FROM \(quoted(other.name)) WHERE \(condition) LIMIT \(limit)",
        arguments: StatementArguments(arguments)
      ).map { row in
        let all = row.databaseValues
        return (key: key(of: other, all), values: Array(all.dropFirst(other.hasRowid ? 1 : 0)))
      }
    }
    for other in tables {
      for foreignKey in other.foreignKeys
      where foreignKey.table.caseInsensitiveCompare(table.name) == .orderedSame {
        guard let target = value(ofColumn: foreignKey.to), !target.isNull else { continue }
        let rows = try fetch(other, where: "\(quoted(foreignKey.from)) = ?", [target])
        if !rows.isEmpty {
          found.append(Referrers(table: other, column: foreignKey.from, rows: rows))
        }
      }
    }
    if try db.tableExists("hearth_sync_references"), let target = value(ofColumn: nil) {
      for reference in try Row.fetchAll(
        db, sql: "SELECT tbl, col, parent, parentTableColumn FROM hearth_sync_references")
      {
        let name: String = try reference["tbl"]
        let column: String = try reference["col"]
        guard
          let other = tables.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame })
        else { continue }
        let rows: [(key: RowKey, values: [DatabaseValue])]
        if let parent: String = try reference["parent"] {
          guard parent.caseInsensitiveCompare(table.name) == .orderedSame else { continue }
          rows = try fetch(other, where: "\(quoted(column)) = ?", [target])
        } else if let tableColumn: String = try reference["parentTableColumn"] {
          rows = try fetch(
            other, where: "\(quoted(tableColumn)) = ? COLLATE NOCASE AND \(quoted(column)) = ?",
            [DatabaseValue(storage: .text(table.name)), target])
        } else {
          continue
        }
        if !rows.isEmpty { found.append(Referrers(table: other, column: column, rows: rows)) }
      }
    }
    return found
  }

  /// The rowid of the row of `table` whose `column` (its key when nil) holds `value`: where
  /// a foreign key's value leads.
  public static func key(
    ofRowWhere column: String?, is value: DatabaseValue, in table: BrowsedTable, _ db: Database
  ) throws -> RowKey? {
    guard !value.isNull,
      let column = column ?? (table.primaryKey.count == 1 ? table.primaryKey[0] : nil)
    else { return nil }
    let selected = ((table.hasRowid ? ["rowid"] : []) + table.columns.map(quoted))
      .joined(separator: ", ")
    return try Row.fetchOne(
      db, sql: "SELECT \(selected) FROM \(quoted(table.name)) WHERE \(quoted(column)) = ? LIMIT 1",
      arguments: [value]
    ).map { key(of: table, $0.databaseValues) }
  }

  static func keyCondition(_ key: RowKey, of table: BrowsedTable) throws -> (
    String, [DatabaseValue]
  ) {
    switch key {
    case .rowid(let rowid):
      guard table.hasRowid else { throw BrowseError.badKey }
      return ("rowid = ?", [DatabaseValue(storage: .integer(rowid))])
    case .key(let values):
      guard !table.hasRowid, values.count == table.primaryKey.count else {
        throw BrowseError.badKey
      }
      return (
        table.primaryKey.map { "\(quoted($0)) = ?" }.joined(separator: " AND "),
        values.map(databaseValue)
      )
    }
  }

  /// A row's key from its selected values (the rowid first when the table has one).
  static func key(of table: BrowsedTable, _ values: [DatabaseValue]) -> RowKey {
    if table.hasRowid, case .integer(let rowid) = values.first?.storage { return .rowid(rowid) }
    let offset = table.hasRowid ? 1 : 0
    return .key(
      table.primaryKey.compactMap { table.columns.firstIndex(of: $0) }.map {
        keyValue(values[$0 + offset])
      })
  }

  /// Search words as an FTS5 query: each a quoted string (its quotes doubled), all required,
  /// the last one a prefix — what a person types never fails as FTS5 syntax.
  public static func ftsQuery(_ text: String) -> String {
    let words = text.split(whereSeparator: \.isWhitespace).prefix(16)
    return words.enumerated().map { index, word in
      "\"" + word.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        + (index == words.count - 1 ? "*" : "")
    }.joined(separator: " ")
  }

  public static func quoted(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  public static func keyValue(_ value: DatabaseValue) -> KeyValue {
    switch value.storage {
    case .null, .invalid: .null  // a row's values are never invalid
    case .integer(let number): .integer(number)
    case .double(let number): .real(number)
    case .text(let text): .text(text)
    case .blob(let data): .blob(Array(data))
    }
  }

  public static func databaseValue(_ value: KeyValue) -> DatabaseValue {
    switch value {
    case .null: .null
    case .integer(let number): DatabaseValue(storage: .integer(number))
    case .real(let number): DatabaseValue(storage: .double(number))
    case .text(let text): DatabaseValue(storage: .text(text))
    case .blob(let bytes): DatabaseValue(storage: .blob(Data(bytes)))
    }
  }
}

public enum BrowseError: Error, CustomStringConvertible {
  case noSuchTable(String)
  case noSuchRow
  case badPosition
  case badKey

  public var description: String {
    switch self {
    case .noSuchTable(let name): "no table named \(name)"
    case .noSuchRow: "no such row"
    case .badPosition: "the page position does not fit this table and order"
    case .badKey: "that key does not fit this table"
    }
  }
}
