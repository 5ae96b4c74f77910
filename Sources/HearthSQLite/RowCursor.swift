import CSQLite

/// Iterates the rows of a statement one at a time, without loading them all.
///
/// ```swift
/// let rows = try Row.fetchCursor(db, sql: "SELECT id, name FROM players")
/// while let row = try rows.next() {
///   let name: String = try row["name"]
/// }
/// ```
///
/// Each row is a live view, valid until the next call to `next()`. The cursor is valid only
/// inside the `read`/`write` closure that made it.
public final class RowCursor {
  /// The statement, for rows read live from this process's connection.
  @usableFromInline let statement: PreparedStatement?
  /// `statement`'s SQLite handle, stepped directly on the path of every row: calling through
  /// `database` would retain and release both objects for each row.
  @usableFromInline let sqliteStatement: OpaquePointer?
  /// Held strongly (the statement's own reference is unowned, and checking it on every row
  /// costs): a cursor lives only inside its database's closure anyway.
  @usableFromInline let database: Database?
  /// The rows, for results that arrived as values (a remote database's).
  @usableFromInline let valueRows: [[DatabaseValue]]
  @usableFromInline let valueColumns: RowColumns?
  @usableFromInline var valueIndex = -1
  /// True when `statement` and `database` are set (a live cursor).
  @usableFromInline let isLiveCursor: Bool
  @usableFromInline var isDone = false

  init(statement: PreparedStatement, arguments: StatementArguments?) throws {
    self.statement = statement
    sqliteStatement = statement.sqliteStatement
    database = statement.database
    valueRows = []
    valueColumns = nil
    isLiveCursor = true
    if let arguments { try statement.setArguments(arguments) }
    try statement.database.begin(statement)
  }

  /// A cursor over rows that are already values.
  init(columnNames: [String], rows: [[DatabaseValue]], sql: String?) {
    statement = nil
    sqliteStatement = nil
    database = nil
    valueRows = rows
    valueColumns = RowColumns(names: columnNames, sql: sql)
    isLiveCursor = false
  }

  deinit {
    if !isDone, let statement, let database { database.finish(statement, succeeded: false) }
  }

  /// The names of the result columns.
  public var columnNames: [String] {
    statement?.columnNames ?? valueColumns?.names ?? []
  }

  /// Whether `row` is a live view of the statement (one `Row` serves every step) rather than
  /// a value made for each row.
  public var isLive: Bool { isLiveCursor }

  /// The next row, or nil at the end.
  @inlinable
  public func next() throws -> Row? {
    try step() ? row : nil
  }

  /// The current row. For a live cursor, a view that reads whatever row the last `step()`
  /// reached; else the values of the current row.
  public var row: Row {
    if let statement {
      return Row(sqliteStatement: statement.sqliteStatement, columns: statement.columns)
    }
    return Row(columns: valueColumns!, values: valueRows[valueIndex])
  }

  /// Moves to the next row; false at the end. With `row`, lets a loop read every row of a
  /// live cursor through one `Row` value instead of a new one per row.
  @inlinable
  public func step() throws -> Bool {
    if isLiveCursor && !isDone {
      let code = sqlite3_step(sqliteStatement.unsafelyUnwrapped)
      if code == SQLITE_ROW { return true }
      return try finishStep(code: code)
    }
    return stepValues()
  }

  /// Runs a statement that writes to its end, discarding the rows it has left: what
  /// `fetchOne` does after its row, so that `INSERT … RETURNING` read for its first row
  /// applies all of its work (left half-run and reset, SQLite undoes it when a trigger wrote
  /// a full-text table) and reports a failure of a later row. A read stops where it is.
  public func finishWrites() throws {
    guard isLiveCursor, !isDone, let statement, !statement.isReadOnly else { return }
    while try step() {}
  }

  /// The end of a live run, or its error: the database's bookkeeping for the statement.
  @usableFromInline
  func finishStep(code: Int32) throws -> Bool {
    isDone = code != SQLITE_ROW
    return try database.unsafelyUnwrapped.stepped(statement.unsafelyUnwrapped, code: code)
  }

  /// The next row of a cursor over values.
  @usableFromInline
  func stepValues() -> Bool {
    if isDone { return false }
    valueIndex += 1
    if valueIndex < valueRows.count { return true }
    isDone = true
    return false
  }

  /// Calls `body` with each remaining row.
  @inlinable
  public func forEach(_ body: (Row) throws -> Void) throws {
    while let row = try next() { try body(row) }
  }
}

extension Row {
  /// A cursor over the rows of `sql`.
  public static func fetchCursor(
    _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
  ) throws -> RowCursor {
    try db.rowCursor(sql: sql, arguments: arguments)
  }

  /// A cursor over the rows of a prepared statement.
  public static func fetchCursor(
    _ statement: PreparedStatement, arguments: StatementArguments? = nil
  )
    throws -> RowCursor
  {
    try RowCursor(statement: statement, arguments: arguments)
  }

  /// All rows of `sql`, copied.
  public static func fetchAll(
    _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
  ) throws -> [Row] {
    let cursor = try db.rowCursor(sql: sql, arguments: arguments)
    var rows: [Row] = []
    while let row = try cursor.next() { rows.append(row.copy()) }
    return rows
  }

  /// All rows of a prepared statement, copied.
  public static func fetchAll(_ statement: PreparedStatement, arguments: StatementArguments? = nil)
    throws -> [Row]
  {
    if let arguments { try statement.setArguments(arguments) }
    var rows: [Row] = []
    try statement.database.run(statement) { rows.append($0.copy()) }
    return rows
  }

  /// The first row of `sql`, copied, or nil.
  public static func fetchOne(
    _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
  ) throws -> Row? {
    let cursor = try fetchCursor(db, sql: sql, arguments: arguments)
    let row = try cursor.next()?.copy()
    try cursor.finishWrites()
    return row
  }
}

extension DatabaseValueConvertible {
  /// The first column of every row of `sql`.
  ///
  /// ```swift
  /// let names = try String.fetchAll(db, sql: "SELECT name FROM players")
  /// ```
  public static func fetchAll(
    _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
  ) throws -> [Self] {
    var values: [Self] = []
    let cursor = try db.rowCursor(sql: sql, arguments: arguments)
    while let row = try cursor.next() { values.append(try Self.decode(from: row, atIndex: 0)) }
    return values
  }

  /// The first column of the first row of `sql`; nil when there is no row or it is NULL.
  ///
  /// ```swift
  /// let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM players")!
  /// ```
  public static func fetchOne(
    _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
  ) throws -> Self? {
    let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
    guard let row = try cursor.next() else { return nil }
    let value = try Self?.decode(from: row, atIndex: 0)
    try cursor.finishWrites()
    return value
  }

  /// The distinct values of the first column of `sql`.
  public static func fetchSet(
    _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
  ) throws -> Set<Self> where Self: Hashable {
    Set(try fetchAll(db, sql: sql, arguments: arguments))
  }
}
