// Aggregate functions. Over no rows SQLite gives NULL (count and total give 0), so most of
// them are typed as optional.

extension QueryExpression {
  /// `max(x)`: the largest value, or NULL over no rows.
  @_disfavoredOverload
  public func max(filter condition: (any QueryExpression<Bool>)? = nil)
    -> SQLQueryExpression<QueryValue?>
  {
    aggregate("max", filter: condition)
  }

  /// `min(x)`: the smallest value, or NULL over no rows.
  @_disfavoredOverload
  public func min(filter condition: (any QueryExpression<Bool>)? = nil)
    -> SQLQueryExpression<QueryValue?>
  {
    aggregate("min", filter: condition)
  }

  /// `name([DISTINCT] x) [FILTER (WHERE condition)]`.
  func aggregate<Value>(
    _ name: String, distinct isDistinct: Bool = false,
    filter condition: (any QueryExpression<Bool>)?
  ) -> SQLQueryExpression<Value> {
    var sql = QueryFragment(raw: name + (isDistinct ? "(DISTINCT " : "(")) + queryFragment + ")"
    if let condition { sql += filterClause(condition) }
    return SQLQueryExpression(sql)
  }

  /// `group_concat(DISTINCT x)`: the distinct non-NULL values joined by commas (SQLite takes
  /// no separator with DISTINCT).
  public func groupConcat(
    distinct isDistinct: Bool, filter condition: (any QueryExpression<Bool>)? = nil
  )
    -> SQLQueryExpression<String?>
  {
    aggregate("group_concat", distinct: isDistinct, filter: condition)
  }

