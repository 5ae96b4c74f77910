import Foundation
import HearthSQLite

/// A Swift value that can be read from the columns of a result row.
public protocol QueryDecodable: SendableMetatype {
  /// Reads the value from the decoder's next column(s).
  init(decoder: inout QueryRowDecoder) throws

  /// How many columns the value spans (1, or a table's column count).
  static var _columnWidth: Int { get }

  /// Reads the value, or nil when its columns are all NULL (how `Optional` decodes).
  static func _decodeOptional(decoder: inout QueryRowDecoder) throws -> Self?
}

extension QueryDecodable {
  @inlinable public static var _columnWidth: Int { 1 }

  @inlinable
  public static func _decodeOptional(decoder: inout QueryRowDecoder) throws -> Self? {
    if try decoder.nextColumnsAreNull(_columnWidth) {
      decoder.skip(_columnWidth)
      return nil
    }
    return try Self(decoder: &decoder)
  }
}

/// A Swift type with a database form: `QueryOutput` is what Swift code holds, `Self` what
/// the database stores. For most types they are the same; a custom representation (such as
/// `Color.HexRepresentation`, whose `QueryOutput` is `Color`) differs.
///
/// ```swift
/// struct HexRepresentation: QueryBindable, QueryRepresentable {
///   var queryOutput: Color
///   init(queryOutput: Color) { self.queryOutput = queryOutput }
///   var queryBinding: QueryBinding { queryOutput.hex.databaseValue }
///   init(decoder: inout QueryRowDecoder) throws { queryOutput = Color(hex: try decoder.decode(Int.self)) }
/// }
/// ```
public protocol QueryRepresentable<QueryOutput>: QueryDecodable {
  associatedtype QueryOutput = Self
  init(queryOutput: QueryOutput)
  var queryOutput: QueryOutput { get }
}

extension QueryRepresentable where QueryOutput == Self {
  @inlinable public init(queryOutput: Self) { self = queryOutput }
  @inlinable public var queryOutput: Self { self }
}

/// A value that binds to one query parameter and reads back from one column: the types of
/// columns. Integers, `Double`, `String`, `Bool`, `Date`, `UUID`, `Data` and optionals of
/// them conform; so does an enum that declares it, through its raw value:
///
/// ```swift
/// enum Priority: Int, QueryBindable { case low = 1, medium, high }
/// ```
public protocol QueryBindable: QueryRepresentable, QueryExpression where QueryValue == Self {
  /// The value to bind.
  var queryBinding: QueryBinding { get }

  /// A column of this type as a value of a JSON object (`json_object` of a row): the column
  /// itself, except where JSON has a type of its own (`true`/`false`, nested JSON).
  static func _jsonEncoded(_ value: QueryFragment) -> QueryFragment
}

extension QueryBindable {
  public var queryFragment: QueryFragment { QueryFragment(binding: queryBinding) }

  public static func _jsonEncoded(_ value: QueryFragment) -> QueryFragment { value }
}

extension Bool {
  public static func _jsonEncoded(_ value: QueryFragment) -> QueryFragment {
    "json(CASE " + value + " WHEN 0 THEN 'false' WHEN 1 THEN 'true' END)"
  }
}

extension QueryBindable where Self: DatabaseValueConvertible {
  @inlinable public var queryBinding: QueryBinding { databaseValue }

  @inlinable public init(decoder: inout QueryRowDecoder) throws {
    self = try decoder.decodeColumn(Self.self)
  }

  /// One read of the column does both the NULL check and the decoding.
  @inlinable
  public static func _decodeOptional(decoder: inout QueryRowDecoder) throws -> Self? {
    try decoder.decodeColumn(Self?.self)
  }
}

/// Numbers, text and booleans also convert losslessly to text; they are stored as
/// themselves, as above.
extension QueryBindable where Self: DatabaseValueConvertible & LosslessStringConvertible {
  @inlinable public var queryBinding: QueryBinding { databaseValue }

  @inlinable public init(decoder: inout QueryRowDecoder) throws {
    self = try decoder.decodeColumn(Self.self)
  }
}

extension Int: QueryBindable {}
extension Int8: QueryBindable {}
extension Int16: QueryBindable {}
extension Int32: QueryBindable {}
extension Int64: QueryBindable {}
extension UInt8: QueryBindable {}
extension UInt16: QueryBindable {}
extension UInt32: QueryBindable {}

