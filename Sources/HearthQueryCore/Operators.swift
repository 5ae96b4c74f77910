// The expression language: comparisons, logic, arithmetic, and SQLite's functions, each
// rendering to parenthesized SQL so that precedence never surprises.

func binary<Value>(_ lhs: some QueryExpression, _ op: String, _ rhs: some QueryExpression)
  -> SQLQueryExpression<Value>
{
  SQLQueryExpression(
    "(" + operand(lhs) + QueryFragment(raw: " \(op) ") + operand(rhs) + ")")
}

/// An operand: a group of several columns as a row value, `("a"."x", "a"."y")`.
private func operand(_ expression: some QueryExpression) -> QueryFragment {
  guard let group = expression as? any _ColumnFragments, group._columnFragments.count > 1 else {
    return expression.queryFragment
  }
  return "(" + group.queryFragment + ")"
}

func function<Value>(_ name: String, _ arguments: QueryFragment...) -> SQLQueryExpression<Value> {
  SQLQueryExpression(QueryFragment(raw: name + "(") + arguments.joined() + ")")
}

// MARK: - Comparison

/// Whether an expression is a bound NULL (`nil` written as a value).
private func isNull(_ expression: some QueryExpression) -> Bool {
  expression.queryFragment.segments == [.binding(.null)]
}

extension QueryExpression {
  /// `=`, as the reference renders it: two NULLs are not equal (`eq`/`is` say which you
  /// mean). Against `nil` itself it is `IS`: `$0.dueDate == nil` is `"dueDate" IS NULL`.
  public static func == (lhs: Self, rhs: some QueryExpression<QueryValue>)
    -> SQLQueryExpression<Bool>
  {
    binary(lhs, isNull(rhs) ? "IS" : "=", rhs)
  }

  /// `<>`; against `nil` itself, `IS NOT`.
  public static func != (lhs: Self, rhs: some QueryExpression<QueryValue>)
    -> SQLQueryExpression<Bool>
  {
    binary(lhs, isNull(rhs) ? "IS NOT" : "<>", rhs)
  }

  public static func < (lhs: Self, rhs: some QueryExpression<QueryValue>)
    -> SQLQueryExpression<Bool>
  {
    binary(lhs, "<", rhs)
  }

  public static func > (lhs: Self, rhs: some QueryExpression<QueryValue>)
    -> SQLQueryExpression<Bool>
  {
    binary(lhs, ">", rhs)
  }

  public static func <= (lhs: Self, rhs: some QueryExpression<QueryValue>)
    -> SQLQueryExpression<Bool>
  {
    binary(lhs, "<=", rhs)
  }

  public static func >= (lhs: Self, rhs: some QueryExpression<QueryValue>)
    -> SQLQueryExpression<Bool>
  {
    binary(lhs, ">=", rhs)
  }

  /// `a = b`.
  public func eq(_ other: some QueryExpression<QueryValue>) -> SQLQueryExpression<Bool> {
    binary(self, "=", other)
  }

  /// `a <> b`.
  public func neq(_ other: some QueryExpression<QueryValue>) -> SQLQueryExpression<Bool> {
    binary(self, "<>", other)
  }

  /// `a > b`.
  public func gt(_ other: some QueryExpression<QueryValue>) -> SQLQueryExpression<Bool> {
    binary(self, ">", other)
  }

  /// `a < b`.
  public func lt(_ other: some QueryExpression<QueryValue>) -> SQLQueryExpression<Bool> {
    binary(self, "<", other)
  }

  /// `a >= b`.
  public func gte(_ other: some QueryExpression<QueryValue>) -> SQLQueryExpression<Bool> {
    binary(self, ">=", other)
  }

  /// `a <= b`.
  public func lte(_ other: some QueryExpression<QueryValue>) -> SQLQueryExpression<Bool> {
    binary(self, "<=", other)
  }

  /// `a IS b`: equality where NULL equals NULL. `$0.dueDate.is(nil)`.
  public func `is`(_ other: some QueryExpression<QueryValue>) -> SQLQueryExpression<Bool> {
    binary(self, "IS", other)
  }