  /// `group_concat(x, separator)`: the non-NULL values joined, or NULL over no rows.
  ///
  /// With `order`, the values are joined in that order (`$0.title.groupConcat(", ", order:
  /// $0.title)`, or `$0.position.desc()`); without, in the order SQLite meets the rows.
  /// SQLite orders inside an aggregate only from 3.44, so ordered concatenation runs
  /// HearthSQLite's own `hearth_group_concat`, which every connection has.
  public func groupConcat(
    _ separator: String = ",", order: any QueryExpression...,
    filter condition: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<String?> {
    groupConcat(separator: separator, order: order, filter: condition)
  }

  /// `group_concat(x, separator)` with a separator computed per row: `$0.title.groupConcat(
  /// $0.separator)`, `groupConcat(#sql("char(10)"))`.
  @_disfavoredOverload
  public func groupConcat(
    _ separator: some QueryExpression<String>, order: any QueryExpression...,
    filter condition: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<String?> {
    groupConcat(separator: separator, order: order, filter: condition)
  }

  /// `group_concat(x, separator)` with a separator of another type, which SQLite reads as
  /// its text: `$0.name.groupConcat($0.id)`.
  @_disfavoredOverload
  public func groupConcat<Separator: QueryExpression>(
    _ separator: Separator, order: any QueryExpression...,
    filter condition: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<String?> {
    groupConcat(separator: separator, order: order, filter: condition)
  }

  private func groupConcat(
    separator: some QueryExpression, order: [any QueryExpression],
    filter condition: (any QueryExpression<Bool>)?
  ) -> SQLQueryExpression<String?> {
    var sql: QueryFragment
    if order.isEmpty {
      sql = "group_concat(" + queryFragment + ", " + separator.queryFragment + ")"
    } else {
      let keys = order.map { key -> QueryFragment in
        let term: any _OrderingTermParts =
          key as? any _OrderingTermParts
          ?? _OrderingTerm<Void>(key: key.queryFragment, descending: false, nulls: nil)
        var direction = term.descending ? 1 : 0
        switch term.nulls {
        case .first?: direction |= 2
        case .last?: direction |= 4
        case nil: break
        }
        return QueryFragment(raw: String(direction)) + ", " + term.key
      }
      sql =
        "hearth_group_concat(" + [queryFragment, separator.queryFragment, keys.joined()].joined()
        + ")"
    }
    if let condition { sql += filterClause(condition) }
    return SQLQueryExpression(sql)
  }
}

extension QueryExpression where QueryValue: _OptionalProtocol {
  /// `max(x)` of an optional value: NULL over no rows or only NULLs.
  public func max(filter condition: (any QueryExpression<Bool>)? = nil)
    -> SQLQueryExpression<QueryValue>
  {
    aggregate("max", filter: condition)
  }

  /// `min(x)` of an optional value.
  public func min(filter condition: (any QueryExpression<Bool>)? = nil)
    -> SQLQueryExpression<QueryValue>
  {
    aggregate("min", filter: condition)
  }
}

extension QueryExpression where QueryValue: Numeric {
  /// `avg(x)`: the mean, or NULL over no rows.
  public func avg(
    distinct isDistinct: Bool = false, filter condition: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<Double?> {
    aggregate("avg", distinct: isDistinct, filter: condition)
  }

  /// `sum(x)`: the sum, or NULL over no rows.
  public func sum(
    distinct isDistinct: Bool = false, filter condition: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<QueryValue?> {
    aggregate("sum", distinct: isDistinct, filter: condition)
  }

  /// `total(x)`: the sum as a double, 0 over no rows.
  public func total(
    distinct isDistinct: Bool = false, filter condition: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<Double> {
    aggregate("total", distinct: isDistinct, filter: condition)
  }
}

// The same over an optional number (a nullable column): NULLs are left out.
extension QueryExpression where QueryValue: _OptionalProtocol, QueryValue.Wrapped: Numeric {
  /// `avg(x)`: the mean of the non-NULL values, or NULL.
  public func avg(
    distinct isDistinct: Bool = false, filter condition: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<Double?> {
    aggregate("avg", distinct: isDistinct, filter: condition)
  }

  /// `sum(x)`: the sum of the non-NULL values, or NULL.
  public func sum(
    distinct isDistinct: Bool = false, filter condition: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<QueryValue> {
    aggregate("sum", distinct: isDistinct, filter: condition)
  }

  /// `total(x)`: the sum of the non-NULL values as a double, 0 over none.
  public func total(
    distinct isDistinct: Bool = false, filter condition: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<Double> {
    aggregate("total", distinct: isDistinct, filter: condition)
  }
}

extension QueryExpression {
  /// `count(x) FILTER (WHERE condition)`: the non-NULL values of the rows where `condition`
  /// holds.
  public func count(distinct isDistinct: Bool = false, filter condition: some QueryExpression<Bool>)
    -> SQLQueryExpression<Int>
  {
    SQLQueryExpression(count(distinct: isDistinct).queryFragment + filterClause(condition))
  }
}

extension QueryExpression where QueryValue: Codable {
  /// `json_group_array(x)`: the values as a JSON array, decoded into `[QueryValue]` (`[]`
  /// over no rows); `distinct:` keeps each value once. Values cross as JSON: text, numbers
  /// and NULL (for an optional).
  public func jsonGroupArray(
    distinct isDistinct: Bool = false, filter condition: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<[QueryValue].JSONRepresentation> {
    groupedJSONArray(of: queryFragment, distinct: isDistinct, filter: condition)
  }
}

extension QueryExpression {
  /// `json_group_array(json(x))` of a JSON column: the documents as a JSON array of them.
  public func jsonGroupArray<Document: Codable>(
    distinct isDistinct: Bool = false, filter condition: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<[Document].JSONRepresentation>
  where QueryValue == _CodableJSONRepresentation<Document> {
    groupedJSONArray(
      of: QueryValue._jsonEncoded(queryFragment), distinct: isDistinct, filter: condition)
  }

  /// `json_group_array(json(x))` of an optional JSON column: `null` where it is NULL.
  public func jsonGroupArray<Document: Codable>(
    distinct isDistinct: Bool = false, filter condition: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<[Document?].JSONRepresentation>
  where QueryValue == _CodableJSONRepresentation<Document>? {
    groupedJSONArray(
      of: QueryValue._jsonEncoded(queryFragment), distinct: isDistinct, filter: condition)
  }
}

/// `json_group_array([DISTINCT] value) [FILTER (WHERE condition)]`.
func groupedJSONArray<Value>(
  of value: QueryFragment, distinct isDistinct: Bool, filter condition: (any QueryExpression<Bool>)?
) -> SQLQueryExpression<Value> {
  var sql = QueryFragment(raw: isDistinct ? "json_group_array(DISTINCT " : "json_group_array(")
  sql += value + ")"
  if let condition { sql += filterClause(condition) }
  return SQLQueryExpression(sql)
}

extension TableDefinition {
  /// `count(*)`: the rows (an aggregate), as `$0.count()` in a `select`.
  public func count() -> SQLQueryExpression<Int> {
    SQLQueryExpression(QueryFragment(raw: "count(*)"))
  }

  /// `count(*) FILTER (WHERE condition)`: the rows where `condition` holds.
  ///
  /// ```swift
  /// Reminder.select { ($0.count(filter: !$0.isCompleted), $0.count(filter: $0.isFlagged)) }
  /// ```
  public func count(filter condition: some QueryExpression<Bool>) -> SQLQueryExpression<Int> {
    SQLQueryExpression(QueryFragment(raw: "count(*)") + filterClause(condition))
  }
}

extension QueryExpression where Self == SQLQueryExpression<Int> {
  /// `count(*) [FILTER (WHERE condition)]`, where the rows' columns are not needed:
  /// `Reminder.select { _ in .count() }`.
  public static func count(filter condition: (any QueryExpression<Bool>)? = nil) -> Self {
    var sql = QueryFragment(raw: "count(*)")
    if let condition { sql += filterClause(condition) }
    return SQLQueryExpression(sql)
  }
}

/// ` FILTER (WHERE condition)` after an aggregate.
func filterClause(_ condition: some QueryExpression<Bool>) -> QueryFragment {
  " FILTER (WHERE " + condition.queryFragment + ")"
}