/// An unsigned 64-bit integer: a column of SQLite's signed integers. A negative one read is an
/// error, not a wrap; one past `Int64.max` cannot be bound, so the statement it is an argument
/// of throws (`QueryBindingError` over `Int64OverflowError`) rather than store another number.
extension UInt64: QueryBindable {
  public var queryBinding: QueryBinding {
    guard let signed = Int64(exactly: self) else {
      return .invalid(Int64OverflowError(unsignedInteger: self))
    }
    return DatabaseValue(storage: .integer(signed))
  }

  public init(decoder: inout QueryRowDecoder) throws {
    let value = try decoder.decodeColumn(Int64.self)
    guard let unsigned = UInt64(exactly: value) else {
      throw QueryDecodingError(type: "UInt64", value: "\(value)", reason: "it is negative")
    }
    self = unsigned
  }
}
/// A `UInt64` past `Int64.max`, which no SQLite integer holds.
public struct Int64OverflowError: Error, Hashable, CustomStringConvertible {
  public let unsignedInteger: UInt64

  public init(unsignedInteger: UInt64) { self.unsignedInteger = unsignedInteger }
  public var description: String {
    "\(unsignedInteger) does not fit a SQLite integer (at most \(Int64.max))"
  }
}

extension Double: QueryBindable {}
extension Float: QueryBindable {}
extension Bool: QueryBindable {}
extension String: QueryBindable {}
extension Data: QueryBindable {}
extension Date: QueryBindable {}
extension UUID: QueryBindable {}
extension DatabaseValue: QueryBindable {}

/// A URL, stored as its text (`absoluteString`).
extension URL: QueryBindable {
  public var queryBinding: QueryBinding { absoluteString.databaseValue }

  public init(decoder: inout QueryRowDecoder) throws {
    let text = try decoder.decodeColumn(String.self)
    guard let url = URL(string: text) else {
      throw QueryDecodingError(
        type: "URL", value: DatabaseValue(storage: .text(text)).description,
        reason: "not a URL")
    }
    self = url
  }
}

// MARK: - Enums

extension QueryBindable where Self: RawRepresentable, RawValue: QueryBindable {
  public var queryBinding: QueryBinding { rawValue.queryBinding }

  public init(decoder: inout QueryRowDecoder) throws {
    let stored = try decoder.peek()
    let rawValue = try RawValue(decoder: &decoder)
    guard let value = Self(rawValue: rawValue) else {
      throw QueryDecodingError(
        type: "\(Self.self)", value: stored.description, reason: "no case has that raw value")
    }
    self = value
  }
}

// MARK: - Text that converts losslessly

/// A type that converts to and from its text without loss (`LosslessStringConvertible`) is
/// stored as that text: `struct Email: LosslessStringConvertible, QueryBindable`.
extension QueryBindable where Self: LosslessStringConvertible {
  public var queryBinding: QueryBinding { description.queryBinding }

  public init(decoder: inout QueryRowDecoder) throws {
    let stored = try decoder.peek()
    let text = try String(decoder: &decoder)
    guard let value = Self(text) else {
      throw QueryDecodingError(
        type: "\(Self.self)", value: stored.description, reason: "not a valid \(Self.self)")
    }
    self = value
  }
}

// MARK: - Optional

/// What every `Optional` is; lets the query language treat optional values specially
/// (`IS` instead of `=`, `??`).
public protocol _OptionalProtocol {
  associatedtype Wrapped
  /// `Wrapped`, for code that holds only the optional's type.
  static var _wrappedType: Any.Type { get }
  /// `nil`, for code that holds only the optional's type.
  static var _none: Self { get }
}

extension Optional: _OptionalProtocol {
  public static var _wrappedType: Any.Type { Wrapped.self }
  /// `nil`, for code that holds only the optional's type.
  public static var _none: Self { nil }
}

extension Optional: QueryDecodable where Wrapped: QueryDecodable {
  @inlinable
  public init(decoder: inout QueryRowDecoder) throws {
    self = try Wrapped._decodeOptional(decoder: &decoder)
  }

  public static var _columnWidth: Int { Wrapped._columnWidth }
}

extension Optional: QueryRepresentable where Wrapped: QueryRepresentable {
  public typealias QueryOutput = Wrapped.QueryOutput?

  @inlinable public init(queryOutput: Wrapped.QueryOutput?) {
    self = queryOutput.map(Wrapped.init(queryOutput:))
  }

  @inlinable public var queryOutput: Wrapped.QueryOutput? { self?.queryOutput }
}

/// An optional value (`nil` is `NULL`) or an optional row (`nil` is a row of `NULL`s).
extension Optional: QueryExpression where Wrapped: QueryExpression {
  public typealias QueryValue = Wrapped.QueryValue?

