import CSQLite

/// A prepared SQL statement of one connection.
///
/// Most code never sees one: `db.execute(sql:)` and the `fetch` methods prepare and cache
/// statements. Hold one to run the same SQL many times with new arguments:
///
/// ```swift
/// let insert = try db.makeStatement(sql: "INSERT INTO players (name) VALUES (?)")
/// for name in ["Arthur", "Barbara"] { try insert.execute(arguments: [name]) }
/// ```
public final class PreparedStatement {
  @usableFromInline let sqliteStatement: OpaquePointer
  @usableFromInline unowned let database: Database
  /// The SQL text of this one statement.
  public let sql: String
  /// The arguments bound last.
  public private(set) var arguments = StatementArguments()
  @usableFromInline let columns: RowColumns
  /// What SQLite's authorizer reported while preparing.
  let access: StatementAccess
  /// True while a cursor is stepping this statement: the cache then prepares another one.
  var isBusy = false

  init(database: Database, sqliteStatement: OpaquePointer, sql: String, access: StatementAccess) {
    self.database = database
    self.sqliteStatement = sqliteStatement
    self.sql = sql
    self.access = access
    let count = Int(sqlite3_column_count(sqliteStatement))
    let names = (0..<count).map { String(cString: sqlite3_column_name(sqliteStatement, Int32($0))) }
    columns = RowColumns(names: names, sql: sql)
  }

  deinit { sqlite3_finalize(sqliteStatement) }

  /// The names of the result columns.
  public var columnNames: [String] { columns.names }

  /// The number of result columns.
  public var columnCount: Int { columns.count }

  /// Whether the statement leaves the database unchanged (SQLite's `sqlite3_stmt_readonly`).
  public var isReadOnly: Bool { sqlite3_stmt_readonly(sqliteStatement) != 0 }

  /// The tables this statement reads, as SQLite's authorizer reported them.
  public var readTables: Set<String> { access.readTables }

  /// The tables this statement (and the triggers it fires) may write.
  public var writtenTables: Set<String> { access.writtenTables }

  /// The number of parameters (`?`, `:name`…).
  public var parameterCount: Int { Int(sqlite3_bind_parameter_count(sqliteStatement)) }

  /// Binds `arguments`, checking that they fill the parameters exactly.
  public func setArguments(_ arguments: StatementArguments) throws {
    var position = 0
    try bind(arguments, consumingFrom: &position)
    guard position == arguments.values.count else {
      throw DatabaseError(
        resultCode: .SQLITE_MISUSE,
        message: "wrong number of statement arguments: \(arguments.values.count) given, "
          + "\(position) expected",
        sql: sql, arguments: arguments)
    }
  }

  /// Binds the parameters from `arguments`, taking positional values from `position` on.
  func bind(_ arguments: StatementArguments, consumingFrom position: inout Int) throws {
    sqlite3_reset(sqliteStatement)
    sqlite3_clear_bindings(sqliteStatement)
    self.arguments = arguments
    let count = sqlite3_bind_parameter_count(sqliteStatement)
    guard count > 0 else { return }
    for index in 1...count {
      let value: DatabaseValue
      if let cName = sqlite3_bind_parameter_name(sqliteStatement, index),
        cName.pointee != UInt8(ascii: "?")
      {
        let name = String(String(cString: cName).dropFirst())
        if let named = arguments.namedValues[name] {
          value = named
        } else if position < arguments.values.count {
          value = arguments.values[position]
          position += 1
        } else {
          throw DatabaseError(
            resultCode: .SQLITE_MISUSE, message: "missing statement argument: \(name)", sql: sql,
            arguments: arguments)
        }
      } else {
        guard position < arguments.values.count else {
          throw DatabaseError(
            resultCode: .SQLITE_MISUSE,
            message: "wrong number of statement arguments: \(arguments.values.count) given",
            sql: sql, arguments: arguments)
        }
        value = arguments.values[position]
        position += 1
      }
      if let error = value.bindingError { throw error }
      let code = bindValue(value, at: index)
      guard code == SQLITE_OK else {
        throw DatabaseError(
          resultCode: ResultCode(rawValue: code), message: database.lastErrorMessage, sql: sql,
          arguments: arguments)
      }
    }
  }

  private func bindValue(_ value: DatabaseValue, at index: Int32) -> Int32 {
    switch value.storage {
    case .null: return sqlite3_bind_null(sqliteStatement, index)
    case .integer(let integer): return sqlite3_bind_int64(sqliteStatement, index, integer)
    case .double(let double): return sqlite3_bind_double(sqliteStatement, index, double)
    case .text(let text):
      return text.withCString { pointer in
        hearth_sqlite3_bind_text_transient(
          sqliteStatement, index, pointer, Int32(text.utf8.count))
      }
    case .blob(let data):
      return data.withUnsafeBytes {
        // A zero-length blob needs a non-null pointer, or SQLite binds NULL.
        hearth_sqlite3_bind_blob_transient(
          sqliteStatement, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!,
          Int32($0.count))
      }
    case .invalid:
      // Refused before binding (`bindingError`).
      return SQLITE_MISUSE
    }
  }

  /// Runs the statement to completion, discarding any rows.
  public func execute(arguments: StatementArguments? = nil) throws {
    if let arguments { try setArguments(arguments) }
    try database.run(self) { _ in }
  }
}

/// What the authorizer saw while a statement was prepared.
struct StatementAccess {
  var readTables: Set<String> = []
  var writtenTables: Set<String> = []
  var changesSchema = false
  var savepoint: SavepointAction?

  enum SavepointAction {
    case begin(String)
    case release(String)
    case rollback(String)
  }
}
