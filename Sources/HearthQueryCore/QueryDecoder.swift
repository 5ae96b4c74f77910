import Foundation
import HearthSQLite

/// Reads the columns of one result row in order, the way generated `init(decoder:)`
/// initializers consume them: by index, with no lookup by name.
public struct QueryRowDecoder {
  @usableFromInline let row: Row
  /// The next column to read.
  @usableFromInline var index: Int

  @inlinable
  public init(row: Row, index: Int = 0) {
    self.row = row
    self.index = index
  }

  /// Reads the next value of type `T` (one column, or several for a table) and returns its
  /// Swift form (`T.QueryOutput`: a custom representation gives its represented value).
  @inlinable
  public mutating func decode<T: QueryRepresentable>(_ type: T.Type) throws -> T.QueryOutput {
    try T(decoder: &self).queryOutput
  }

  /// Reads the next value of `column`'s type: what `@Table`'s generated decoder calls.
  @inlinable
  public mutating func decode<Root, Value>(_ column: TableColumn<Root, Value>) throws
    -> Value.QueryOutput
  {
    try Value(decoder: &self).queryOutput
  }

  /// Reads the next column as a SQLite value type. A live row's value of the expected
  /// storage class is read right here; anything else (a copied row, NULL where none is
  /// allowed, text where a number is expected) takes the checked path, which converts or
  /// throws.
  @inlinable
  public mutating func decodeColumn<T: DatabaseValueConvertible>(_ type: T.Type) throws -> T {
    let index = self.index
    self.index = index + 1
    #if StrictDecoding
      // The fast path reads an integer as a floating-point number; strictly, it is not one.
      if StorageClass.read(by: T.self) == .real { try checkStorage(of: T.self, atIndex: index) }
    #endif
    if let decoded = row.fastValue(T.self, atIndex: index) { return decoded }
    #if StrictDecoding
      try checkStorage(of: T.self, atIndex: index)
    #endif
    return try T.decode(from: row, atIndex: index)
  }

  /// With the package trait `StrictDecoding`: a column read as an integer, a `Bool`, a
  /// floating-point number, text (`String`, `Date`, `UUID`) or bytes must hold that storage
  /// class (or NULL), as the reference's strict decoding requires; Hearth otherwise converts
  /// where no value is lost (an integer read as a `Double`, a 16-byte blob as a `UUID`).
  @usableFromInline
  func checkStorage<T>(of type: T.Type, atIndex index: Int) throws {
    let value = try row.databaseValue(atIndex: index)
    let held: StorageClass
    switch value.storage {
    case .null, .invalid: return  // NULL is checked by the type; SQLite's are never invalid
    case .integer: held = .integer
    case .double: held = .real
    case .text: held = .text
    case .blob: held = .blob
    }
    guard let expected = StorageClass.read(by: T.self), expected != held else { return }
    throw QueryDecodingError(
      type: "\(T.self)", value: value.description,
      reason: "the column holds another storage class (StrictDecoding)")
  }

  /// SQLite's storage classes, as `StrictDecoding` matches them to Swift types.
  @usableFromInline
  enum StorageClass {
    case integer, real, text, blob

    /// The class a type reads from strictly; nil for a type that decodes as it chooses.
    @usableFromInline static func read(by type: Any.Type) -> StorageClass? {
      if type is any FixedWidthInteger.Type || type == Bool.self { return .integer }
      if type is any BinaryFloatingPoint.Type { return .real }
      if type == String.self || type == Date.self || type == UUID.self { return .text }
      if type == Data.self { return .blob }
      return nil
    }
  }

  /// Whether the next `count` columns are all NULL.
  @inlinable
  public func nextColumnsAreNull(_ count: Int) throws -> Bool {
    for offset in 0..<count where !(try row.hasNull(atIndex: index + offset)) { return false }
    return true
  }

  /// Moves past `count` columns.
  @inlinable
  public mutating func skip(_ count: Int) { index += count }

  /// The raw value of the next column, without moving past it.
  public func peek() throws -> DatabaseValue { try row.databaseValue(atIndex: index) }

}

/// A stored value that does not fit the Swift type it is read into (an enum raw value with
/// no case, malformed JSON…).
public struct QueryDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
  public var type: String
  public var value: String
  public var reason: String

  public init(type: String, value: String, reason: String) {
    self.type = type
    self.value = value
    self.reason = reason
  }

  public var description: String { "cannot decode \(type) from \(value): \(reason)" }

  /// A column a type requires was NULL: what a custom `init(decoder:)` throws when
  /// `decode` gives nil.
  public static var missingRequiredColumn: QueryDecodingError {
    QueryDecodingError(type: "a required column", value: "NULL", reason: "missing")
  }

  /// A column's value is not of `type`.
  public static func typeMismatch(_ type: Any.Type) -> QueryDecodingError {
    QueryDecodingError(type: "\(type)", value: "the column", reason: "another type")
  }

  /// Matches an error thrown: `catch QueryDecodingError.missingRequiredColumn`.
  public static func ~= (pattern: QueryDecodingError, error: any Error) -> Bool {
    (error as? QueryDecodingError) == pattern
  }
}

