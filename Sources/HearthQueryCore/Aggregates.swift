// Aggregate functions. Over no rows SQLite gives NULL (count and total give 0), so most of
// them are typed as optional.

extension QueryExpression {
  /// `max(x)`: the largest value, or NULL over no rows.
  public func max() -> SQLQueryExpression<QueryValue?> { function("max", queryFragment) }

  /// `min(x)`: the smallest value, or NULL over no rows.
  public func min() -> SQLQueryExpression<QueryValue?> { function("min", queryFragment) }

  /// `group_concat(x, separator)`: the values joined, or NULL over no rows.
  public func groupConcat(_ separator: String = ",") -> SQLQueryExpression<String?> {
    function("group_concat", queryFragment, separator.queryFragment)
  }
}

extension QueryExpression where QueryValue: Numeric {
  /// `avg(x)`: the mean, or NULL over no rows.
  public func avg() -> SQLQueryExpression<Double?> { function("avg", queryFragment) }

  /// `sum(x)`: the sum, or NULL over no rows.
  public func sum() -> SQLQueryExpression<QueryValue?> { function("sum", queryFragment) }

  /// `total(x)`: the sum as a double, 0 over no rows.
  public func total() -> SQLQueryExpression<Double> { function("total", queryFragment) }
}
