import Foundation

// Scalar functions beyond the operators: `ifnull`, `nullif`, `json_array_length`.

extension QueryExpression where QueryValue: _OptionalProtocol {
  /// `ifnull(x, y)`: `y` where `x` is NULL, so the result is not optional.
  ///
  /// ```swift
  /// Reminder.select { $0.priority.ifnull(0) }   // Int
  /// ```
  public func ifnull(_ other: some QueryExpression<QueryValue.Wrapped>)
    -> SQLQueryExpression<QueryValue.Wrapped>
  {
    SQLQueryExpression("ifnull(" + queryFragment + ", " + other.queryFragment + ")")
  }

  /// `ifnull(x, y)` with a `y` that may be NULL too.
  public func ifnull(_ other: some QueryExpression<QueryValue>) -> SQLQueryExpression<QueryValue> {
    SQLQueryExpression("ifnull(" + queryFragment + ", " + other.queryFragment + ")")
  }

  /// `nullif(x, y)`: NULL where `x` equals `y`, else `x`.
  public func nullif(_ other: some QueryExpression<QueryValue.Wrapped>)
    -> SQLQueryExpression<QueryValue>
  {
    SQLQueryExpression("nullif(" + queryFragment + ", " + other.queryFragment + ")")
  }
}

extension QueryExpression where QueryValue: QueryBindable {
  /// `nullif(x, y)`: NULL where `x` equals `y`, else `x`: `$0.title.nullif("")`.
  @_disfavoredOverload
  public func nullif(_ other: some QueryExpression<QueryValue>) -> SQLQueryExpression<QueryValue?> {
    SQLQueryExpression("nullif(" + queryFragment + ", " + other.queryFragment + ")")
  }
}

extension QueryExpression {
  /// `json_array_length(x)`: the number of elements of a JSON array (a column stored with
  /// a JSON representation, or JSON text).
  public func jsonArrayLength() -> SQLQueryExpression<Int> {
    SQLQueryExpression("json_array_length(" + queryFragment + ")")
  }
}

extension QueryExpression where QueryValue == String {
  /// `octet_length(x)`: the length in bytes of the text's UTF-8.
  public func octetLength() -> SQLQueryExpression<Int> {
    // `octet_length` is SQLite 3.43's; Debian 12 has 3.40. The bytes of the text are the same.
    SQLQueryExpression("length(CAST(" + queryFragment + " AS BLOB))")
  }

  /// `ltrim(x, characters)`.
  public func ltrim(_ characters: String) -> SQLQueryExpression<String> {
    function("ltrim", queryFragment, characters.queryFragment)
  }

  /// `rtrim(x, characters)`.
  public func rtrim(_ characters: String) -> SQLQueryExpression<String> {
    function("rtrim", queryFragment, characters.queryFragment)
  }
}

extension QueryExpression {
  /// `quote(x)`: the value as an SQL literal (`'it''s'`, `NULL`, `X'00ff'`).
  public func quote() -> SQLQueryExpression<String> { function("quote", queryFragment) }

  /// `hex(x)`: the value's bytes in uppercase hexadecimal.
  public func hex() -> SQLQueryExpression<String> { function("hex", queryFragment) }
}

extension QueryExpression where QueryValue == String {
  /// `unhex(x)`: the bytes the text's hexadecimal digits spell, or NULL where it holds
  /// anything else; `unhex(x, y)` skips the characters of `y` between pairs of digits
  /// (`"dead-beef".unhex("-")`). Every Hearth connection has it, SQLite's own from 3.41.
  public func unhex(_ characters: (some QueryExpression<String>)? = String?.none)
    -> SQLQueryExpression<[UInt8]?>
  {
    guard let characters else { return function("unhex", queryFragment) }
    return function("unhex", queryFragment, characters.queryFragment)
  }
}

extension QueryExpression where QueryValue: BinaryFloatingPoint {
  /// `round(x, digits)`.
  public func round(_ digits: Int = 0) -> SQLQueryExpression<QueryValue> {
    function("round", queryFragment, digits.queryFragment)
  }
}

