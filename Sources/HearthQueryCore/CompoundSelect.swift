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
    ordering.isEmpty ? parts : parts + " ORDER BY " + ordering.joined()
  }

  public func _decodeRow(_ decoder: inout QueryDecoder) throws -> QueryValue {
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
    CompoundSelect(
      parts: query + QueryFragment(raw: keyword) + other.query, ordering: [], first: self)
  }
}
