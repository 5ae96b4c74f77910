import Foundation

/// One SQLite value: the five storage classes, with nothing lost on the way.
///
/// ```swift
/// let value: DatabaseValue = 42.databaseValue
/// value.storage   // .integer(42)
/// ```
public struct DatabaseValue: Hashable, Sendable, CustomStringConvertible {
  /// SQLite's storage classes.
  public enum Storage: Hashable, Sendable {
    case null
    case integer(Int64)
    case double(Double)
    case text(String)
    case blob(Data)
    /// No value: a Swift value that cannot be bound (`UInt64.max`), and why. A statement
    /// with such an argument throws that error instead of running; no such value is ever
    /// read from a database or sent to the hub.
    case invalid(QueryBindingError)
  }

  public var storage: Storage

  @inlinable
  public init(storage: Storage) { self.storage = storage }

  /// SQL NULL.
  public static let null = DatabaseValue(storage: .null)

  /// A value that cannot be bound, and why: the statement it is an argument of throws
  /// `error` (as a `QueryBindingError`) rather than run.
  public static func invalid(_ error: any Error) -> DatabaseValue {
    DatabaseValue(storage: .invalid(QueryBindingError(underlyingError: error)))
  }

  /// The error of an argument that cannot be bound, if this is one.
  public var bindingError: QueryBindingError? {
    if case .invalid(let error) = storage { return error }
    return nil
  }

  public var isNull: Bool {
    if case .null = storage { return true }
    return false
  }

  /// The value as a SQL literal, as `expandedDescription` and error messages show it.
  public var description: String {
    switch storage {
    case .null: return "NULL"
    case .integer(let value): return String(value)
    case .double(let value):
      if value.isNaN { return "NULL" }
      if value.isInfinite { return value > 0 ? "1e999" : "-1e999" }
      return "\(value)"
    case .text(let value): return "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
    case .blob(let data):
      return "X'"
        + data.map { byte in
          let digits = String(byte, radix: 16, uppercase: true)
          return byte < 16 ? "0" + digits : digits
        }.joined() + "'"
    case .invalid(let error): return "<invalid: \(error.underlyingError)>"
    }
  }
}

/// Why a Swift value could not be bound to a statement (see `DatabaseValue.invalid(_:)`).
/// All such errors compare equal, so that values holding them stay `Hashable`.
public struct QueryBindingError: Error, Hashable, CustomStringConvertible {
  public let underlyingError: any Error

  public init(underlyingError: any Error) { self.underlyingError = underlyingError }

  public static func == (lhs: Self, rhs: Self) -> Bool { true }
  public func hash(into hasher: inout Hasher) {}

  public var description: String { "cannot bind the value: \(underlyingError)" }
}

extension DatabaseValue: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
  ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
  public init(integerLiteral value: Int64) { self.init(storage: .integer(value)) }
  public init(floatLiteral value: Double) { self.init(storage: .double(value)) }
  public init(stringLiteral value: String) { self.init(storage: .text(value)) }
  /// Booleans are stored as 0 or 1.
  public init(booleanLiteral value: Bool) { self.init(storage: .integer(value ? 1 : 0)) }
  public init(nilLiteral: ()) { self.init(storage: .null) }
}
