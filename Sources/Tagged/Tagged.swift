import Foundation
import HearthQuery

/// A value of `RawValue` marked with a `Tag` type, so that two identifiers of one raw type are
/// different types: with `typealias ID = Tagged<Self, Int>` in each table, a `Reminder.ID`
/// cannot be compared with, or passed as, a `RemindersList.ID`.
///
/// ```swift
/// @Table struct Reminder: Identifiable {
///   typealias ID = Tagged<Self, Int>
///   let id: ID
///   var remindersListID: RemindersList.ID
/// }
/// ```
///
/// As a column it is its raw value: bound, stored, read and encoded as that, nothing more.
/// The package trait `Tagged` makes `import SQLiteData` and `import StructuredQueries` bring
/// it in; `import Tagged` does so without the trait.
public struct Tagged<Tag, RawValue>: RawRepresentable {
  public var rawValue: RawValue

  public init(rawValue: RawValue) { self.rawValue = rawValue }

  public init(_ rawValue: RawValue) { self.rawValue = rawValue }

  /// The same tag over a transformed raw value.
  public func map<NewValue>(_ transform: (RawValue) throws -> NewValue) rethrows
    -> Tagged<Tag, NewValue>
  {
    Tagged<Tag, NewValue>(rawValue: try transform(rawValue))
  }

  /// The same raw value under another tag.
  public func retagged<NewTag>(_: NewTag.Type = NewTag.self) -> Tagged<NewTag, RawValue> {
    Tagged<NewTag, RawValue>(rawValue: rawValue)
  }
}

extension Tagged: Equatable where RawValue: Equatable {}
extension Tagged: Hashable where RawValue: Hashable {}
extension Tagged: Sendable where RawValue: Sendable {}

extension Tagged: Comparable where RawValue: Comparable {
  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension Tagged: CustomStringConvertible {
  public var description: String { String(describing: rawValue) }
}

/// Encoded as the raw value alone: `7`, not `{"rawValue": 7}`.
extension Tagged: Encodable where RawValue: Encodable {
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }
}

extension Tagged: Decodable where RawValue: Decodable {
  public init(from decoder: any Decoder) throws {
    rawValue = try decoder.singleValueContainer().decode(RawValue.self)
  }
}

extension Tagged: ExpressibleByIntegerLiteral where RawValue: ExpressibleByIntegerLiteral {
  public init(integerLiteral value: RawValue.IntegerLiteralType) {
    rawValue = RawValue(integerLiteral: value)
  }
}

extension Tagged: ExpressibleByUnicodeScalarLiteral
where RawValue: ExpressibleByUnicodeScalarLiteral {
  public init(unicodeScalarLiteral value: RawValue.UnicodeScalarLiteralType) {
    rawValue = RawValue(unicodeScalarLiteral: value)
  }
}

extension Tagged: ExpressibleByExtendedGraphemeClusterLiteral
where RawValue: ExpressibleByExtendedGraphemeClusterLiteral {
  public init(extendedGraphemeClusterLiteral value: RawValue.ExtendedGraphemeClusterLiteralType) {
    rawValue = RawValue(extendedGraphemeClusterLiteral: value)
  }
}

extension Tagged: ExpressibleByStringLiteral where RawValue: ExpressibleByStringLiteral {
  public init(stringLiteral value: RawValue.StringLiteralType) {
    rawValue = RawValue(stringLiteral: value)
  }
}

extension Tagged: ExpressibleByFloatLiteral where RawValue: ExpressibleByFloatLiteral {
  public init(floatLiteral value: RawValue.FloatLiteralType) {
    rawValue = RawValue(floatLiteral: value)
  }
}

extension Tagged: ExpressibleByBooleanLiteral where RawValue: ExpressibleByBooleanLiteral {
  public init(booleanLiteral value: RawValue.BooleanLiteralType) {
    rawValue = RawValue(booleanLiteral: value)
  }
}

/// A column of the raw value's type: `Reminder.find(Reminder.ID(1))`, `$0.id.eq(id)`.
extension Tagged: QueryRepresentable, QueryDecodable, QueryExpression, QueryBindable
where RawValue: QueryBindable {
  public typealias QueryValue = Self
}