  /// `a IS NOT b`. `$0.dueDate.isNot(nil)`.
  public func isNot(_ other: some QueryExpression<QueryValue>) -> SQLQueryExpression<Bool> {
    binary(self, "IS NOT", other)
  }

  /// `a IN (…)`: `$0.id.in(ids)`.
  public func `in`(_ values: some Sequence<some QueryExpression<QueryValue>>)
    -> SQLQueryExpression<Bool>
  {
    SQLQueryExpression("(" + queryFragment + " IN (" + values.map(\.queryFragment).joined() + "))")
  }

  /// `a IN (SELECT …)`.
  public func `in`(_ subquery: some Statement<QueryValue>) -> SQLQueryExpression<Bool> {
    SQLQueryExpression("(" + queryFragment + " IN (" + subquery.query + "))")
  }

  /// `a IN (SELECT …)` where the subquery's values may be NULL (`min()`, `max()`…).
  public func `in`(_ subquery: some Statement<QueryValue?>) -> SQLQueryExpression<Bool> {
    SQLQueryExpression("(" + queryFragment + " IN (" + subquery.query + "))")
  }

  /// `a NOT IN (…)`: `$0.id.notIn(ids)`.
  public func notIn(_ values: some Sequence<some QueryExpression<QueryValue>>)
    -> SQLQueryExpression<Bool>
  {
    SQLQueryExpression(
      "(" + queryFragment + " NOT IN (" + values.map(\.queryFragment).joined() + "))")
  }

  /// `a NOT IN (SELECT …)`.
  public func notIn(_ subquery: some Statement<QueryValue>) -> SQLQueryExpression<Bool> {
    SQLQueryExpression("(" + queryFragment + " NOT IN (" + subquery.query + "))")
  }

  /// `a BETWEEN low AND high`.
  public func between(
    _ lowerBound: some QueryExpression<QueryValue>, and upperBound: some QueryExpression<QueryValue>
  ) -> SQLQueryExpression<Bool> {
    SQLQueryExpression(
      "(" + queryFragment + " BETWEEN " + lowerBound.queryFragment + " AND "
        + upperBound.queryFragment + ")")
  }
}

extension QueryExpression where QueryValue: _OptionalProtocol, QueryValue.Wrapped: QueryBindable {
  // An optional column against a value: NULL compares as unknown, so a row whose column
  // is NULL does not match (`$0.dueDate.lte(now)`).

  /// `a > b`.
  public func gt(_ other: some QueryExpression<QueryValue.Wrapped>) -> SQLQueryExpression<Bool> {
    binary(self, ">", other)
  }

  /// `a < b`.
  public func lt(_ other: some QueryExpression<QueryValue.Wrapped>) -> SQLQueryExpression<Bool> {
    binary(self, "<", other)
  }

  /// `a >= b`.
  public func gte(_ other: some QueryExpression<QueryValue.Wrapped>) -> SQLQueryExpression<Bool> {
    binary(self, ">=", other)
  }

  /// `a <= b`.
  public func lte(_ other: some QueryExpression<QueryValue.Wrapped>) -> SQLQueryExpression<Bool> {
    binary(self, "<=", other)
  }
}

extension QueryExpression where QueryValue: QueryBindable {
  /// `a IS value`, with a value written in place: `$0.dueDate.is(nil)`.
  public func `is`(_ value: QueryValue) -> SQLQueryExpression<Bool> { binary(self, "IS", value) }

  /// `a IS NOT value`: `$0.dueDate.isNot(nil)`.
  public func isNot(_ value: QueryValue) -> SQLQueryExpression<Bool> {
    binary(self, "IS NOT", value)
  }
}

extension QueryExpression where QueryValue: QueryBindable {
  /// `a = b` against an optional value, as an outer join's columns are: `$0.id.eq($1.sportID)`.
  public func eq(_ other: some QueryExpression<QueryValue?>) -> SQLQueryExpression<Bool> {
    binary(self, "=", other)
  }

  /// `a <> b` against an optional value.
  public func neq(_ other: some QueryExpression<QueryValue?>) -> SQLQueryExpression<Bool> {
    binary(self, "<>", other)
  }

