import Foundation
import HearthSQLite

// The reference's other storage formats for dates and UUIDs, chosen per column with
// `@Column(as:)`:
//
// ```swift
// @Column(as: Date.UnixTimeRepresentation.self) var createdAt: Date
// @Column(as: Date.JulianDayRepresentation?.self) var dueDate: Date?
// @Column(as: UUID.BytesRepresentation.self) let id: UUID
// ```

extension Date {
  /// A date stored as whole seconds since 1970 (INTEGER), as SQLite's `unixepoch()` gives.
  /// Fractions of a second are dropped.
  public struct UnixTimeRepresentation: QueryBindable, Sendable {
    public typealias QueryValue = Self
    public var queryOutput: Date

    public init(queryOutput: Date) { self.queryOutput = queryOutput }

    public var queryBinding: QueryBinding {
      .init(storage: .integer(Int64(queryOutput.timeIntervalSince1970.rounded(.down))))
    }

    public init(decoder: inout QueryRowDecoder) throws {
      queryOutput = Date(timeIntervalSince1970: Double(try decoder.decodeColumn(Int64.self)))
    }

    /// In JSON, the date's text, as a `Date` is coded: `1970-01-02 00:00:00`.
    public static func _jsonEncoded(_ value: QueryFragment) -> QueryFragment {
      "datetime(" + value + ", 'unixepoch')"
    }
  }

  /// A date stored as a Julian day number (REAL), as SQLite's `julianday()` gives.
  public struct JulianDayRepresentation: QueryBindable, Sendable {
    public typealias QueryValue = Self
    public var queryOutput: Date

    public init(queryOutput: Date) { self.queryOutput = queryOutput }

    public var queryBinding: QueryBinding {
      .init(storage: .double(2_440_587.5 + queryOutput.timeIntervalSince1970 / 86_400))
    }

    public init(decoder: inout QueryRowDecoder) throws {
      let day = try decoder.decodeColumn(Double.self)
      queryOutput = Date(timeIntervalSince1970: (day - 2_440_587.5) * 86_400)
    }

    /// In JSON, the date's text, as a `Date` is coded: `2001-01-08 00:00:00.000`.
    public static func _jsonEncoded(_ value: QueryFragment) -> QueryFragment {
      "strftime('%Y-%m-%d %H:%M:%f', " + value + ")"
    }
  }

  /// A date stored as text, `yyyy-MM-dd HH:mm:ss.SSS` in UTC: what a `Date` column stores
  /// without `@Column(as:)`, named for code that spells it out.
  public struct ISO8601Representation: QueryBindable, Sendable {
    public typealias QueryValue = Self
    public var queryOutput: Date

    public init(queryOutput: Date) { self.queryOutput = queryOutput }

    public var queryBinding: QueryBinding { queryOutput.databaseValue }

    public init(decoder: inout QueryRowDecoder) throws {
      queryOutput = try decoder.decodeColumn(Date.self)
    }
  }
}

extension Date? {
  public typealias UnixTimeRepresentation = Date.UnixTimeRepresentation?
  public typealias JulianDayRepresentation = Date.JulianDayRepresentation?
  public typealias ISO8601Representation = Date.ISO8601Representation?
}

extension UUID {
  /// A UUID stored as its 16 bytes (BLOB).
  public struct BytesRepresentation: QueryBindable, Sendable {
    public typealias QueryValue = Self
    public var queryOutput: UUID

    public init(queryOutput: UUID) { self.queryOutput = queryOutput }

    public var queryBinding: QueryBinding {
      withUnsafeBytes(of: queryOutput.uuid) { Data($0) }.databaseValue
    }

    public init(decoder: inout QueryRowDecoder) throws {
      let data = try decoder.decodeColumn(Data.self)
      guard data.count == 16 else {
        throw QueryDecodingError(
          type: "UUID", value: DatabaseValue(storage: .blob(data)).description,
          reason: "not 16 bytes")
      }
      var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
      withUnsafeMutableBytes(of: &uuid) { $0.copyBytes(from: data) }
      queryOutput = UUID(uuid: uuid)
    }

    /// In JSON, the UUID's text (lowercase, hyphenated), as the column holds bytes JSON
    /// cannot.
    public static func _jsonEncoded(_ value: QueryFragment) -> QueryFragment {
      let hex = "hex(" + value + ")"
      let parts = [(1, 8), (9, 4), (13, 4), (17, 4), (21, 12)].map { start, length in
        "substr(" + hex + QueryFragment(raw: ", \(start), \(length))")
      }
      return "CASE WHEN " + value + " IS NULL THEN NULL ELSE lower("
        + parts.joined(separator: " || '-' || ") + ") END"
    }
  }

  /// A UUID stored as uppercase text, as Foundation's `uuidString` writes it.
  public struct UppercasedRepresentation: QueryBindable, Sendable {
    public typealias QueryValue = Self
    public var queryOutput: UUID

    public init(queryOutput: UUID) { self.queryOutput = queryOutput }

    public var queryBinding: QueryBinding { queryOutput.uuidString.databaseValue }

    public init(decoder: inout QueryRowDecoder) throws {
      let text = try decoder.decodeColumn(String.self)
      guard let uuid = UUID(uuidString: text) else {
        throw QueryDecodingError(
          type: "UUID", value: DatabaseValue(storage: .text(text)).description,
          reason: "not a UUID")
      }
      queryOutput = uuid
    }
  }
}

extension UUID? {
  public typealias BytesRepresentation = UUID.BytesRepresentation?
  public typealias UppercasedRepresentation = UUID.UppercasedRepresentation?
}

/// A `RawRepresentable` value stored as its raw value, for a type that is not itself
/// `QueryBindable`: `@Column(as: Ranking.RawRepresentation.self) var ranking: Ranking`.
public struct _RawValueRepresentation<QueryOutput: RawRepresentable>: QueryBindable
where QueryOutput.RawValue: QueryBindable {
  public typealias QueryValue = Self
  public var queryOutput: QueryOutput

  public init(queryOutput: QueryOutput) { self.queryOutput = queryOutput }

  public var queryBinding: QueryBinding { queryOutput.rawValue.queryBinding }

  public init(decoder: inout QueryRowDecoder) throws {
    let rawValue = try QueryOutput.RawValue(decoder: &decoder)
    guard let value = QueryOutput(rawValue: rawValue) else {
      throw QueryDecodingError(
        type: "\(QueryOutput.self)", value: "\(rawValue)", reason: "no value has this raw value")
    }
    queryOutput = value
  }
}

extension _RawValueRepresentation: Sendable where QueryOutput: Sendable {}

extension RawRepresentable where RawValue: QueryBindable {
  /// This type stored as its raw value.
  public typealias RawRepresentation = _RawValueRepresentation<Self>
}

extension Optional where Wrapped: RawRepresentable, Wrapped.RawValue: QueryBindable {
  /// The wrapped type stored as its raw value, nil as NULL.
  public typealias RawRepresentation = _RawValueRepresentation<Wrapped>?
}
