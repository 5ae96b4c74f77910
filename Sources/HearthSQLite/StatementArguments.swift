/// The values bound to a statement's parameters: positional (`?`), named (`:name`), or both.
///
/// ```swift
/// try db.execute(sql: "INSERT INTO players (name, score) VALUES (?, ?)", arguments: ["Arthur", 100])
/// try db.execute(sql: "UPDATE players SET score = :score", arguments: ["score": 1000])
/// ```
public struct StatementArguments: Hashable, Sendable, CustomStringConvertible,
  ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
  /// Values for `?` parameters, in order.
  public var values: [DatabaseValue]
  /// Values for `:name`, `@name` or `$name` parameters, by name without the prefix.
  public var namedValues: [String: DatabaseValue]

  public init() {
    values = []
    namedValues = [:]
  }

  /// Throws the error of the first argument that cannot be bound (`DatabaseValue.invalid`).
  public func checkBindable() throws {
    for value in values { if let error = value.bindingError { throw error } }
    for value in namedValues.values { if let error = value.bindingError { throw error } }
  }

  public init(_ values: [DatabaseValue]) {
    self.values = values
    namedValues = [:]
  }

  public init<S: Sequence>(_ values: S) where S.Element == (any DatabaseValueConvertible)? {
    self.values = values.map { $0?.databaseValue ?? .null }
    namedValues = [:]
  }

  public init(arrayLiteral elements: (any DatabaseValueConvertible)?...) {
    self.init(elements)
  }

  public init(dictionaryLiteral elements: (String, (any DatabaseValueConvertible)?)...) {
    values = []
    namedValues = Dictionary(
      elements.map { ($0.0, $0.1?.databaseValue ?? .null) }, uniquingKeysWith: { $1 })
  }

  public var isEmpty: Bool { values.isEmpty && namedValues.isEmpty }

  /// Appends the positional values and merges the named ones of `other`.
  public mutating func append(contentsOf other: StatementArguments) {
    values += other.values
    namedValues.merge(other.namedValues) { $1 }
  }

  public static func + (lhs: StatementArguments, rhs: StatementArguments) -> StatementArguments {
    var result = lhs
    result.append(contentsOf: rhs)
    return result
  }

  public var description: String {
    let positional = values.map(\.description)
    let named = namedValues.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
    return "[" + (positional + named).joined(separator: ", ") + "]"
  }
}