  /// `a IS b` against an optional value: `$1.id.is($0.bossID)`.
  public func `is`(_ other: some QueryExpression<QueryValue?>) -> SQLQueryExpression<Bool> {
    binary(self, "IS", other)
  }

  /// `a IS NOT b` against an optional value.
  public func isNot(_ other: some QueryExpression<QueryValue?>) -> SQLQueryExpression<Bool> {
    binary(self, "IS NOT", other)
  }
}

extension QueryExpression where QueryValue: _OptionalProtocol {
  /// `=` against a value of the wrapped type: `$0.priority == Priority.high`.
  public static func == (lhs: Self, rhs: some QueryExpression<QueryValue.Wrapped>)
    -> SQLQueryExpression<Bool>
  {
    binary(lhs, "=", rhs)
  }

  /// `<>` against a value of the wrapped type.
  public static func != (lhs: Self, rhs: some QueryExpression<QueryValue.Wrapped>)
    -> SQLQueryExpression<Bool>
  {
    binary(lhs, "<>", rhs)
  }

  /// `BETWEEN lower AND upper` of plain values (a NULL is in no range).
  public func between(
    _ lower: some QueryExpression<QueryValue.Wrapped>,
    and upper: some QueryExpression<QueryValue.Wrapped>
  ) -> SQLQueryExpression<Bool> {
    SQLQueryExpression(
      "(" + queryFragment + " BETWEEN " + lower.queryFragment + " AND " + upper.queryFragment
        + ")")
  }

  /// `<`, `>`, `<=`, `>=` against a value of the wrapped type: `$1.priority.avg() > 1.5`
  /// (a NULL compares as nothing).
  public static func < (lhs: Self, rhs: some QueryExpression<QueryValue.Wrapped>)
    -> SQLQueryExpression<Bool>
  {
    binary(lhs, "<", rhs)
  }

  public static func > (lhs: Self, rhs: some QueryExpression<QueryValue.Wrapped>)
    -> SQLQueryExpression<Bool>
  {
    binary(lhs, ">", rhs)
  }

  public static func <= (lhs: Self, rhs: some QueryExpression<QueryValue.Wrapped>)
    -> SQLQueryExpression<Bool>
  {
    binary(lhs, "<=", rhs)
  }

  public static func >= (lhs: Self, rhs: some QueryExpression<QueryValue.Wrapped>)
    -> SQLQueryExpression<Bool>
  {
    binary(lhs, ">=", rhs)
  }

  public func eq(_ other: some QueryExpression<QueryValue.Wrapped>) -> SQLQueryExpression<Bool> {
    binary(self, "=", other)
  }

  /// `a IS b` against a value of the wrapped type: `$0.bossID.is($1.id)`.
  public func `is`(_ other: some QueryExpression<QueryValue.Wrapped>) -> SQLQueryExpression<Bool> {
    binary(self, "IS", other)
  }

  /// `a IS NOT b` against a value of the wrapped type.
  public func isNot(_ other: some QueryExpression<QueryValue.Wrapped>)
    -> SQLQueryExpression<Bool>
  {
    binary(self, "IS NOT", other)
  }

  public func neq(_ other: some QueryExpression<QueryValue.Wrapped>) -> SQLQueryExpression<Bool> {
    binary(self, "<>", other)
  }

  /// `coalesce(a, b)`: the first non-NULL value.
  public static func ?? (lhs: Self, rhs: some QueryExpression<QueryValue.Wrapped>)
    -> SQLQueryExpression<QueryValue.Wrapped>
  {
    function("coalesce", lhs.queryFragment, rhs.queryFragment)
  }

  /// `coalesce(a, b)` where both may be NULL.
  public static func ?? (lhs: Self, rhs: some QueryExpression<QueryValue>)
    -> SQLQueryExpression<QueryValue>
  {
    function("coalesce", lhs.queryFragment, rhs.queryFragment)
  }
}

// MARK: - Logic

extension QueryExpression where QueryValue == Bool {
  public static func && (lhs: Self, rhs: some QueryExpression<Bool>) -> SQLQueryExpression<Bool> {
    binary(lhs, "AND", rhs)
  }