/// What a custom type's `init(decoder:)` may read from, as the reference declares it: each
/// `decode` reads the next column and gives nil for NULL.
///
/// ```swift
/// struct Celsius: QueryRepresentable, QueryBindable {
///   var queryOutput: Double
///   init(queryOutput: Double) { self.queryOutput = queryOutput }
///   var queryBinding: QueryBinding { .double(queryOutput) }
///   init(decoder: inout some QueryDecoder) throws {
///     guard let value = try decoder.decode(Double.self) else { throw QueryDecodingError(…) }
///     queryOutput = value
///   }
/// }
/// ```
///
/// Hearth's rows are read by `QueryRowDecoder`, which conforms; a type written against this
/// protocol decodes through it unchanged.
public protocol QueryDecoder {
  /// The next value of `type`, or nil when its columns are NULL.
  mutating func _decodeIfPresent<T: QueryRepresentable>(_ type: T.Type) throws -> T.QueryOutput?
  /// The next value of `type`, read by its own `init(decoder:)`.
  mutating func _decodeValue<T: QueryDecodable>(_ type: T.Type) throws -> T
}

extension QueryDecoder {
  public mutating func decode(_ columnType: [UInt8].Type) throws -> [UInt8]? {
    try _decodeIfPresent([UInt8].self)
  }
  public mutating func decode(_ columnType: Double.Type) throws -> Double? {
    try _decodeIfPresent(Double.self)
  }
  public mutating func decode(_ columnType: Int64.Type) throws -> Int64? {
    try _decodeIfPresent(Int64.self)
  }
  /// An integer column read as unsigned: a negative value is an error, not a wrap.
  public mutating func decode(_ columnType: UInt64.Type) throws -> UInt64? {
    guard let value = try _decodeIfPresent(Int64.self) else { return nil }
    guard let unsigned = UInt64(exactly: value) else {
      throw QueryDecodingError(type: "UInt64", value: "\(value)", reason: "it is negative")
    }
    return unsigned
  }
  public mutating func decode(_ columnType: String.Type) throws -> String? {
    try _decodeIfPresent(String.self)
  }
  public mutating func decode(_ columnType: Bool.Type) throws -> Bool? {
    try _decodeIfPresent(Bool.self)
  }
  public mutating func decode(_ columnType: Int.Type) throws -> Int? {
    try _decodeIfPresent(Int.self)
  }
  public mutating func decode(_ columnType: Date.Type) throws -> Date? {
    try _decodeIfPresent(Date.self)
  }
  public mutating func decode(_ columnType: UUID.Type) throws -> UUID? {
    try _decodeIfPresent(UUID.self)
  }
  public mutating func decode<T: QueryRepresentable>(_ columnType: T.Type) throws
    -> T.QueryOutput?
  {
    try _decodeIfPresent(T.self)
  }
  /// Several values in a row, each read whole (not as optional).
  public mutating func decodeColumns<each T: QueryRepresentable>(
    _ columnTypes: (repeat each T).Type
  ) throws -> (repeat (each T).QueryOutput) {
    (repeat try _decodeValue((each T).self).queryOutput)
  }
  public mutating func decode<Root, Value>(_ column: TableColumn<Root, Value>) throws
    -> Value.QueryOutput?
  {
    try _decodeIfPresent(Value.self)
  }
}

extension QueryRowDecoder: QueryDecoder {
  @inlinable
  public mutating func _decodeIfPresent<T: QueryRepresentable>(_ type: T.Type) throws
    -> T.QueryOutput?
  {
    try T._decodeOptional(decoder: &self)?.queryOutput
  }

  @inlinable
  public mutating func _decodeValue<T: QueryDecodable>(_ type: T.Type) throws -> T {
    try T(decoder: &self)
  }

  // The same reads as the protocol's, typed as Hearth's own code reads them: a value, with
  // NULL an error unless the type is optional.
  @inlinable public mutating func decode(_ columnType: [UInt8].Type) throws -> [UInt8] {
    try [UInt8](decoder: &self)
  }
  @inlinable public mutating func decode(_ columnType: Double.Type) throws -> Double {
    try Double(decoder: &self)
  }
  @inlinable public mutating func decode(_ columnType: Int64.Type) throws -> Int64 {
    try Int64(decoder: &self)
  }
  @inlinable public mutating func decode(_ columnType: String.Type) throws -> String {
    try String(decoder: &self)
  }
  @inlinable public mutating func decode(_ columnType: Bool.Type) throws -> Bool {
    try Bool(decoder: &self)
  }
  @inlinable public mutating func decode(_ columnType: Int.Type) throws -> Int {
    try Int(decoder: &self)
  }
  @inlinable public mutating func decode(_ columnType: Date.Type) throws -> Date {
    try Date(decoder: &self)
  }
  @inlinable public mutating func decode(_ columnType: UUID.Type) throws -> UUID {
    try UUID(decoder: &self)
  }
}

extension QueryDecodable {
  /// Reads the value from a decoder known only by the protocol, as a type written for the
  /// reference does: `queryOutput = try String(decoder: &decoder)`. A conforming type still
  /// declares its own `init(decoder:)`.
  public init(decoder: inout some QueryDecoder) throws {
    self = try decoder._decodeValue(Self.self)
  }
}
