import Foundation

/// A type with a SQLite storage class to cast to: `x.cast(as: Int.self)` is
/// `CAST(x AS INTEGER)`. A custom type conforms by naming its affinity.
public protocol SQLiteType: QueryBindable {
  static var typeAffinity: SQLiteTypeAffinity { get }
}

/// A SQLite type affinity, as `CAST` names it.
public struct SQLiteTypeAffinity: RawRepresentable, Sendable {
  public static let blob = Self(rawValue: "BLOB")
  public static let integer = Self(rawValue: "INTEGER")
  public static let numeric = Self(rawValue: "NUMERIC")
  public static let real = Self(rawValue: "REAL")
  public static let text = Self(rawValue: "TEXT")

  public let rawValue: QueryFragment

  public init(rawValue: QueryFragment) { self.rawValue = rawValue }
}

extension SQLiteType where Self: BinaryInteger {
  public static var typeAffinity: SQLiteTypeAffinity { .integer }
}

extension SQLiteType where Self: BinaryFloatingPoint {
  public static var typeAffinity: SQLiteTypeAffinity { .real }
}

extension Int: SQLiteType {}
extension Int8: SQLiteType {}
extension Int16: SQLiteType {}
extension Int32: SQLiteType {}
extension Int64: SQLiteType {}
extension UInt8: SQLiteType {}
extension UInt16: SQLiteType {}
extension UInt32: SQLiteType {}
extension Double: SQLiteType {}
extension Float: SQLiteType {}

extension Bool: SQLiteType {
  public static var typeAffinity: SQLiteTypeAffinity { .integer }
}

extension String: SQLiteType {
  public static var typeAffinity: SQLiteTypeAffinity { .text }
}

extension Data: SQLiteType {
  public static var typeAffinity: SQLiteTypeAffinity { .blob }
}
