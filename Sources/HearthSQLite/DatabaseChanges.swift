/// What one committed transaction changed: per table, the rowids inserted, updated and
/// deleted (net of each other: a row inserted then updated is reported as inserted).
///
/// Reported only after COMMIT, never for rolled-back work, including work undone by
/// `ROLLBACK TO SAVEPOINT`.
///
/// ```swift
/// let observation = dbQueue.observeCommits { changes in
///   if changes.touches(["players"]) { print(changes.tables["players"]!.insertedRowIDs) }
/// }
/// ```
public struct DatabaseChanges: Hashable, Sendable, CustomStringConvertible {
  /// Changes by table name, as the schema spells it.
  public var tables: [String: TableChanges]
  /// Whether the transaction created, altered or dropped a schema object.
  public var isSchemaChanged: Bool

  public init(tables: [String: TableChanges] = [:], isSchemaChanged: Bool = false) {
    self.tables = tables
    self.isSchemaChanged = isSchemaChanged
  }

  /// The names of the changed tables.
  public var tableNames: Set<String> { Set(tables.keys) }

  /// Whether a table of `region` changed, comparing names case-insensitively (as SQLite
  /// does); a schema change touches every region.
  public func touches(_ region: Set<String>) -> Bool {
    if isSchemaChanged { return true }
    let changed = Set(tables.keys.map { $0.lowercased() })
    return region.contains { changed.contains($0.lowercased()) }
  }

  public var description: String {
    let parts = tables.keys.sorted().map { "\($0): \(tables[$0]!)" }
    return "DatabaseChanges(" + parts.joined(separator: ", ")
      + (isSchemaChanged ? ", schema changed" : "") + ")"
  }
}

/// The rows of one table that a transaction changed.
public struct TableChanges: Hashable, Sendable, CustomStringConvertible {
  public var insertedRowIDs: [Int64]
  public var updatedRowIDs: [Int64]
  public var deletedRowIDs: [Int64]
  /// False when the table changed but its rows are not listed: a `WITHOUT ROWID` table
  /// (SQLite's hooks give no usable rowids), or more rows of it changed in the transaction
  /// than the connection tracks (`Database.maximumTrackedRowsPerTable`).
  public var rowIDsAreKnown: Bool
  /// The columns whose values the transaction's updates changed, sorted; `nil` unless the
  /// connection `recordsUpdatedColumns`.
  public var updatedColumns: [String]?
  /// For each updated row (`updatedRowIDs`), the columns the transaction changed in it, in
  /// the table's order; `nil` unless the connection `recordsUpdatedColumns`. A row deleted
  /// and inserted again under its rowid counts as updated in every column.
  public var updatedColumnsByRow: [Int64: [String]]?
  /// For each listed row, its primary key (the key's columns in key order) — its new value
  /// for a row inserted or updated, its last one for a row deleted — when the table's key
  /// is not the rowid; `nil` for a rowid table, or unless the connection
  /// `recordsUpdatedColumns`.
  public var primaryKeys: [Int64: [DatabaseValue]]?

  public init(
    insertedRowIDs: [Int64] = [], updatedRowIDs: [Int64] = [], deletedRowIDs: [Int64] = [],
    rowIDsAreKnown: Bool = true, updatedColumns: [String]? = nil,
    updatedColumnsByRow: [Int64: [String]]? = nil, primaryKeys: [Int64: [DatabaseValue]]? = nil
  ) {
    self.insertedRowIDs = insertedRowIDs
    self.updatedRowIDs = updatedRowIDs
    self.deletedRowIDs = deletedRowIDs
    self.rowIDsAreKnown = rowIDsAreKnown
    self.updatedColumns = updatedColumns
    self.updatedColumnsByRow = updatedColumnsByRow
    self.primaryKeys = primaryKeys
  }

  public var description: String {
    guard rowIDsAreKnown else { return "(rows unknown)" }
    return "(inserted: \(insertedRowIDs), updated: \(updatedRowIDs), deleted: \(deletedRowIDs))"
  }
}

/// Collects row changes as SQLite's pre-update hook reports them, one layer per open
/// savepoint, so that `ROLLBACK TO` discards exactly the changes it undoes.
final class ChangeTracker {
  enum Operation {
    case insert, update, delete
  }

  struct Layer {
    var savepointName: String?
    var rows: [String: [Int64: Operation]] = [:]
    /// Tables with more changed rows than the tracker keeps: they changed, rows unknown.
    var untrackedTables: Set<String> = []
    /// Per table, the indexes of the columns that updates changed (when recorded).
    var updatedColumns: [String: Set<Int32>] = [:]
    /// Per table and updated row, the indexes of the columns changed in it (when recorded);
    /// `allColumns` for a row deleted and inserted again.
    var rowColumns: [String: [Int64: Set<Int32>]] = [:]
    static let allColumns: Set<Int32> = [-1]
    /// Per table and changed row, its primary key's values, the latest recorded (when
    /// recorded, for tables whose key is not the rowid).
    var rowKeys: [String: [Int64: [DatabaseValue]]] = [:]
    var isSchemaChanged = false

    var isEmpty: Bool { rows.isEmpty && untrackedTables.isEmpty && !isSchemaChanged }

    /// The net effect of `earlier` followed by `later`; nil means the row is as before.
    static func compose(_ earlier: Operation?, _ later: Operation) -> Operation? {
      switch (earlier, later) {
      case (nil, _): return later
      case (.insert, .update): return .insert
      case (.insert, .delete): return nil
      case (.delete, .insert): return .update
      case (.update, .delete): return .delete
      default: return later
      }
    }

