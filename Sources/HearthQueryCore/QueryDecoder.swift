import HearthSQLite

/// Reads the columns of one result row in order, the way generated `init(decoder:)`
/// initializers consume them: by index, with no lookup by name.
public struct QueryDecoder {
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
    if let decoded = row.fastValue(T.self, atIndex: index) { return decoded }
    return try T.decode(from: row, atIndex: index)
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
}
