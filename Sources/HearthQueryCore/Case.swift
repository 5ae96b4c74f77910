/// A `CASE` expression: `Case(x).when(a, then: b).else(c)` compares `x` with each value in
/// turn; `Case().when(condition, then: b)` tests each condition in turn.
///
/// ```swift
/// // Batch reordering: each id gets its new position in one UPDATE.
/// try Item.where { $0.id.in(ids) }
///   .update { $0.position = Case($0.id).when(7, then: 0).when(3, then: 1).else($0.position) }
///   .execute(db)
/// ```
public struct Case<Base>: Sendable {
  let base: QueryFragment?

  /// A `CASE` on a column of an `update` closure, whose type is an existential there.
  @_disfavoredOverload
  public init(_ base: any QueryExpression<Base>) {
    self.base = base.queryFragment
  }

  /// `CASE base WHEN … THEN …`: the first `when` value equal to `base` chooses the result.
  public init(_ base: some QueryExpression<Base>) {
    self.base = base.queryFragment
  }

  /// The first branch.
  public func when<Result>(
    _ value: some QueryExpression<Base>, then result: some QueryExpression<Result>
  ) -> Cases<Base, Result> {
    Cases(base: base, branches: [(value.queryFragment, result.queryFragment)])
  }
}

extension Case where Base: _OptionalProtocol {
  /// The first branch, on a plain value of an optional base: `Case($0.priority).when(3, …)`
  /// (a NULL base matches no branch).
  public func when<Result>(
    _ value: some QueryExpression<Base.Wrapped>, then result: some QueryExpression<Result>
  ) -> Cases<Base, Result> {
    Cases(base: base, branches: [(value.queryFragment, result.queryFragment)])
  }
}

extension Cases where Base: _OptionalProtocol {
  /// Another branch, on a plain value of an optional base.
  public func when(
    _ value: some QueryExpression<Base.Wrapped>, then result: some QueryExpression<Result>
  ) -> Self {
    var cases = self
    cases.branches.append((value.queryFragment, result.queryFragment))
    return cases
  }
}

extension Case where Base == Bool {
  /// `CASE WHEN condition THEN …`: the first true condition chooses the result.
  public init() {
    base = nil
  }
}

/// A `CASE` expression with its branches so far. Without `else`, a value no branch matches
/// gives NULL, so the expression is optional; `else` gives the fallback and the plain type.
public struct Cases<Base, Result>: QueryExpression, Sendable {
  public typealias QueryValue = Result?

  let base: QueryFragment?
  var branches: [(when: QueryFragment, then: QueryFragment)]

  /// Another branch, tried after the earlier ones.
  public func when(
    _ value: some QueryExpression<Base>, then result: some QueryExpression<Result>
  ) -> Self {
    var cases = self
    cases.branches.append((value.queryFragment, result.queryFragment))
    return cases
  }

  /// The result when no branch matches.
  public func `else`(_ result: some QueryExpression<Result>) -> SQLQueryExpression<Result> {
    SQLQueryExpression(render(else: result.queryFragment))
  }

  /// The result when no branch matches, from a column of an `update` closure (whose type is
  /// an existential there).
  @_disfavoredOverload
  public func `else`(_ result: any QueryExpression<Result>) -> SQLQueryExpression<Result> {
    SQLQueryExpression(render(else: result.queryFragment))
  }

  public var queryFragment: QueryFragment { render(else: nil) }

  private func render(else fallback: QueryFragment?) -> QueryFragment {
    var sql: QueryFragment = "(CASE"
    if let base { sql += " " + base }
    for branch in branches {
      sql += " WHEN " + branch.when + " THEN " + branch.then
    }
    if let fallback { sql += " ELSE " + fallback }
    return sql + " END)"
  }
}