    /// The columns a row changed in, once `later` followed what it was (`earlier`, with
    /// `columns`): nil unless the row ends up updated.
    static func composeColumns(
      _ earlier: Operation?, _ columns: Set<Int32>?, _ later: Operation, _ laterColumns: Set<Int32>?
    ) -> Set<Int32>? {
      switch (earlier, later) {
      case (.delete, .insert): return allColumns
      case (.update, .update), (nil, .update):
        return (columns ?? []).union(laterColumns ?? [])
      default: return nil
      }
    }

    mutating func merge(_ upper: Layer, maximumRows: Int?) {
      untrackedTables.formUnion(upper.untrackedTables)
      for table in upper.untrackedTables {
        rows[table] = nil
        rowColumns[table] = nil
        rowKeys[table] = nil
      }
      for (table, changes) in upper.rows where !untrackedTables.contains(table) {
        var merged = rows[table] ?? [:]
        var columns = rowColumns[table] ?? [:]
        var keys = rowKeys[table] ?? [:]
        for (rowID, operation) in changes {
          columns[rowID] = Layer.composeColumns(
            merged[rowID], columns[rowID], operation, upper.rowColumns[table]?[rowID])
          merged[rowID] = Layer.compose(merged[rowID], operation)
          keys[rowID] = merged[rowID] == nil ? nil : upper.rowKeys[table]?[rowID] ?? keys[rowID]
        }
        if let maximumRows, merged.count > maximumRows {
          rows[table] = nil
          rowColumns[table] = nil
          rowKeys[table] = nil
          untrackedTables.insert(table)
        } else {
          rows[table] = merged
          rowColumns[table] = columns.isEmpty ? nil : columns
          rowKeys[table] = keys.isEmpty ? nil : keys
        }
      }
      for (table, columns) in upper.updatedColumns {
        updatedColumns[table, default: []].formUnion(columns)
      }
      isSchemaChanged = isSchemaChanged || upper.isSchemaChanged
    }
  }

  private(set) var layers = [Layer()]
  var commitHookFired = false
  /// Whether each updated row's changed columns are kept (`Database.recordsUpdatedColumns`).
  var tracksColumns = false
  /// The most changed rows kept per table and transaction; past it the table is reported
  /// as changed with its rows unknown (and what was kept of it is freed). Nil: no limit.
  var maximumRowsPerTable: Int?

  func record(_ operation: Operation, table: String, rowID: Int64) {
    var layer = layers.removeLast()
    defer { layers.append(layer) }
    guard !layer.untrackedTables.contains(table) else { return }
    let previous = layer.rows[table]?[rowID]
    if previous == nil, let maximum = maximumRowsPerTable,
      (layer.rows[table]?.count ?? 0) >= maximum
    {
      layer.rows[table] = nil
      layer.rowColumns[table] = nil
      layer.rowKeys[table] = nil
      layer.untrackedTables.insert(table)
      return
    }
    layer.rows[table, default: [:]][rowID] = Layer.compose(previous, operation)
    guard tracksColumns else { return }
    if layer.rows[table]?[rowID] == nil { layer.rowKeys[table]?[rowID] = nil }
    let columns = Layer.composeColumns(
      previous, layer.rowColumns[table]?[rowID], operation, nil)
    if columns != nil || layer.rowColumns[table]?[rowID] != nil {
      layer.rowColumns[table, default: [:]][rowID] = columns
    }
  }

  /// The primary key of row `rowID` of `table` (recorded right after its change).
  func recordKey(_ key: [DatabaseValue], table: String, rowID: Int64) {
    let top = layers.count - 1
    guard layers[top].rows[table]?[rowID] != nil else { return }
    layers[top].rowKeys[table, default: [:]][rowID] = key
  }

  /// The columns an update changed in row `rowID` of `table` (recorded right after the
  /// update itself).
  func recordUpdatedColumns(_ columns: [Int32], table: String, rowID: Int64) {
    let top = layers.count - 1
    layers[top].updatedColumns[table, default: []].formUnion(columns)
    guard layers[top].rows[table]?[rowID] == .update else { return }
    layers[top].rowColumns[table, default: [:]][rowID, default: []].formUnion(columns)
  }

  func markSchemaChanged() {
    layers[layers.count - 1].isSchemaChanged = true
  }

  func apply(_ action: StatementAccess.SavepointAction) {
    switch action {
    case .begin(let name):
      layers.append(Layer(savepointName: name))
    case .release(let name):
      guard let index = index(of: name) else { return }
      while layers.count > index {
        let upper = layers.removeLast()
        if layers.isEmpty { layers.append(Layer()) }
        layers[layers.count - 1].merge(upper, maximumRows: maximumRowsPerTable)
      }
    case .rollback(let name):
      guard let index = index(of: name) else { return }
      layers.removeSubrange((index + 1)...)
      layers[index] = Layer(savepointName: layers[index].savepointName)
    }
  }

  private func index(of name: String) -> Int? {
    layers.lastIndex { $0.savepointName?.lowercased() == name.lowercased() }
  }

  /// Forgets everything (the transaction rolled back).
  func reset() {
    layers = [Layer()]
    commitHookFired = false
  }

  /// Everything recorded, merged into one layer, and forgotten.
  func takeAll() -> Layer {
    let all = merged()
    reset()
    return all
  }

  /// The layers from `start` on, merged into one.
  func merged(from start: Int = 0) -> Layer {
    var all = Layer()
    for layer in layers[start...] { all.merge(layer, maximumRows: maximumRowsPerTable) }
    return all
  }
}