  public static func || (lhs: Self, rhs: some QueryExpression<Bool>) -> SQLQueryExpression<Bool> {
    binary(lhs, "OR", rhs)
  }

  public static prefix func ! (expression: Self) -> SQLQueryExpression<Bool> {
    SQLQueryExpression("NOT (" + expression.queryFragment + ")")
  }

  /// `a AND b`.
  public func and(_ other: some QueryExpression<Bool>) -> SQLQueryExpression<Bool> {
    binary(self, "AND", other)
  }

  /// `a OR b`.
  public func or(_ other: some QueryExpression<Bool>) -> SQLQueryExpression<Bool> {
    binary(self, "OR", other)
  }

  /// `NOT a`.
  public func not() -> SQLQueryExpression<Bool> { !self }
}

// MARK: - Arithmetic

extension QueryExpression where QueryValue: Numeric {
  public static func + (lhs: Self, rhs: some QueryExpression<QueryValue>)
    -> SQLQueryExpression<QueryValue>
  {
    binary(lhs, "+", rhs)
  }

  public static func - (lhs: Self, rhs: some QueryExpression<QueryValue>)
    -> SQLQueryExpression<QueryValue>
  {
    binary(lhs, "-", rhs)
  }

  public static func * (lhs: Self, rhs: some QueryExpression<QueryValue>)
    -> SQLQueryExpression<QueryValue>
  {
    binary(lhs, "*", rhs)
  }

  public static func / (lhs: Self, rhs: some QueryExpression<QueryValue>)
    -> SQLQueryExpression<QueryValue>
  {
    binary(lhs, "/", rhs)
  }

  public static prefix func - (expression: Self) -> SQLQueryExpression<QueryValue> {
    SQLQueryExpression("(-" + expression.queryFragment + ")")
  }

  /// `+x`: the value itself (SQLite's unary plus, which also leaves text as text).
  public static prefix func + (expression: Self) -> SQLQueryExpression<QueryValue> {
    SQLQueryExpression("(+" + expression.queryFragment + ")")
  }

  /// `abs(x)`.
  public func abs() -> SQLQueryExpression<QueryValue> { function("abs", queryFragment) }
}

extension QueryExpression where QueryValue: BinaryInteger {
  /// `x % y`, optional: SQLite gives NULL for a remainder by zero.
  public static func % (lhs: Self, rhs: some QueryExpression<QueryValue>)
    -> SQLQueryExpression<QueryValue?>
  {
    binary(lhs, "%", rhs)
  }
}

// MARK: - Text

extension QueryExpression where QueryValue == String {
  /// `a || b`: text concatenation.
  public static func + (lhs: Self, rhs: some QueryExpression<String>) -> SQLQueryExpression<String>
  {
    binary(lhs, "||", rhs)
  }

  // These three give way to `String`'s own where both apply (`"a".contains("a")` is Swift's
  // `Bool`), as they do in the reference.

  /// Whether the text contains `other`, case-insensitively for ASCII (SQL `LIKE`); `%`, `_`
  /// and `\` in `other` match themselves.
  @_disfavoredOverload
  public func contains(_ other: some StringProtocol) -> SQLQueryExpression<Bool> {
    like("%" + escapeLikePattern(String(other)) + "%", escape: "\\")
  }

  /// Whether the text starts with `prefix` (`LIKE 'prefix%'`).
  @_disfavoredOverload
  public func hasPrefix(_ prefix: some StringProtocol) -> SQLQueryExpression<Bool> {
    like(escapeLikePattern(String(prefix)) + "%", escape: "\\")
  }

  /// Whether the text ends with `suffix` (`LIKE '%suffix'`).
  @_disfavoredOverload
  public func hasSuffix(_ suffix: some StringProtocol) -> SQLQueryExpression<Bool> {
    like("%" + escapeLikePattern(String(suffix)), escape: "\\")
  }

  /// `a LIKE pattern [ESCAPE e]`.
  public func like(_ pattern: String, escape: Character? = nil) -> SQLQueryExpression<Bool> {
    var fragment = "(" + queryFragment + " LIKE " + QueryFragment(binding: pattern.queryBinding)
    if let escape { fragment += " ESCAPE " + QueryFragment(binding: String(escape).queryBinding) }
    return SQLQueryExpression(fragment + ")")
  }