// MARK: - Bits

extension QueryExpression where QueryValue: BinaryInteger {
  public static func & (lhs: Self, rhs: some QueryExpression<QueryValue>)
    -> SQLQueryExpression<QueryValue>
  {
    SQLQueryExpression("(" + lhs.queryFragment + " & " + rhs.queryFragment + ")")
  }

  public static func | (lhs: Self, rhs: some QueryExpression<QueryValue>)
    -> SQLQueryExpression<QueryValue>
  {
    SQLQueryExpression("(" + lhs.queryFragment + " | " + rhs.queryFragment + ")")
  }

  public static func << (lhs: Self, rhs: some QueryExpression<QueryValue>)
    -> SQLQueryExpression<QueryValue>
  {
    SQLQueryExpression("(" + lhs.queryFragment + " << " + rhs.queryFragment + ")")
  }

  public static func >> (lhs: Self, rhs: some QueryExpression<QueryValue>)
    -> SQLQueryExpression<QueryValue>
  {
    SQLQueryExpression("(" + lhs.queryFragment + " >> " + rhs.queryFragment + ")")
  }

  public static prefix func ~ (expression: Self) -> SQLQueryExpression<QueryValue> {
    SQLQueryExpression("~(" + expression.queryFragment + ")")
  }
}

// MARK: - Membership, read from the collection's side

extension Sequence where Element: QueryBindable {
  /// `x IN (…)`: `[2, 4].contains($0.id)`.
  public func contains(_ element: some QueryExpression<Element>) -> SQLQueryExpression<Bool> {
    element.in(self)
  }
}

extension ClosedRange where Bound: QueryBindable {
  /// `x BETWEEN lower AND upper`: `(10...20).contains($0.title.length())`.
  public func contains(_ element: some QueryExpression<Bound>) -> SQLQueryExpression<Bool> {
    element.between(lowerBound, and: upperBound)
  }
}

extension Table {
  /// `EXISTS (SELECT … FROM table)`: whether the table (in its default scope) has a row.
  public static func exists() -> SQLQueryExpression<Bool> { Where<Self>().exists() }
}

// MARK: - JSON of rows

extension TableDefinition where QueryValue: Codable {
  /// `json_object('id', "reminders"."id", 'title', …)`: the whole row as a JSON object,
  /// decoded through the table's `Codable` conformance.
  public func jsonObject() -> SQLQueryExpression<_CodableJSONRepresentation<QueryValue>> {
    SQLQueryExpression("json_object(" + jsonObjectArguments(Self.allColumns) + ")")
  }

