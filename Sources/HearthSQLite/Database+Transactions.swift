/// How a transaction takes its locks.
public enum TransactionKind: String, Sendable {
  /// Locks on first read or write.
  case deferred = "DEFERRED"
  /// Takes the write lock at once: no `SQLITE_BUSY` halfway through.
  case immediate = "IMMEDIATE"
  /// As immediate (SQLite's WAL mode makes them the same).
  case exclusive = "EXCLUSIVE"
}

/// What a transaction or savepoint block asks for at its end.
public enum TransactionCompletion: Sendable {
  case commit
  case rollback
}

extension Database {
  /// Opens a transaction.
  public func beginTransaction(_ kind: TransactionKind = .deferred) throws {
    try execute(sql: "BEGIN \(kind.rawValue) TRANSACTION")
  }

  /// Commits the open transaction.
  public func commit() throws {
    try execute(sql: "COMMIT TRANSACTION")
  }

  /// Rolls back the open transaction; does nothing when SQLite already rolled it back.
  public func rollback() throws {
    guard isInsideTransaction else { return }
    try execute(sql: "ROLLBACK TRANSACTION")
  }

  /// Runs `block` in a transaction that commits when it returns `.commit` and rolls back
  /// when it returns `.rollback` or throws.
  ///
  /// ```swift
  /// try db.inTransaction {
  ///   try db.execute(sql: "INSERT …")
  ///   return .commit
  /// }
  /// ```
  public func inTransaction(
    _ kind: TransactionKind = .deferred, _ block: () throws -> TransactionCompletion
  ) throws {
    try beginTransaction(kind)
    let completion: TransactionCompletion
    do {
      completion = try block()
    } catch {
      try? rollback()
      throw error
    }
    switch completion {
    case .commit:
      do {
        try commit()
      } catch {
        // A failed COMMIT (deferred foreign keys, SQLITE_FULL…) may leave the transaction
        // open: close it, so that nothing of it survives.
        try? rollback()
        throw error
      }
    case .rollback:
      try rollback()
    }
  }

  /// Runs `block` in a savepoint: nested inside an open transaction, or as a transaction of
  /// its own. `.rollback` or a thrown error undoes exactly what `block` did.
  ///
  /// ```swift
  /// try db.inSavepoint {
  ///   try db.execute(sql: "INSERT …")
  ///   return .commit
  /// }
  /// ```
  public func inSavepoint(_ block: () throws -> TransactionCompletion) throws {
    guard isInsideTransaction else {
      try inTransaction(.deferred, block)
      return
    }
    savepointCounter += 1
    let name = "hearth_savepoint_\(savepointCounter)"
    defer { savepointCounter -= 1 }
    try execute(sql: "SAVEPOINT \(name)")
    let completion: TransactionCompletion
    do {
      completion = try block()
    } catch {
      if isInsideTransaction {
        try? execute(sql: "ROLLBACK TRANSACTION TO SAVEPOINT \(name)")
        try? execute(sql: "RELEASE SAVEPOINT \(name)")
      }
      throw error
    }
    switch completion {
    case .commit:
      try execute(sql: "RELEASE SAVEPOINT \(name)")
    case .rollback:
      try execute(sql: "ROLLBACK TRANSACTION TO SAVEPOINT \(name)")
      try execute(sql: "RELEASE SAVEPOINT \(name)")
    }
  }

  /// A savepoint that commits when `block` returns and rolls back when it throws.
  ///
  /// ```swift
  /// let id = try db.savepoint {
  ///   try db.execute(sql: "INSERT …")
  ///   return db.lastInsertedRowID
  /// }
  /// ```
  public func savepoint<T>(_ block: () throws -> T) throws -> T {
    var result: T?
    try inSavepoint {
      result = try block()
      return .commit
    }
    return result!
  }
}