  /// `a GLOB pattern`: case-sensitive, with `*` and `?` wildcards.
  public func glob(_ pattern: String) -> SQLQueryExpression<Bool> {
    binary(self, "GLOB", pattern)
  }

  /// `lower(a)`.
  public func lower() -> SQLQueryExpression<String> { function("lower", queryFragment) }
  /// `upper(a)`.
  public func upper() -> SQLQueryExpression<String> { function("upper", queryFragment) }
  /// `length(a)`: the number of characters.
  public func length() -> SQLQueryExpression<Int> { function("length", queryFragment) }
  /// `trim(a)`.
  public func trim() -> SQLQueryExpression<String> { function("trim", queryFragment) }
  /// `ltrim(a)`.
  public func ltrim() -> SQLQueryExpression<String> { function("ltrim", queryFragment) }
  /// `rtrim(a)`.
  public func rtrim() -> SQLQueryExpression<String> { function("rtrim", queryFragment) }

  /// `trim(a, characters)`.
  public func trim(_ characters: String) -> SQLQueryExpression<String> {
    function("trim", queryFragment, characters.queryFragment)
  }

  /// `replace(a, target, replacement)`.
  public func replace(
    _ target: some QueryExpression<String>, _ replacement: some QueryExpression<String>
  )
    -> SQLQueryExpression<String>
  {
    function("replace", queryFragment, target.queryFragment, replacement.queryFragment)
  }

  /// `instr(a, other)`: the 1-based position of `other`, or 0.
  public func instr(_ other: some QueryExpression<String>) -> SQLQueryExpression<Int> {
    function("instr", queryFragment, other.queryFragment)
  }

  /// `substr(a, start, length)` (1-based).
  public func substr(_ start: Int, _ length: Int? = nil) -> SQLQueryExpression<String> {
    if let length {
      return function("substr", queryFragment, start.queryFragment, length.queryFragment)
    }
    return function("substr", queryFragment, start.queryFragment)
  }

  /// `a COLLATE collation`: compare with another collation (`.nocase`, `.rtrim`, `.binary`).
  public func collate(_ collation: Collation) -> SQLQueryExpression<String> {
    SQLQueryExpression("(" + queryFragment + QueryFragment(raw: " COLLATE \(collation.rawValue))"))
  }
}

/// SQLite's built-in collations.
public struct Collation: RawRepresentable, Hashable, Sendable {
  public let rawValue: String
  public init(rawValue: String) { self.rawValue = rawValue }

  public static let binary = Collation(rawValue: "BINARY")
  public static let nocase = Collation(rawValue: "NOCASE")
  public static let rtrim = Collation(rawValue: "RTRIM")
}

func escapeLikePattern(_ text: String) -> String {
  var escaped = ""
  for character in text {
    if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
    escaped.append(character)
  }
  return escaped
}

// MARK: - Any value

extension QueryExpression {
  /// `coalesce(a, b, …)`: the first non-NULL value.
  public func coalesce(_ others: any QueryExpression<QueryValue>...) -> SQLQueryExpression<
    QueryValue
  > {
    SQLQueryExpression(
      "coalesce(" + ([queryFragment] + others.map(\.queryFragment)).joined() + ")")
  }

  /// `count(x)`: the number of non-NULL values (an aggregate).
  public func count(distinct isDistinct: Bool = false) -> SQLQueryExpression<Int> {
    SQLQueryExpression(
      QueryFragment(raw: isDistinct ? "count(DISTINCT " : "count(") + queryFragment + ")")
  }