  /// `json_group_array(json_object(…))`: the rows of a group as a JSON array of objects,
  /// decoded into `[Row]` (`[]` over no rows).
  public func jsonGroupArray(
    distinct isDistinct: Bool = false, filter condition: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<[QueryValue].JSONRepresentation> {
    groupedJSONArray(of: jsonObject().queryFragment, distinct: isDistinct, filter: condition)
  }
}

extension _OptionalColumns
where Wrapped: Codable, Wrapped.TableColumns: PrimaryKeyedTableDefinition {
  /// The rows an outer join matched, as a JSON array (`[]` where it matched none):
  /// `RemindersList.group(by: \.id).leftJoin(Reminder.all) { … }.select { ($0, $1.jsonGroupArray()) }`.
  public func jsonGroupArray(
    distinct isDistinct: Bool = false, filter condition: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<[Wrapped].JSONRepresentation> {
    let matched = Wrapped.columns.primaryKey._firstColumn.queryFragment + " IS NOT NULL"
    let filter = condition.map { matched + " AND (" + $0.queryFragment + ")" } ?? matched
    let object = "json_object(" + jsonObjectArguments(Wrapped.TableColumns.allColumns) + ")"
    return groupedJSONArray(
      of: object, distinct: isDistinct, filter: SQLQueryExpression<Bool>(filter))
  }
}

/// `'name', value, …` for `json_object`, each value as JSON types it.
private func jsonObjectArguments<Root>(_ columns: [any TableColumnExpression<Root>])
  -> QueryFragment
{
  columns.map { column in
    QueryFragment(raw: column.name.databaseValue.sqlLiteral + ", ")
      + column._jsonValue
  }.joined()
}

// SQLite's other core scalar functions, as the reference names them.

extension QueryExpression where QueryValue == Bool {
  /// `likelihood(x, p)`: `x`, with a hint to the query planner that it is true with
  /// probability `p`. SQLite takes only a constant there, so `p` is written into the SQL.
  public func likelihood(_ probability: Double) -> SQLQueryExpression<Bool> {
    precondition((0...1).contains(probability), "a likelihood is between 0 and 1")
    return SQLQueryExpression(
      "likelihood(" + queryFragment + QueryFragment(raw: ", \(probability))"))
  }

  /// `likelihood(x, p)` with `p` an expression (which SQLite requires to be a constant:
  /// `#sql("0.25")`).
  @_disfavoredOverload
  public func likelihood(_ probability: some QueryExpression<Double>) -> SQLQueryExpression<Bool> {
    SQLQueryExpression("likelihood(" + queryFragment + ", " + probability.queryFragment + ")")
  }

  /// `likely(x)`: `x`, hinted to be usually true.
  public func likely() -> SQLQueryExpression<Bool> {
    SQLQueryExpression("likely(" + queryFragment + ")")
  }

  /// `unlikely(x)`: `x`, hinted to be usually false.
  public func unlikely() -> SQLQueryExpression<Bool> {
    SQLQueryExpression("unlikely(" + queryFragment + ")")
  }
}

extension QueryExpression where QueryValue: BinaryInteger {
  /// `randomblob(n)`: `n` random bytes.
  public func randomblob() -> SQLQueryExpression<[UInt8]> {
    SQLQueryExpression("randomblob(" + queryFragment + ")")
  }

  /// `zeroblob(n)`: `n` zero bytes.
  public func zeroblob() -> SQLQueryExpression<[UInt8]> {
    SQLQueryExpression("zeroblob(" + queryFragment + ")")
  }
}

extension QueryExpression where QueryValue == String {
  /// `unicode(x)`: the code point of the first character, NULL for an empty string.
  public func unicode() -> SQLQueryExpression<Int?> {
    SQLQueryExpression("unicode(" + queryFragment + ")")
  }
}

extension QueryExpression where QueryValue == String? {
  /// `unicode(x)` of an optional string.
  public func unicode() -> SQLQueryExpression<Int?> {
    SQLQueryExpression("unicode(" + queryFragment + ")")
  }
}

extension QueryExpression where QueryValue: Numeric {
  /// `sign(x)`: -1, 0 or 1.
  public func sign() -> SQLQueryExpression<QueryValue> {
    SQLQueryExpression("sign(" + queryFragment + ")")
  }
}

extension QueryExpression where QueryValue: _OptionalProtocol, QueryValue.Wrapped: Numeric {
  /// `sign(x)` of an optional number: NULL for NULL.
  public func sign() -> SQLQueryExpression<QueryValue> {
    SQLQueryExpression("sign(" + queryFragment + ")")
  }
}

extension QueryExpression where QueryValue == String {
  /// The reference's earlier name for `length()`, kept so that code written for it builds.
  @available(*, deprecated, renamed: "length()")
  public var count: SQLQueryExpression<Int> { SQLQueryExpression("length(" + queryFragment + ")") }
}

extension QueryExpression where QueryValue == [UInt8] {
  /// `length(x)` of a blob: the number of bytes.
  public func length() -> SQLQueryExpression<Int> {
    SQLQueryExpression("length(" + queryFragment + ")")
  }
}

extension QueryExpression where QueryValue == Data {
  /// `length(x)` of a blob: the number of bytes.
  public func length() -> SQLQueryExpression<Int> {
    SQLQueryExpression("length(" + queryFragment + ")")
  }
}
