// Sectioned fetches: a select's rows, each read with the value of a section expression, in
// the expression's order first. The database evaluates the expression; the fetching side
// (`fetchAll(_:sectionBy:)`, `@FetchAll(…, sectionBy:)`) groups rows by its value.
//
// ```swift
// try Reminder.order(by: \.title).fetchAll(db, sectionBy: \.category)
// try Reminder.order(by: \.title).fetchAll(db, sectionBy: { $0.priority.desc() })
// ```

/// What a sectioned fetch groups by: the expression read with each row, and its term in
/// `ORDER BY` (the expression itself, or the ordering written for it).
public struct _Sectioning<Key>: Hashable, Sendable {
  let select: QueryFragment
  let order: QueryFragment

  public init(_ expression: some QueryExpression<Key>) {
    select = expression.queryFragment
    order = expression.queryFragment
  }

  public init(_ term: _OrderingTerm<Key>) {
    select = term.key
    order = term.queryFragment
  }
}

/// The closure of `sectionBy:`: one expression, or one ordering of an expression.
@resultBuilder
public enum _SectionBuilder<Key> {
  public static func buildExpression(_ expression: some QueryExpression<Key>) -> _Sectioning<Key> {
    _Sectioning(expression)
  }

  public static func buildExpression(_ term: _OrderingTerm<Key>) -> _Sectioning<Key> {
    _Sectioning(term)
  }

  public static func buildBlock(_ sectioning: _Sectioning<Key>) -> _Sectioning<Key> { sectioning }

  public static func buildEither(first sectioning: _Sectioning<Key>) -> _Sectioning<Key> {
    sectioning
  }

  public static func buildEither(second sectioning: _Sectioning<Key>) -> _Sectioning<Key> {
    sectioning
  }
}

extension Select {
  /// This select's rows, each followed by the section's value, ordered by the section first
  /// and then as this select orders them.
  public func _sectioned<Key: QueryDecodable>(by sectioning: _Sectioning<Key>) -> Select<
    (Columns, Key), From, Joins
  > {
    var clauses = clauses
    if clauses.columns.isEmpty {
      clauses.columns = [From.columns.queryFragment] + clauses.joinedTableColumns
    }
    clauses.columns.append(sectioning.select)
    clauses.orders.insert(sectioning.order, at: 0)
    let decode = decode
    return Select<(Columns, Key), From, Joins>(
      clauses: clauses,
      decode: { decoder in (try decode(&decoder), try Key(decoder: &decoder)) })
  }
}

/// The closure of `@FetchAll`'s `sectionBy:`, where sectioning may also be left out: `nil`,
/// an `if` not taken, or a branch of a `switch` that gives `nil` fetches the rows unsectioned.
@resultBuilder
public enum _OptionalSectionBuilder<Key> {
  public static func buildExpression(_ expression: some QueryExpression<Key>) -> _Sectioning<Key>? {
    _Sectioning(expression)
  }

  public static func buildExpression(_ term: _OrderingTerm<Key>) -> _Sectioning<Key>? {
    _Sectioning(term)
  }

  /// `nil`: no sections.
  public static func buildExpression(_ none: _Sectioning<Key>?) -> _Sectioning<Key>? { none }

  public static func buildBlock(_ sectioning: _Sectioning<Key>?) -> _Sectioning<Key>? {
    sectioning
  }

  public static func buildBlock() -> _Sectioning<Key>? { nil }

  public static func buildOptional(_ sectioning: _Sectioning<Key>??) -> _Sectioning<Key>? {
    sectioning ?? nil
  }

  public static func buildEither(first sectioning: _Sectioning<Key>?) -> _Sectioning<Key>? {
    sectioning
  }

  public static func buildEither(second sectioning: _Sectioning<Key>?) -> _Sectioning<Key>? {
    sectioning
  }
}

extension _OptionalSectionBuilder where Key == String? {
  public static func buildExpression(_ expression: some QueryExpression<String>)
    -> _Sectioning<Key>?
  {
    _Sectioning(SQLQueryExpression(expression: expression, as: String?.self))
  }

  public static func buildExpression(_ term: _OrderingTerm<String>) -> _Sectioning<Key>? {
    _Sectioning(
      _OrderingTerm<String?>(key: term.key, descending: term.descending, nulls: term.nulls))
  }
}
