import CSQLite
import Foundation

/// One row of a result: read columns by index or by name, as any `DatabaseValueConvertible`.
///
/// ```swift
/// for row in try Row.fetchAll(db, sql: "SELECT id, name FROM players") {
///   let id: Int64 = try row[0]
///   let name: String = try row["name"]
/// }
/// ```
///
/// A row from a cursor is a live view of the statement and is valid only until the cursor
/// moves on; `copy()` it to keep it. Rows from `fetchAll` and `fetchOne` are copies.
public struct Row: CustomStringConvertible {
  /// The live statement, for rows read straight from a cursor.
  @usableFromInline let sqliteStatement: OpaquePointer?
  /// The values, for copied rows.
  @usableFromInline let storedValues: [DatabaseValue]
  @usableFromInline let columns: RowColumns
  /// The number of columns (kept in the row: every column read checks it).
  public let count: Int

  @usableFromInline
  init(sqliteStatement: OpaquePointer, columns: RowColumns) {
    self.sqliteStatement = sqliteStatement
    storedValues = []
    self.columns = columns
    count = columns.count
  }

  /// A row of the given columns and values, as a test or a remote result builds one.
  public init(columnNames: [String], values: [DatabaseValue]) {
    precondition(columnNames.count == values.count, "one value per column")
    sqliteStatement = nil
    storedValues = values
    columns = RowColumns(names: columnNames, sql: nil)
    count = values.count
  }

  init(columns: RowColumns, values: [DatabaseValue]) {
    sqliteStatement = nil
    storedValues = values
    self.columns = columns
    count = columns.count
  }

  /// The column names, in order.
  public var columnNames: [String] { columns.names }

  /// Whether the row has a column of that name (compared case-insensitively, as SQLite does).
  public func hasColumn(_ name: String) -> Bool { columns.index(of: name) != nil }

  /// All the values, in column order.
  public var databaseValues: [DatabaseValue] {
    if sqliteStatement == nil { return storedValues }
    return (0..<count).map { liveValue(atIndex: $0) }
  }

  /// A row that owns its values and outlives the cursor it came from.
  public func copy() -> Row {
    if sqliteStatement == nil { return self }
    return Row(columns: columns, values: databaseValues)
  }

  /// The value of column `index` converted to `Value`.
  ///
  /// Throws `RowDecodingError` when there is no such column or the value does not convert
  /// (NULL into a non-optional, text into an integer…).
  @inlinable
  public subscript<Value: DatabaseValueConvertible>(_ index: Int) -> Value {
    get throws { try Value.decode(from: self, atIndex: index) }
  }

  /// The value of the column named `name` (the first one, compared case-insensitively).
  @inlinable
  public subscript<Value: DatabaseValueConvertible>(_ name: String) -> Value {
    get throws {
      guard let index = columns.index(of: name) else {
        throw RowDecodingError(
          reason: .columnNotFound, column: "\"\(name)\"", type: "\(Value.self)", value: nil,
          sql: columns.sql)
      }
      return try Value.decode(from: self, atIndex: index)
    }
  }

  /// The raw value of column `index`.
  public func databaseValue(atIndex index: Int) throws -> DatabaseValue {
    try checkIndex(index, type: DatabaseValue.self)
    return sqliteStatement == nil ? storedValues[index] : liveValue(atIndex: index)
  }

  /// Whether column `index` holds NULL.
  @inlinable
  public func hasNull(atIndex index: Int) throws -> Bool {
    if let value = sqliteValue(atIndex: index) { return sqlite3_value_type(value) == SQLITE_NULL }
    try checkIndex(index, type: DatabaseValue.self)
    return storedValues[index].isNull
  }

  /// The SQLite value of column `index` of a live row, for the fast decoding paths; nil for
  /// copied rows and out-of-range indexes.
  ///
  /// SQLite calls this an "unprotected" value: reading it is safe only while nobody else
  /// uses the connection, which holds here, since a connection has one owner at a time and
  /// a live row is only valid until its cursor moves. One `sqlite3_column_value` followed by
  /// the cheap `sqlite3_value_*` accessors costs about half of the `sqlite3_column_type` +
  /// `sqlite3_column_*` pair, which each go through the connection's API exit checks.
  @inlinable
  func sqliteValue(atIndex index: Int) -> OpaquePointer? {
    guard let sqliteStatement, index >= 0, index < count else { return nil }
    return sqlite3_column_value(sqliteStatement, Int32(index))
  }