  /// `CAST(x AS type)`: the value as another SQLite type, the `typeAffinity` of `Other`
  /// (of its wrapped type for an optional): `$0.priority.cast(as: Double?.self)`.
  public func cast<Other: QueryBindable>(as type: Other.Type = Other.self)
    -> SQLQueryExpression<Other>
  {
    let affinity: QueryFragment
    if let sqliteType = Other.self as? any SQLiteType.Type {
      affinity = sqliteType.typeAffinity.rawValue
    } else if let optional = Other.self as? any _OptionalProtocol.Type,
      let wrapped = optional._wrappedType as? any SQLiteType.Type
    {
      affinity = wrapped.typeAffinity.rawValue
    } else {
      affinity = SQLiteTypeAffinity.blob.rawValue
    }
    return SQLQueryExpression("CAST(" + queryFragment + " AS " + affinity + ")")
  }
}

extension QueryExpression where QueryValue: _OptionalProtocol {
  /// The transform of the value when there is one, NULL when there is none, as Swift's
  /// `Optional.map`: `$0.dueDate.map { $0 < Date() }` is `CASE WHEN "dueDate" IS NULL THEN
  /// NULL ELSE ("dueDate" < ?) END`.
  @_disfavoredOverload
  public func map<T>(
    _ transform: (SQLQueryExpression<QueryValue.Wrapped>) -> some QueryExpression<T>
  ) -> SQLQueryExpression<T?> {
    let value = transform(SQLQueryExpression(queryFragment)).queryFragment
    return SQLQueryExpression(
      "CASE WHEN " + queryFragment + " IS NULL THEN NULL ELSE " + value + " END")
  }

  /// The transform of the value, itself optional: `$0.dueDate.flatMap { $0.max() }`.
  @_disfavoredOverload
  public func flatMap<T>(
    _ transform: (SQLQueryExpression<QueryValue.Wrapped>) -> some QueryExpression<T?>
  ) -> SQLQueryExpression<T?> {
    SQLQueryExpression(transform(SQLQueryExpression(queryFragment)).queryFragment)
  }
}

// MARK: - Rows compared as row values

extension TableDefinition {
  /// `("t"."a", "t"."b") = (?, ?)`: the row equals `row`, column by column.
  public func eq(_ row: QueryValue) -> SQLQueryExpression<Bool> { compared("=", row) }

  /// `(…) <> (…)`.
  public func neq(_ row: QueryValue) -> SQLQueryExpression<Bool> { compared("<>", row) }

  /// `(…) IS (…)`: equal where NULL equals NULL.
  public func `is`(_ row: QueryValue) -> SQLQueryExpression<Bool> { compared("IS", row) }

  /// `(…) IS NOT (…)`.
  public func isNot(_ row: QueryValue) -> SQLQueryExpression<Bool> { compared("IS NOT", row) }

  /// `(…) > (…)`: row values compare column by column, the first that differs deciding.
  public func gt(_ row: QueryValue) -> SQLQueryExpression<Bool> { compared(">", row) }

  /// `(…) < (…)`.
  public func lt(_ row: QueryValue) -> SQLQueryExpression<Bool> { compared("<", row) }

  /// `(…) >= (…)`.
  public func gte(_ row: QueryValue) -> SQLQueryExpression<Bool> { compared(">=", row) }

  /// `(…) <= (…)`.
  public func lte(_ row: QueryValue) -> SQLQueryExpression<Bool> { compared("<=", row) }

  public static func == (lhs: Self, rhs: QueryValue) -> SQLQueryExpression<Bool> { lhs.eq(rhs) }
  public static func != (lhs: Self, rhs: QueryValue) -> SQLQueryExpression<Bool> { lhs.neq(rhs) }
  public static func > (lhs: Self, rhs: QueryValue) -> SQLQueryExpression<Bool> { lhs.gt(rhs) }
  public static func < (lhs: Self, rhs: QueryValue) -> SQLQueryExpression<Bool> { lhs.lt(rhs) }
  public static func >= (lhs: Self, rhs: QueryValue) -> SQLQueryExpression<Bool> { lhs.gte(rhs) }
  public static func <= (lhs: Self, rhs: QueryValue) -> SQLQueryExpression<Bool> { lhs.lte(rhs) }

  private func compared(_ op: String, _ row: QueryValue) -> SQLQueryExpression<Bool> {
    rowComparison(
      Self.allColumns.map(\.queryFragment), op,
      Self.allColumns.map { QueryFragment(binding: $0._binding(for: row)) })
  }
}
