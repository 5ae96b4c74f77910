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
  }

  public var storage: Storage

  @inlinable
  public init(storage: Storage) { self.storage = storage }

  /// SQL NULL.
  public static let null = DatabaseValue(storage: .null)

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
    }
  }
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
