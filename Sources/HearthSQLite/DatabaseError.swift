import CSQLite

/// A SQLite result code, primary or extended (`SQLITE_CONSTRAINT_UNIQUE` is 2067).
///
/// Mirrors the C constants as static members, so that new codes break nobody:
///
/// ```swift
/// catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT { … }
/// ```
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public let rawValue: Int32
  public init(rawValue: Int32) { self.rawValue = rawValue }

  /// The primary code of an extended one (`SQLITE_CONSTRAINT_UNIQUE` → `SQLITE_CONSTRAINT`).
  public var primaryResultCode: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

  public var description: String {
    let name = String(cString: sqlite3_errstr(rawValue))
    return "\(rawValue) (\(name))"
  }

  public static let SQLITE_OK = ResultCode(rawValue: 0)
  public static let SQLITE_ERROR = ResultCode(rawValue: 1)
  public static let SQLITE_INTERNAL = ResultCode(rawValue: 2)
  public static let SQLITE_PERM = ResultCode(rawValue: 3)
  public static let SQLITE_ABORT = ResultCode(rawValue: 4)
  public static let SQLITE_BUSY = ResultCode(rawValue: 5)
  public static let SQLITE_LOCKED = ResultCode(rawValue: 6)
  public static let SQLITE_NOMEM = ResultCode(rawValue: 7)
  public static let SQLITE_READONLY = ResultCode(rawValue: 8)
  public static let SQLITE_INTERRUPT = ResultCode(rawValue: 9)
  public static let SQLITE_IOERR = ResultCode(rawValue: 10)
  public static let SQLITE_CORRUPT = ResultCode(rawValue: 11)
  public static let SQLITE_NOTFOUND = ResultCode(rawValue: 12)
  public static let SQLITE_FULL = ResultCode(rawValue: 13)
  public static let SQLITE_CANTOPEN = ResultCode(rawValue: 14)
  public static let SQLITE_PROTOCOL = ResultCode(rawValue: 15)
  public static let SQLITE_SCHEMA = ResultCode(rawValue: 17)
  public static let SQLITE_TOOBIG = ResultCode(rawValue: 18)
  public static let SQLITE_CONSTRAINT = ResultCode(rawValue: 19)
  public static let SQLITE_MISMATCH = ResultCode(rawValue: 20)
  public static let SQLITE_MISUSE = ResultCode(rawValue: 21)
  public static let SQLITE_AUTH = ResultCode(rawValue: 23)
  public static let SQLITE_RANGE = ResultCode(rawValue: 25)
  public static let SQLITE_NOTADB = ResultCode(rawValue: 26)
  public static let SQLITE_ROW = ResultCode(rawValue: 100)
  public static let SQLITE_DONE = ResultCode(rawValue: 101)

  public static let SQLITE_BUSY_SNAPSHOT = ResultCode(rawValue: 5 | (2 << 8))
  public static let SQLITE_READONLY_RECOVERY = ResultCode(rawValue: 8 | (1 << 8))
  public static let SQLITE_READONLY_DBMOVED = ResultCode(rawValue: 8 | (4 << 8))
  public static let SQLITE_CONSTRAINT_CHECK = ResultCode(rawValue: 19 | (1 << 8))
  public static let SQLITE_CONSTRAINT_FOREIGNKEY = ResultCode(rawValue: 19 | (3 << 8))
  public static let SQLITE_CONSTRAINT_NOTNULL = ResultCode(rawValue: 19 | (5 << 8))
  public static let SQLITE_CONSTRAINT_PRIMARYKEY = ResultCode(rawValue: 19 | (6 << 8))
  public static let SQLITE_CONSTRAINT_UNIQUE = ResultCode(rawValue: 19 | (8 << 8))
}

/// An error reported by SQLite, with the context needed to act on it.
///
/// ```swift
/// do {
///   try db.execute(sql: "INSERT INTO players (id) VALUES (1)")
/// } catch let error as DatabaseError {
///   error.resultCode          // .SQLITE_CONSTRAINT
///   error.extendedResultCode  // .SQLITE_CONSTRAINT_PRIMARYKEY
///   error.message             // "UNIQUE constraint failed: players.id"
///   error.sql                 // "INSERT INTO players (id) VALUES (1)"
/// }
/// ```
public struct DatabaseError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The extended result code (for example `SQLITE_CONSTRAINT_UNIQUE`).
  public var extendedResultCode: ResultCode
  /// SQLite's message, or ours when the error is found before SQLite sees anything.
  public var message: String?
  /// The SQL that failed, when there is one.
  public var sql: String?
  /// The arguments bound to that SQL, when there were some.
  public var arguments: StatementArguments?
  /// When a remote database (`Database(executor:)`) refused the work by a rule of its own
  /// rather than SQLite's, the executor's name for that rule (Hearth's hub: `unauthorized`,
  /// `unavailable`, `notRegistered`…); nil for SQLite's own errors.
  public var remoteCode: String?

  public init(
    resultCode: ResultCode = .SQLITE_ERROR, message: String? = nil, sql: String? = nil,
    arguments: StatementArguments? = nil, remoteCode: String? = nil
  ) {
    self.extendedResultCode = resultCode
    self.message = message
    self.sql = sql
    self.arguments = arguments
    self.remoteCode = remoteCode
  }

  /// The primary result code (for example `SQLITE_CONSTRAINT`).
  public var resultCode: ResultCode { extendedResultCode.primaryResultCode }

  public var description: String {
    var text =
      remoteCode.map { "\($0) (SQLite error \(extendedResultCode.rawValue))" }
      ?? "SQLite error \(extendedResultCode.rawValue)"
    if let message { text += ": \(message)" }
    if let sql { text += " - while executing `\(sql)`" }
    if let arguments, !arguments.isEmpty { text += " with arguments \(arguments)" }
    return text
  }
}

/// A value read from a row that cannot become the requested Swift type.
///
/// ```swift
/// let name: String = try row["name"]   // NULL → RowDecodingError.valueMismatch
/// ```
public struct RowDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
  public enum Reason: Hashable, Sendable {
    /// The row has no such column.
    case columnNotFound
    /// The stored value cannot become the requested type (NULL into a non-optional, text
    /// into an integer, an unparseable date…).
    case valueMismatch
  }

  public var reason: Reason
  /// The column, by name when known, else by index.
  public var column: String
  /// The requested Swift type.
  public var type: String
  /// The stored value, as a SQL literal.
  public var value: String?
  /// The SQL of the statement that produced the row, when known.
  public var sql: String?

  public init(reason: Reason, column: String, type: String, value: String?, sql: String?) {
    self.reason = reason
    self.column = column
    self.type = type
    self.value = value
    self.sql = sql
  }

  public var description: String {
    var text: String
    switch reason {
    case .columnNotFound: text = "no column \(column) in row; cannot decode \(type)"
    case .valueMismatch where value == "NULL":
      text = "Expected column \(column) to not be NULL, to decode \(type)"
    case .valueMismatch:
      text = "could not decode \(type) from \(value ?? "?") in column \(column)"
    }
    if let sql { text += " - from `\(sql)`" }
    return text
  }
}
