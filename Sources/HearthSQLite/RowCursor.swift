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
  @usableFromInline let statement: PreparedStatement
  /// Held strongly (the statement's own reference is unowned, and checking it on every row
  /// costs): a cursor lives only inside its database's closure anyway.
  @usableFromInline let database: Database
  @usableFromInline var isDone = false

  init(statement: PreparedStatement, arguments: StatementArguments?) throws {
    self.statement = statement
    database = statement.database
    if let arguments { try statement.setArguments(arguments) }
    try database.begin(statement)
  }

  deinit {
    if !isDone { database.finish(statement, succeeded: false) }
  }

  /// The next row, or nil at the end.
  @inlinable
  public func next() throws -> Row? {
    try step() ? row : nil
  }

  /// The current row: a live view that reads whatever row the last `step()` reached.
  public var row: Row {
    Row(sqliteStatement: statement.sqliteStatement, columns: statement.columns)
  }

  /// Moves to the next row; false at the end. With `row`, lets a loop read every row
  /// through one `Row` value instead of a new one per row.
  @inlinable
  public func step() throws -> Bool {
    if isDone { return false }
    do {
      if try database.step(statement) { return true }
    } catch {
      isDone = true
      throw error
    }
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
    try RowCursor(statement: db.cachedStatement(sql: sql), arguments: arguments)
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
    try fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
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
    return try cursor.next()?.copy()
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
    let statement = try db.cachedStatement(sql: sql)
    try statement.setArguments(arguments)
    try db.run(statement) { values.append(try Self.decode(from: $0, atIndex: 0)) }
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
    return try Self?.decode(from: row, atIndex: 0)
  }

  /// The distinct values of the first column of `sql`.
  public static func fetchSet(
    _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
  ) throws -> Set<Self> where Self: Hashable {
    Set(try fetchAll(db, sql: sql, arguments: arguments))
  }
}
