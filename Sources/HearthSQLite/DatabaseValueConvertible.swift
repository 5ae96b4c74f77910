import CSQLite
import Foundation

/// A Swift type that is stored as one SQLite value and read back from one.
///
/// The standard conformances store values the way the reference does: integers and `Bool`
/// (0/1) as INTEGER, `Double`/`Float` as REAL, `String` as TEXT, `Data` as BLOB, `Date` as
/// UTC text `yyyy-MM-dd HH:mm:ss.SSS`, `UUID` as lowercase text. An optional stores `nil`
/// as NULL.
///
/// ```swift
/// struct Email: DatabaseValueConvertible {
///   var address: String
///   var databaseValue: DatabaseValue { address.databaseValue }
///   static func fromDatabaseValue(_ value: DatabaseValue) -> Email? {
///     String.fromDatabaseValue(value).map(Email.init(address:))
///   }
/// }
/// ```
public protocol DatabaseValueConvertible {
  /// The value to store.
  var databaseValue: DatabaseValue { get }

  /// The Swift value of a stored one, or nil when the stored value cannot become `Self`.
  static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self?

  /// Reads column `index` of `row`: through `_fromSQLiteValue` for a live row when the
  /// type offers it, else through `fromDatabaseValue`.
  static func decode(from row: Row, atIndex index: Int) throws -> Self

  /// Plumbing for the fast path of the standard types: the Swift value of a live SQLite
  /// value (`sqlite3_value *`), or nil when its storage class does not fit, in which case
  /// the checked slow path runs and reports the error. Not for user types.
  static func _fromSQLiteValue(_ value: OpaquePointer) -> Self?
}

extension DatabaseValueConvertible {
  @inlinable
  public static func _fromSQLiteValue(_ value: OpaquePointer) -> Self? { nil }

  @inlinable
  public static func decode(from row: Row, atIndex index: Int) throws -> Self {
    if let decoded = row.fastValue(Self.self, atIndex: index) { return decoded }
    return try row.decodeThroughDatabaseValue(Self.self, atIndex: index)
  }
}

// MARK: - DatabaseValue itself

extension DatabaseValue: DatabaseValueConvertible {
  public var databaseValue: DatabaseValue { self }
  public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> DatabaseValue? { dbValue }
}

// MARK: - Optional

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
  public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }

  public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Wrapped?? {
    if dbValue.isNull { return .some(nil) }
    return Wrapped.fromDatabaseValue(dbValue).map { .some($0) }
  }

  /// NULL is `nil`; any other value is the wrapped type's.
  @inlinable
  public static func _fromSQLiteValue(_ value: OpaquePointer) -> Wrapped?? {
    if sqlite3_value_type(value) == SQLITE_NULL { return .some(nil) }
    return Wrapped._fromSQLiteValue(value).map { .some($0) }
  }

  @inlinable
  public static func decode(from row: Row, atIndex index: Int) throws -> Wrapped? {
    if let decoded = row.fastValue(Self.self, atIndex: index) { return decoded }
    if try row.hasNull(atIndex: index) { return nil }
    return try Wrapped.decode(from: row, atIndex: index)
  }
}

// MARK: - Integers

extension Int64: DatabaseValueConvertible {
  public var databaseValue: DatabaseValue { DatabaseValue(storage: .integer(self)) }

  public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Int64? {
    switch dbValue.storage {
    case .integer(let value): return value
    case .double(let value): return Int64(exactly: value)
    default: return nil
    }
  }

  @inlinable
  public static func _fromSQLiteValue(_ value: OpaquePointer) -> Int64? {
    sqlite3_value_type(value) == SQLITE_INTEGER ? sqlite3_value_int64(value) : nil
  }
}

/// The fixed-width integers other than Int64 convert through it, failing on overflow.
public protocol _DatabaseInteger: FixedWidthInteger, DatabaseValueConvertible {}

extension _DatabaseInteger {
  public var databaseValue: DatabaseValue { DatabaseValue(storage: .integer(Int64(self))) }

  public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
    Int64.fromDatabaseValue(dbValue).flatMap { Self(exactly: $0) }
  }

  @inlinable
  public static func _fromSQLiteValue(_ value: OpaquePointer) -> Self? {
    sqlite3_value_type(value) == SQLITE_INTEGER ? Self(exactly: sqlite3_value_int64(value)) : nil
  }
}

