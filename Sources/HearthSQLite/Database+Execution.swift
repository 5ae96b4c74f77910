import CSQLite
import Foundation

// The one path every local statement runs through: begin, step, finish (the bookkeeping of
// change tracking and schema caches), and the read regions of observation.
extension Database {
  // MARK: - The one execution path

  /// Steps `statement` to the end, calling `onRow` with each row (a live view).
  ///
  /// Every statement this connection runs goes through `step`/`finish`, so change tracking,
  /// read recording and savepoint bookkeeping see all of them.
  func run(_ statement: PreparedStatement, onRow: (Row) throws -> Void) throws {
    try begin(statement)
    defer { statement.isBusy = false }
    let row = Row(sqliteStatement: statement.sqliteStatement, columns: statement.columns)
    while try step(statement) {
      do {
        try onRow(row)
      } catch {
        finish(statement, succeeded: false)
        throw error
      }
    }
  }

  /// Marks `statement` as in use and records what it reads.
  func begin(_ statement: PreparedStatement) throws {
    guard !statement.isBusy else {
      throw DatabaseError(
        resultCode: .SQLITE_MISUSE, message: "statement is already running", sql: statement.sql)
    }
    statement.isBusy = true
    sqlite3_reset(statement.sqliteStatement)
    if !readRecorders.isEmpty {
      readRecorders[readRecorders.count - 1].formUnion(statement.access.readTables)
    }
  }

  /// One step: true for a row, false at the end. Errors reset the statement.
  func step(_ statement: PreparedStatement) throws -> Bool {
    try stepped(statement, code: sqlite3_step(statement.sqliteStatement))
  }

  /// What a step that returned `code` means: true for a row, false at the end (the run is
  /// finished), an error otherwise (the run is finished and the error thrown). Cursors call
  /// `sqlite3_step` themselves and come here for every code but `SQLITE_ROW`.
  @usableFromInline
  func stepped(_ statement: PreparedStatement, code: Int32) throws -> Bool {
    switch code {
    case SQLITE_ROW:
      return true
    case SQLITE_DONE:
      finish(statement, succeeded: true)
      return false
    default:
      let failure = error(code: code, sql: statement.sql, arguments: statement.arguments)
      finish(statement, succeeded: false)
      throw failure
    }
  }

  /// Ends a run: resets the statement, then applies what it did to the bookkeeping.
  func finish(_ statement: PreparedStatement, succeeded: Bool) {
    sqlite3_reset(statement.sqliteStatement)
    statement.isBusy = false
    if succeeded {
      if let savepoint = statement.access.savepoint { changeTracker.apply(savepoint) }
      if statement.access.changesSchema {
        changeTracker.markSchemaChanged()
        withoutRowIDTables = nil
        columnNames.removeAll()
        primaryKeyColumns.removeAll()
      }
    }
    deliverCommittedChanges()
  }

  // MARK: - Read regions

  /// Runs `block` and returns, with its result, the tables that its statements read.
  ///
  /// ```swift
  /// let (count, tables) = try db.recordingReadTables {
  ///   try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM players JOIN teams ON …")
  /// }
  /// // tables == ["players", "teams"]
  /// ```
  public func recordingReadTables<T>(_ block: () throws -> T) rethrows -> (T, Set<String>) {
    readRecorders.append([])
    do {
      let value = try block()
      let tables = readRecorders.removeLast()
      if !readRecorders.isEmpty { readRecorders[readRecorders.count - 1].formUnion(tables) }
      return (value, tables)
    } catch {
      readRecorders.removeLast()
      throw error
    }
  }
}