  public var queryFragment: QueryFragment {
    guard let self else {
      let width = (Wrapped.self as? any QueryDecodable.Type)?._columnWidth ?? 1
      return Array(repeating: QueryFragment(binding: .null), count: width).joined()
    }
    return self.queryFragment
  }
}

extension Optional: QueryBindable where Wrapped: QueryBindable {
  public var queryBinding: QueryBinding { self?.queryBinding ?? .null }

  public static func _jsonEncoded(_ value: QueryFragment) -> QueryFragment {
    Wrapped._jsonEncoded(value)
  }
}

// MARK: - JSON

/// Stores a `Codable` value as JSON text: `@Column(as: [String].JSONRepresentation.self)`.
/// Dates inside it are written as a `Date` column stores them (`yyyy-MM-dd HH:mm:ss.SSS`,
/// UTC), so that SQLite's `json_object` of a row and Swift's encoding agree; a date written
/// as a number (Foundation's default) still reads.
public struct _CodableJSONRepresentation<QueryOutput: Codable>: QueryBindable {
  public typealias QueryValue = Self
  public var queryOutput: QueryOutput

  public init(queryOutput: QueryOutput) { self.queryOutput = queryOutput }

  public var queryBinding: QueryBinding {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .custom { date, encoder in
      var container = encoder.singleValueContainer()
      guard case .text(let text) = date.databaseValue.storage else { return }
      try container.encode(text)
    }
    guard let data = try? encoder.encode(queryOutput) else { return .null }
    let text = String(decoding: data, as: UTF8.self)
    // An optional's nil (`[String]?.JSONRepresentation`) is NULL, not the text `null`.
    return text == "null" ? .null : text.databaseValue
  }

  /// Values of a row in JSON: a `Bool` column as `true`/`false`, a JSON column as JSON.
  public static func _jsonEncoded(_ value: QueryFragment) -> QueryFragment {
    "json(" + value + ")"
  }

  public init(decoder: inout QueryRowDecoder) throws {
    // NULL reads as JSON's null: nil for an optional type, an error for any other.
    let column = try decoder.decodeColumn(String?.self)
    let text = column ?? "null"
    let json = JSONDecoder()
    json.dateDecodingStrategy = .custom { decoder in
      let container = try decoder.singleValueContainer()
      if let seconds = try? container.decode(Double.self) {
        return Date(timeIntervalSinceReferenceDate: seconds)
      }
      let text = try container.decode(String.self)
      guard let date = Date.fromDatabaseValue(text.databaseValue) else {
        throw DecodingError.dataCorruptedError(
          in: container, debugDescription: "not a date: \(text)")
      }
      return date
    }
    do {
      queryOutput = try json.decode(QueryOutput.self, from: Data(text.utf8))
    } catch {
      throw QueryDecodingError(
        type: "\(QueryOutput.self)",
        value: column.map { DatabaseValue(storage: .text($0)).description } ?? "NULL",
        reason: "not the JSON of that type (\(error))")
    }
  }
}

extension Decodable where Self: Encodable {
  /// The JSON text representation of this type, for `@Column(as:)`.
  public typealias JSONRepresentation = _CodableJSONRepresentation<Self>
}

// MARK: - Bytes

/// Bytes as a blob, as `Data` is: what `randomblob` and `zeroblob` give.
extension Array: QueryBindable, QueryExpression, QueryRepresentable, QueryDecodable
where Element == UInt8 {
  public typealias QueryValue = Self

  public var queryBinding: QueryBinding { Data(self).databaseValue }

  public init(decoder: inout QueryRowDecoder) throws {
    self = [UInt8](try decoder.decodeColumn(Data.self))
  }
}

// The reference's spellings of a binding, for representations written against it:
// `var queryBinding: QueryBinding { .text(queryOutput.hex) }`.
extension DatabaseValue {
  public static func text(_ text: String) -> Self { Self(storage: .text(text)) }
  public static func int(_ integer: Int64) -> Self { Self(storage: .integer(integer)) }
  public static func double(_ double: Double) -> Self { Self(storage: .double(double)) }
  public static func blob(_ bytes: [UInt8]) -> Self { Self(storage: .blob(Data(bytes))) }
  public static func bool(_ bool: Bool) -> Self { Self(storage: .integer(bool ? 1 : 0)) }
  /// A date as Hearth stores dates: text, `yyyy-MM-dd HH:mm:ss.SSS` in UTC.
  public static func date(_ date: Date) -> Self { date.queryBinding }
  /// A UUID as Hearth stores UUIDs: lowercase text.
  public static func uuid(_ uuid: UUID) -> Self { uuid.queryBinding }
}