extension Int: _DatabaseInteger {}
extension Int8: _DatabaseInteger {}
extension Int16: _DatabaseInteger {}
extension Int32: _DatabaseInteger {}
extension UInt8: _DatabaseInteger {}
extension UInt16: _DatabaseInteger {}
extension UInt32: _DatabaseInteger {}

// MARK: - Bool

extension Bool: DatabaseValueConvertible {
  /// Stored as 0 or 1.
  public var databaseValue: DatabaseValue { DatabaseValue(storage: .integer(self ? 1 : 0)) }

  /// Any non-zero number is true.
  public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Bool? {
    switch dbValue.storage {
    case .integer(let value): return value != 0
    case .double(let value): return value != 0
    default: return nil
    }
  }

  @inlinable
  public static func _fromSQLiteValue(_ value: OpaquePointer) -> Bool? {
    sqlite3_value_type(value) == SQLITE_INTEGER ? sqlite3_value_int64(value) != 0 : nil
  }
}

// MARK: - Floating point

extension Double: DatabaseValueConvertible {
  public var databaseValue: DatabaseValue { DatabaseValue(storage: .double(self)) }

  public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Double? {
    switch dbValue.storage {
    case .integer(let value): return Double(value)
    case .double(let value): return value
    default: return nil
    }
  }

  @inlinable
  public static func _fromSQLiteValue(_ value: OpaquePointer) -> Double? {
    let type = sqlite3_value_type(value)
    return type == SQLITE_FLOAT || type == SQLITE_INTEGER ? sqlite3_value_double(value) : nil
  }
}

extension Float: DatabaseValueConvertible {
  public var databaseValue: DatabaseValue { DatabaseValue(storage: .double(Double(self))) }

  public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Float? {
    Double.fromDatabaseValue(dbValue).map(Float.init)
  }
}

// MARK: - Text and bytes

extension String: DatabaseValueConvertible {
  public var databaseValue: DatabaseValue { DatabaseValue(storage: .text(self)) }

  public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> String? {
    if case .text(let value) = dbValue.storage { return value }
    return nil
  }

  @inlinable
  public static func _fromSQLiteValue(_ value: OpaquePointer) -> String? {
    sqlite3_value_type(value) == SQLITE_TEXT ? Row.text(value) : nil
  }
}

extension Data: DatabaseValueConvertible {
  public var databaseValue: DatabaseValue { DatabaseValue(storage: .blob(self)) }

  /// A blob, or the UTF-8 bytes of a text.
  public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Data? {
    switch dbValue.storage {
    case .blob(let value): return value
    case .text(let value): return Data(value.utf8)
    default: return nil
    }
  }
}

// MARK: - Date and UUID

extension Date: DatabaseValueConvertible {
  /// Stored as UTC text `yyyy-MM-dd HH:mm:ss.SSS`, rounded to the millisecond.
  public var databaseValue: DatabaseValue {
    DatabaseValue(storage: .text(DatabaseDateFormat.format(self)))
  }

  /// Reads the text forms SQLite's date functions produce (`yyyy-MM-dd`, with
  /// `HH:mm[:ss[.SSS]]`, a space or `T`, and an optional `Z` or `±HH:mm`), or a number of
  /// seconds since 1970.
  public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Date? {
    switch dbValue.storage {
    case .text(let text): return DatabaseDateFormat.parse(text)
    case .integer(let value): return Date(timeIntervalSince1970: TimeInterval(value))
    case .double(let value): return Date(timeIntervalSince1970: value)
    default: return nil
    }
  }
}

extension UUID: DatabaseValueConvertible {
  /// Stored as lowercase text (`"e621e1f8-c36c-495a-93fc-0c247a3e6e5f"`).
  public var databaseValue: DatabaseValue {
    DatabaseValue(storage: .text(uuidString.lowercased()))
  }

  /// Text in either case, or a 16-byte blob.
  public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> UUID? {
    switch dbValue.storage {
    case .text(let text): return UUID(uuidString: text)
    case .blob(let data) where data.count == 16:
      let b = [UInt8](data)
      return UUID(
        uuid: (
          b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
          b[14], b[15]
        ))
    default: return nil
    }
  }
}
