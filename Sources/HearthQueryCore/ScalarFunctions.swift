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
