import HearthNaming

/// `WITH RECURSIVE …`: named selects (common table expressions) that the main query reads
/// as tables. Each is a `@Table @Selection` type and the select that fills it.
///
/// ```swift
/// @Table @Selection struct Count { let value: Int }
///
/// let oneToTen = With {
///   Values(Count.Columns(value: 1))
///     .union(all: true, Count.where { $0.value < 10 }.select { Count.Columns(value: $0.value + 1) })
/// } query: {
///   Count.all
/// }
/// ```
public struct With<QueryValue>: Statement, Sendable {
  let clauses: [QueryFragment]
  let main: any Statement<QueryValue> & Sendable

  public init(
    @CommonTableExpressionBuilder _ expressions: () -> [QueryFragment],
    query: () -> some Statement<QueryValue> & Sendable
  ) {
    clauses = expressions()
    main = query()
  }

  /// The statement; a `With` whose every named select, or whose query, is `none` is no
  /// statement (it runs as nothing), as in the reference.
  public var query: QueryFragment {
    let main = self.main.query
    guard !clauses.isEmpty, !main.isEmpty else { return QueryFragment() }
    return "WITH RECURSIVE " + clauses.joined() + " " + main
  }

  public func _decodeRow(_ decoder: inout QueryRowDecoder) throws -> QueryValue {
    try main._decodeRow(&decoder)
  }
}

/// The named selects of a `With`: each fills the table its rows decode into.
@resultBuilder
public enum CommonTableExpressionBuilder {
  /// A named select; one that is `none` (selects nothing) is left out, as the reference
  /// leaves it out.
  public static func buildExpression<T: Table>(_ statement: some Statement<T>) -> [QueryFragment] {
    let query = statement.query
    guard !query.isEmpty else { return [] }
    let names = columnList(T.TableColumns.allColumns.map(\.name))
    return [QueryFragment(raw: SQLNaming.quote(T.tableName) + " ") + names + " AS (" + query + ")"]
  }

  public static func buildBlock(_ components: [QueryFragment]...) -> [QueryFragment] {
    components.flatMap { $0 }
  }
}

/// `SELECT value…` with no table: the first row of a recursive select, or constants.
///
/// ```swift
/// Values(Count.Columns(value: 1))   // SELECT ?
/// Values(1, "Hello", true)           // SELECT ?, ?, ?
/// ```
public struct Values<QueryValue>: Statement, Sendable {
  let values: [QueryFragment]
  let decode: @Sendable (inout QueryRowDecoder) throws -> QueryValue

  init(
    values: [QueryFragment],
    decode: @escaping @Sendable (inout QueryRowDecoder) throws -> QueryValue
  ) {
    self.values = values
    self.decode = decode
  }

  public init(_ value: some QueryExpression<QueryValue>) where QueryValue: QueryRepresentable {
    if let group = QueryValue.self as? any _ColumnGroup.Type {
      // A group's columns each named, as a common table expression's rows need them:
      // `SELECT NULL AS "link", ? AS "note"`.
      values = zip(_columnFragments(value), group._columnNames).map { fragment, name in
        fragment + QueryFragment(raw: " AS " + SQLNaming.quote(name))
      }
    } else {
      values = [value.queryFragment]
    }
    decode = { try QueryValue(decoder: &$0) }
  }

  /// A call of a function that returns nothing (`@DatabaseFunction func log(_:)`): the row
  /// it selects holds no value to read.
  public init(_ value: some QueryExpression<Void>) where QueryValue == () {
    values = [value.queryFragment]
    decode = { _ in () }
  }

  /// Several values: `Values(1, "Hello", true)` is `SELECT ?, ?, ?`, a row `(Int, String,
  /// Bool)`.
  @_disfavoredOverload
  public init<each C: QueryExpression>(_ values: repeat each C)
  where
    QueryValue == (repeat (each C).QueryValue.QueryOutput),
    repeat (each C).QueryValue: QueryRepresentable
  {
    let selected = selectedColumns(repeat each values)
    self.values = selected.fragments
    decode = selected.decode
  }

  public var query: QueryFragment { "SELECT " + values.joined() }

  public func _decodeRow(_ decoder: inout QueryRowDecoder) throws -> QueryValue {
    try decode(&decoder)
  }
}

extension QueryFragment {
  /// `0`: the condition of `Table.none`, which no row meets; a statement holding it renders
  /// as no statement.
  static let noRows = QueryFragment(raw: "0")
}