  /// Column `index` of a live row as `Value` when its storage class fits: the fast path of
  /// every decoding; nil for anything the checked path must convert or refuse.
  @inlinable
  package func fastValue<Value: DatabaseValueConvertible>(_ type: Value.Type, atIndex index: Int)
    -> Value?
  {
    guard let value = sqliteValue(atIndex: index) else { return nil }
    return Value._fromSQLiteValue(value)
  }

  /// The slow path of decoding: read a `DatabaseValue`, then convert it.
  @usableFromInline
  func decodeThroughDatabaseValue<Value: DatabaseValueConvertible>(
    _ type: Value.Type, atIndex index: Int
  ) throws -> Value {
    let value = try databaseValue(atIndex: index)
    guard let decoded = Value.fromDatabaseValue(value) else {
      throw RowDecodingError(
        reason: .valueMismatch, column: columns.describe(index), type: "\(Value.self)",
        value: value.description, sql: columns.sql)
    }
    return decoded
  }

  @usableFromInline
  func checkIndex<Value>(_ index: Int, type: Value.Type) throws {
    guard index >= 0, index < count else {
      throw RowDecodingError(
        reason: .columnNotFound, column: "at index \(index) of \(count)", type: "\(Value.self)",
        value: nil, sql: columns.sql)
    }
  }

  func liveValue(atIndex index: Int) -> DatabaseValue {
    guard let statement = sqliteStatement else { return storedValues[index] }
    return Row.value(sqlite3_column_value(statement, Int32(index)))
  }

  /// Reads any SQLite value (a column of a stepped statement, an argument of a SQL
  /// function) as a `DatabaseValue`.
  static func value(_ value: OpaquePointer?) -> DatabaseValue {
    switch sqlite3_value_type(value) {
    case SQLITE_INTEGER: return DatabaseValue(storage: .integer(sqlite3_value_int64(value)))
    case SQLITE_FLOAT: return DatabaseValue(storage: .double(sqlite3_value_double(value)))
    case SQLITE_TEXT: return DatabaseValue(storage: .text(text(value!)))
    case SQLITE_BLOB:
      let count = Int(sqlite3_value_bytes(value))
      guard count > 0, let bytes = sqlite3_value_blob(value) else {
        return DatabaseValue(storage: .blob(Data()))
      }
      return DatabaseValue(storage: .blob(Data(bytes: bytes, count: count)))
    default: return .null
    }
  }

  /// Reads a TEXT value without an intermediate copy.
  @inlinable
  static func text(_ value: OpaquePointer) -> String {
    guard let bytes = sqlite3_value_text(value) else { return "" }
    let count = Int(sqlite3_value_bytes(value))
    return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
  }

  public var description: String {
    let values = databaseValues
    return "[" + zip(columns.names, values).map { "\($0): \($1)" }.joined(separator: ", ") + "]"
  }
}

extension Row: Equatable {
  public static func == (lhs: Row, rhs: Row) -> Bool {
    lhs.columnNames == rhs.columnNames && lhs.databaseValues == rhs.databaseValues
  }
}

/// The column names of a statement's rows, shared by every row it produces.
@usableFromInline
final class RowColumns: Sendable {
  let names: [String]
  @usableFromInline let count: Int
  @usableFromInline let sql: String?
  private let lookup: [String: Int]

  init(names: [String], sql: String?) {
    self.names = names
    count = names.count
    self.sql = sql
    var lookup: [String: Int] = [:]
    for (index, name) in names.enumerated() where lookup[name.lowercased()] == nil {
      lookup[name.lowercased()] = index
    }
    self.lookup = lookup
  }

  @usableFromInline
  func index(of name: String) -> Int? {
    if let index = names.firstIndex(of: name) { return index }
    return lookup[name.lowercased()]
  }

  @usableFromInline
  func describe(_ index: Int) -> String {
    index < names.count ? "\(index) (\"\(names[index])\")" : "\(index)"
  }
}
