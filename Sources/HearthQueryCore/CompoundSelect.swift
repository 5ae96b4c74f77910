import HearthNaming

/// Two selects joined by `UNION`, `UNION ALL`, `INTERSECT` or `EXCEPT`: rows decode as the
/// first one's do.
///
/// ```swift
/// let titles = Reminder.select(\.title).union(RemindersList.select(\.title))
/// ```
///
/// SQLite allows `ORDER BY` and `LIMIT` only after the last select of a compound: order the
/// whole with `order(by:)` here, not the parts.
public struct CompoundSelect<QueryValue>: Statement {
  let parts: QueryFragment
  let ordering: [QueryFragment]
  let first: any Statement<QueryValue>

  public var query: QueryFragment {
    ordering.isEmpty || parts.isEmpty ? parts : parts + " ORDER BY " + ordering.joined()
  }

  public func _decodeRow(_ decoder: inout QueryRowDecoder) throws -> QueryValue {
    try first._decodeRow(&decoder)
  }

  /// Orders the combined rows by result columns, counted from 1 (SQLite orders a compound
  /// by the columns of its result only).
  public func order(byColumn columns: Int...) -> Self {
    CompoundSelect(
      parts: parts,
      ordering: ordering + columns.map { QueryFragment(raw: String($0)) },
      first: first)
  }
}

// A row value starts a compound as the select of its values, each named after its column:
// the first row of a recursive common table expression.
//
// ```swift
// With {
//   Fibonacci(n: 1, prevFib: 0, fib: 1)
//     .union(Fibonacci.select { Fibonacci.Columns(n: $0.n + 1, prevFib: $0.fib, fib: $0.prevFib + $0.fib) })
// } query: { Fibonacci.select(\.fib).limit(10) }
// ```
//
// (Without these members, Swift 6.3's type checker crashes on `row.union(…)`, looking for
// `union` among the table's static dynamic members.)
extension Table {
  /// `SELECT ? AS "n", ? AS "prevFib", …`: this row's values as a one-row select.
  var selectedValues: Values<Self> {
    let values = zip(TableColumns.allColumns, _columnBindings).map { column, binding in
      QueryFragment(binding: binding) + QueryFragment(raw: " AS " + SQLNaming.quote(column.name))
    }
    return Values(values: values, decode: { try Self(decoder: &$0) })
  }

  /// This row, then the rows of `other`: `UNION`, or with `all`, `UNION ALL`.
  public func union(all: Bool = false, _ other: some Statement<Self>) -> CompoundSelect<Self> {
    selectedValues.union(all: all, other)
  }

  /// This row if `other` has it too.
  public func intersect(_ other: some Statement<Self>) -> CompoundSelect<Self> {
    selectedValues.intersect(other)
  }

  /// This row unless `other` has it.
  public func except(_ other: some Statement<Self>) -> CompoundSelect<Self> {
    selectedValues.except(other)
  }
}

extension Statement {
  /// `… UNION …` (duplicates removed) or, with `all`, `UNION ALL`.
  public func union(all: Bool = false, _ other: some Statement<QueryValue>)
    -> CompoundSelect<QueryValue>
  {
    compound(all ? " UNION ALL " : " UNION ", other)
  }

  /// `… INTERSECT …`: the rows of both.
  public func intersect(_ other: some Statement<QueryValue>) -> CompoundSelect<QueryValue> {
    compound(" INTERSECT ", other)
  }

  /// `… EXCEPT …`: the rows of this one that the other has not.
  public func except(_ other: some Statement<QueryValue>) -> CompoundSelect<QueryValue> {
    compound(" EXCEPT ", other)
  }

  /// `EXISTS (…)`: whether the statement gives any row.
  ///
  /// ```swift
  /// RemindersList.where { list in Reminder.where { $0.remindersListID == list.id }.exists() }
  /// ```
  public func exists() -> SQLQueryExpression<Bool> {
    SQLQueryExpression("EXISTS " + queryFragment)
  }

  private func compound(_ keyword: String, _ other: some Statement<QueryValue>)
    -> CompoundSelect<QueryValue>
  {
    // A side that is `none` (no statement) leaves the other, as in the reference.
    let (lhs, rhs) = (query, other.query)
    let parts = lhs.isEmpty ? rhs : rhs.isEmpty ? lhs : lhs + QueryFragment(raw: keyword) + rhs
    return CompoundSelect(parts: parts, ordering: [], first: self)
  }
}
