/// Identifies a transaction observer added with `Database.addTransactionObserver(_:)`.
public struct TransactionObserverID: Hashable, Sendable {
  let value: Int
}

extension Database {
  /// Calls `onCommit` on this connection after each COMMIT that changed something, with
  /// what it changed. Nothing is reported for rolled-back work.
  ///
  /// ```swift
  /// let id = db.addTransactionObserver { changes in print(changes.tableNames) }
  /// …
  /// db.removeTransactionObserver(id)
  /// ```
  @discardableResult
  public func addTransactionObserver(_ onCommit: @escaping (DatabaseChanges) -> Void)
    -> TransactionObserverID
  {
    nextObserverID += 1
    let id = TransactionObserverID(value: nextObserverID)
    transactionObservers.append((id, onCommit))
    return id
  }

  public func removeTransactionObserver(_ id: TransactionObserverID) {
    transactionObservers.removeAll { $0.id == id }
  }

  /// After a statement ends: if it committed, hands the transaction's changes to observers.
  func deliverCommittedChanges() {
    guard changeTracker.commitHookFired else { return }
    changeTracker.commitHookFired = false
    // A COMMIT that failed after the hook (SQLITE_BUSY…) leaves the transaction open.
    guard !isInsideTransaction else { return }
    let committed = changeTracker.takeAll()
    guard !committed.isEmpty, !transactionObservers.isEmpty else { return }
    let changes = changes(from: committed)
    for (_, observer) in transactionObservers { observer(changes) }
  }

  /// The public form of recorded changes.
  func changes(from layer: ChangeTracker.Layer) -> DatabaseChanges {
    let withoutRowID = knownWithoutRowIDTables()
    var tables: [String: TableChanges] = [:]
    for (table, rows) in layer.rows {
      guard !withoutRowID.contains(table) else {
        tables[table] = TableChanges(rowIDsAreKnown: false)
        continue
      }
      var changes = TableChanges()
      for (rowID, operation) in rows {
        switch operation {
        case .insert: changes.insertedRowIDs.append(rowID)
        case .update: changes.updatedRowIDs.append(rowID)
        case .delete: changes.deletedRowIDs.append(rowID)
        }
      }
      changes.insertedRowIDs.sort()
      changes.updatedRowIDs.sort()
      changes.deletedRowIDs.sort()
      if recordsUpdatedColumns {
        changes.updatedColumns = updatedColumnNames(table, in: layer)
        changes.updatedColumnsByRow = updatedColumnsByRow(table, in: layer)
        if !keyColumns(of: table).isEmpty { changes.primaryKeys = layer.rowKeys[table] ?? [:] }
      }
      tables[table] = changes
    }
    for table in layer.untrackedTables {
      var changes = TableChanges(rowIDsAreKnown: false)
      if recordsUpdatedColumns {
        changes.updatedColumns = updatedColumnNames(table, in: layer)
        changes.updatedColumnsByRow = updatedColumnsByRow(table, in: layer)
        if !keyColumns(of: table).isEmpty { changes.primaryKeys = layer.rowKeys[table] ?? [:] }
      }
      tables[table] = changes
    }
    return DatabaseChanges(tables: tables, isSchemaChanged: layer.isSchemaChanged)
  }

  /// The names of the columns of `table` that the layer's updates changed, sorted by position.
  private func updatedColumnNames(_ table: String, in layer: ChangeTracker.Layer) -> [String] {
    let names = columnNames(of: table)
    return (layer.updatedColumns[table] ?? []).sorted().compactMap {
      names.indices.contains(Int($0)) ? names[Int($0)] : nil
    }
  }

  /// Each updated row's changed columns, by name in the table's order (every column for a
  /// row deleted and inserted again).
  private func updatedColumnsByRow(_ table: String, in layer: ChangeTracker.Layer) -> [Int64:
    [String]]
  {
    let names = columnNames(of: table)
    var byRow: [Int64: [String]] = [:]
    for (rowID, columns) in layer.rowColumns[table] ?? [:]
    where layer.rows[table]?[rowID] == .update {
      byRow[rowID] =
        columns.isSuperset(of: ChangeTracker.Layer.allColumns)
        ? names
        : columns.sorted().compactMap { names.indices.contains(Int($0)) ? names[Int($0)] : nil }
    }
    return byRow
  }

  /// The columns of `table` in the pre-update hook's order (the declared order).
  private func columnNames(of table: String) -> [String] {
    if let names = columnNames[table] { return names }
    let names =
      (try? String.fetchAll(
        self, sql: "SELECT name FROM pragma_table_xinfo(?) ORDER BY cid",
        arguments: [table])) ?? []
    columnNames[table] = names
    return names
  }

  private func knownWithoutRowIDTables() -> Set<String> {
    if let withoutRowIDTables { return withoutRowIDTables }
    let names =
      (try? String.fetchAll(
        self, sql: "SELECT name FROM pragma_table_list WHERE wr = 1 AND type = 'table'")) ?? []
    withoutRowIDTables = Set(names)
    return withoutRowIDTables!
  }
}
