import HearthSQLite

/// A `SELECT` from `From` and the tables joined to it, whose rows decode into `Columns`.
///
/// ```swift
/// Reminder.order(by: \.title)                   // Select<Reminder, Reminder, ()>
/// Reminder.select { ($0.id, $0.title) }          // Select<(Int, String), Reminder, ()>
/// Reminder.where(\.isCompleted).count()          // Select<Int, Reminder, ()>
/// Reminder.leftJoin(Tag.all) { … }               // Select<(Reminder, Tag?), Reminder, Tag?>
/// ```
///
/// `Joins` is the tuple of joined tables (`()` for none). The closures of `where`, `order`,
/// `group`, `having` and `select` take the columns of every table in order: `$0` for `From`,
/// `$1`, `$2`… for the joined ones.
// `where` and `having` take an expression, a nullable one, or a builder, as the reference's.
// swift-format-ignore: AmbiguousTrailingClosureOverload
@dynamicMemberLookup
public struct Select<Columns, From: Table, Joins>: Statement, Sendable {
  public typealias QueryValue = Columns

  @usableFromInline var clauses: SelectClauses
  @usableFromInline let decode: @Sendable (inout QueryRowDecoder) throws -> Columns

  @usableFromInline
  init(
    clauses: SelectClauses, decode: @escaping @Sendable (inout QueryRowDecoder) throws -> Columns
  ) {
    self.clauses = clauses
    self.decode = decode
  }

  @inlinable
  public func _decodeRow(_ decoder: inout QueryRowDecoder) throws -> Columns {
    try decode(&decoder)
  }

  /// The statement; a select made from `none` is no statement at all (it runs as no rows),
  /// as the reference renders it.
  public var query: QueryFragment {
    guard !clauses.wheres.contains(.noRows) else { return QueryFragment() }
    var sql: QueryFragment = clauses.distinct ? "SELECT DISTINCT " : "SELECT "
    if clauses.columns.isEmpty {
      sql += ([From.columns.queryFragment] + clauses.joinedTableColumns).joined()
    } else {
      sql += clauses.columns.joined()
    }
    sql += " FROM " + (clauses.from ?? From.tableReference)
    for join in clauses.joins { sql += join }
    if !clauses.wheres.isEmpty { sql += " WHERE " + clauses.wheres.joinedWithAnd() }
    if !clauses.groups.isEmpty { sql += " GROUP BY " + clauses.groups.joined() }
    if !clauses.havings.isEmpty { sql += " HAVING " + clauses.havings.joinedWithAnd() }
    if !clauses.orders.isEmpty { sql += " ORDER BY " + clauses.orders.joined() }
    if let limit = clauses.limit {
      sql += " LIMIT " + limit
      if let offset = clauses.offset { sql += " OFFSET " + offset }
    }
    return sql
  }

  func with(_ change: (inout SelectClauses) -> Void) -> Self {
    var copy = self
    change(&copy.clauses)
    return copy
  }

  /// Adds a condition (conditions combine with `AND`).
  public func `where`<each J: Table>(
    _ predicate: (From.TableColumns, repeat (each J).TableColumns) -> some QueryExpression<Bool>
  ) -> Self where Joins == (repeat each J) {
    with { $0.wheres.append(predicate(From.columns, repeat (each J).columns).queryFragment) }
  }

  /// Adds the conditions a builder closure gives: none, one, or the ones of an `if`; a
  /// condition that may be NULL (a column of an outer join's optional side) too, where a
  /// NULL condition matches no row.
  @_disfavoredOverload
  public func `where`<each J: Table>(
    @PredicateBuilder _ predicates: (From.TableColumns, repeat (each J).TableColumns)
      -> [QueryFragment]
  ) -> Self where Joins == (repeat each J) {
    with { $0.wheres += predicates(From.columns, repeat (each J).columns) }
  }

  /// Adds a boolean column or computed expression as a condition.
  public func `where`(_ keyPath: KeyPath<From.TableColumns, some QueryExpression<Bool>>) -> Self {
    with { $0.wheres.append(From.columns[keyPath: keyPath].queryFragment) }
  }

  /// Adds a clause's conditions: `Reminder.select(\.title).and(Reminder.where(\.isFlagged))`.
  public func and(_ other: Where<From>) -> Self {
    with { $0.wheres += other.predicates }
  }

  /// `OFFSET n`: skips the first `n` rows (with no limit, `LIMIT -1 OFFSET n`); nil changes
  /// nothing, as in the reference.
  public func offset(_ offset: Int?) -> Self {
    guard let offset else { return self }
    return with {
      $0.limit = $0.limit ?? QueryFragment(binding: (-1).queryBinding)
      $0.offset = QueryFragment(binding: offset.queryBinding)
    }
  }

  /// Orders by the given columns, ascending.
  public func order<each C: QueryExpression>(by keyPaths: repeat KeyPath<From.TableColumns, each C>)
    -> Self
  {
    with { $0.orders += queryFragments(repeat From.columns[keyPath: each keyPaths]) }
  }

  /// Orders by terms built in a closure: one expression, a tuple, `.desc()`, `if`/`else`.
  public func order<each J: Table>(
    @OrderingBuilder _ ordering: (From.TableColumns, repeat (each J).TableColumns)
      -> [QueryFragment]
  ) -> Self where Joins == (repeat each J) {
    with { $0.orders += ordering(From.columns, repeat (each J).columns) }
  }

  /// The same, spelled with a label: `order(by: { ($0.listID, $0.title) })`.
  @_disfavoredOverload
  public func order<each J: Table>(
    @OrderingBuilder by ordering: (From.TableColumns, repeat (each J).TableColumns)
      -> [QueryFragment]
  ) -> Self where Joins == (repeat each J) {
    order(ordering)
  }

  /// `LIMIT n [OFFSET m]`. As in the reference, a nil count or offset changes nothing: the
  /// limit or offset the select had stays (none, on a select with neither).
  public func limit(_ count: Int?, offset: Int? = nil) -> Self {
    with {
      if let count { $0.limit = QueryFragment(binding: count.queryBinding) }
      if let offset {
        $0.limit = $0.limit ?? QueryFragment(binding: (-1).queryBinding)
        $0.offset = QueryFragment(binding: offset.queryBinding)
      }
    }
  }

  /// `LIMIT expression`, built from the tables' columns (`.limit { _ in 10 }`, a scalar
  /// subquery's count). A closure that gives nothing (`nil`, an `if` not taken) changes
  /// nothing, as a nil count does.
  public func limit<each J: Table>(
    @QueryFragmentBuilder<Int> _ maxLength: (From.TableColumns, repeat (each J).TableColumns)
      -> [QueryFragment]
  ) -> Self where Joins == (repeat each J) {
    guard let count = maxLength(From.columns, repeat (each J).columns).last else { return self }
    return with { $0.limit = count }
  }

  /// `OFFSET expression`, built from the tables' columns; a closure that gives nothing changes
  /// nothing.
  public func offset<each J: Table>(
    @QueryFragmentBuilder<Int> _ offset: (From.TableColumns, repeat (each J).TableColumns)
      -> [QueryFragment]
  ) -> Self where Joins == (repeat each J) {
    guard let skip = offset(From.columns, repeat (each J).columns).last else { return self }
    return with {
      $0.limit = $0.limit ?? QueryFragment(binding: (-1).queryBinding)
      $0.offset = skip
    }
  }

  /// `LIMIT expression OFFSET expression`, both built from the tables' columns.
  public func limit<each J: Table, Count: QueryExpression, Skip: QueryExpression>(
    _ maxLength: (From.TableColumns, repeat (each J).TableColumns) -> Count,
    offset: (From.TableColumns, repeat (each J).TableColumns) -> Skip
  ) -> Self where Joins == (repeat each J), Count.QueryValue == Int, Skip.QueryValue == Int {
    with {
      $0.limit = maxLength(From.columns, repeat (each J).columns).queryFragment
      $0.offset = offset(From.columns, repeat (each J).columns).queryFragment
    }
  }

  /// `SELECT DISTINCT`.
  public func distinct(_ isDistinct: Bool = true) -> Self { with { $0.distinct = isDistinct } }

  /// `GROUP BY` the given columns.
  public func group<each C: QueryExpression>(by keyPaths: repeat KeyPath<From.TableColumns, each C>)
    -> Self
  {
    with { $0.groups += queryFragments(repeat From.columns[keyPath: each keyPaths]) }
  }

  /// `GROUP BY` one expression built in a closure: `group { $0.dueDate.year }`.
  public func group<each J: Table, C: QueryExpression>(
    by grouping: (From.TableColumns, repeat (each J).TableColumns) -> C
  ) -> Self where Joins == (repeat each J) {
    with { $0.groups.append(grouping(From.columns, repeat (each J).columns).queryFragment) }
  }

  /// `GROUP BY` expressions built in a closure.
  @_disfavoredOverload
  public func group<each J: Table, each C: QueryExpression>(
    by grouping: (From.TableColumns, repeat (each J).TableColumns) -> (repeat each C)
  ) -> Self where Joins == (repeat each J) {
    with {
      $0.groups += queryFragments(repeat each grouping(From.columns, repeat (each J).columns))
    }
  }

  /// `HAVING` a condition on groups.
  public func having<each J: Table>(
    _ predicate: (From.TableColumns, repeat (each J).TableColumns) -> some QueryExpression<Bool>
  ) -> Self where Joins == (repeat each J) {
    with { $0.havings.append(predicate(From.columns, repeat (each J).columns).queryFragment) }
  }

  /// `HAVING` a boolean column or computed expression: `having(\.isFlagged)`.
  public func having(_ keyPath: KeyPath<From.TableColumns, some QueryExpression<Bool>>) -> Self {
    with { $0.havings.append(From.columns[keyPath: keyPath].queryFragment) }
  }

  /// `HAVING` the conditions a builder closure gives: none, one, or the ones of an `if`.
  @_disfavoredOverload
  public func having<each J: Table>(
    @PredicateBuilder _ predicates: (From.TableColumns, repeat (each J).TableColumns)
      -> [QueryFragment]
  ) -> Self where Joins == (repeat each J) {
    with { $0.havings += predicates(From.columns, repeat (each J).columns) }
  }

  /// The number of rows this query selects: `SELECT count(*)` with the same conditions.
  public func count() -> Select<Int, From, Joins> {
    Select<Int, From, Joins>(
      clauses: with { $0.columns = ["count(*)"] }.clauses,
      decode: { try $0.decode(Int.self) })
  }

  /// `SELECT count(*) FILTER (WHERE condition)`: the rows of this query where `condition`
  /// holds.
  public func count<each J: Table>(
    filter condition: (From.TableColumns, repeat (each J).TableColumns)
      -> some QueryExpression<Bool>
  ) -> Select<Int, From, Joins> where Joins == (repeat each J) {
    let filtered = "count(*)" + filterClause(condition(From.columns, repeat (each J).columns))
    return Select<Int, From, Joins>(
      clauses: with { $0.columns = [filtered] }.clauses, decode: { try $0.decode(Int.self) })
  }

  /// `x IN (this select)`: whether the select's one column holds `element`.
  public func contains(_ element: some QueryExpression<Columns>) -> SQLQueryExpression<Bool>
  where Columns: QueryBindable {
    SQLQueryExpression("(" + element.queryFragment + " IN (" + query + "))")
  }

  /// Runs `count()` and returns the number.
  public func fetchCount(_ db: Database) throws -> Int {
    if clauses.groups.isEmpty, clauses.limit == nil, !clauses.distinct {
      return try count().fetchOne(db) ?? 0
    }
    // A grouped, limited or distinct select is counted from the outside.
    let counting = SQLQueryExpression<Int>("SELECT count(*) FROM (" + query + ")")
    return try counting.fetchOne(db) ?? 0
  }
}

/// The parts of a `SELECT`, kept apart until it renders.
@usableFromInline
struct SelectClauses: Sendable {
  var distinct = false
  /// Empty: every column of the table.
  var columns: [QueryFragment] = []
  /// What the select reads in place of `From`'s table: a table-valued function's call.
  var from: QueryFragment?
  /// ` JOIN "t" ON …`, one per joined table.
  var joins: [QueryFragment] = []
  /// The columns of each joined table, for a select of whole rows.
  var joinedTableColumns: [QueryFragment] = []
  var wheres: [QueryFragment] = []
  var groups: [QueryFragment] = []
  var havings: [QueryFragment] = []
  var orders: [QueryFragment] = []
  var limit: QueryFragment?
  var offset: QueryFragment?

  @usableFromInline init() {}

  @usableFromInline mutating func setWheres(_ predicates: [QueryFragment]) { wheres = predicates }
  @usableFromInline mutating func setOrders(_ orders: [QueryFragment]) { self.orders = orders }
}

extension [QueryFragment] {
  /// `a AND b AND c`; each part is already parenthesized where it needs to be.
  func joinedWithAnd() -> QueryFragment {
    count == 1 ? self[0] : map { "(" + $0 + ")" }.joined(separator: " AND ")
  }
}

/// Builds the terms of an `ORDER BY`: an expression, a tuple of them, `if`/`else`.
@resultBuilder
public enum OrderingBuilder: _FragmentListBuilder {
  public static func buildExpression<each C: QueryExpression>(_ terms: (repeat each C))
    -> [QueryFragment]
  {
    queryFragments(repeat each terms)
  }
}

/// What the builders of clause lists (`order`, `where`, `having`) share: their parts are
/// lists of fragments, concatenated, with `if`/`else`, `if` alone and loops.
public protocol _FragmentListBuilder {}

/// The expressions of a clause built in a closure, of `Clause` values: `limit { _ in … }` and
/// `offset { _ in … }` take `Int` expressions, and `nil` or an `if` not taken gives none.
@resultBuilder
public enum QueryFragmentBuilder<Clause>: _FragmentListBuilder {}

extension QueryFragmentBuilder<Int> {
  public static func buildExpression(_ expression: some QueryExpression<Int>) -> [QueryFragment] {
    [expression.queryFragment]
  }

  public static func buildExpression(_ expression: Never?) -> [QueryFragment] { [] }
}

extension _FragmentListBuilder {
  public static func buildBlock(_ components: [QueryFragment]...) -> [QueryFragment] {
    components.flatMap { $0 }
  }

  public static func buildEither(first component: [QueryFragment]) -> [QueryFragment] {
    component
  }

  public static func buildEither(second component: [QueryFragment]) -> [QueryFragment] {
    component
  }

  public static func buildOptional(_ component: [QueryFragment]?) -> [QueryFragment] {
    component ?? []
  }

  public static func buildArray(_ components: [[QueryFragment]]) -> [QueryFragment] {
    components.flatMap { $0 }
  }
}

/// One term of an `ORDER BY` with its direction; `Value` is the type of what it orders by
/// (so that a sectioned fetch, `sectionBy: { $0.category.desc() }`, knows its sections' type).
public struct _OrderingTerm<Value>: QueryExpression, _OrderingTermParts, Sendable {
  public typealias QueryValue = Void
  /// What is ordered by.
  let key: QueryFragment
  let descending: Bool
  let nulls: NullOrdering?

  public var queryFragment: QueryFragment {
    key + (descending ? " DESC" : " ASC") + nullsClause(nulls)
  }
}

/// An ordering term's parts, whatever it orders by.
protocol _OrderingTermParts {
  var key: QueryFragment { get }
  var descending: Bool { get }
  var nulls: NullOrdering? { get }
}

/// Where NULLs sort.
public enum NullOrdering: String, Sendable {
  case first = "FIRST"
  case last = "LAST"
}

extension QueryExpression {
  /// Ascending order: `ORDER BY x ASC`.
  public func asc(nulls: NullOrdering? = nil) -> _OrderingTerm<QueryValue> {
    _OrderingTerm(key: queryFragment, descending: false, nulls: nulls)
  }

  /// Descending order: `ORDER BY x DESC`.
  public func desc(nulls: NullOrdering? = nil) -> _OrderingTerm<QueryValue> {
    _OrderingTerm(key: queryFragment, descending: true, nulls: nulls)
  }
}

private func nullsClause(_ nulls: NullOrdering?) -> QueryFragment {
  nulls.map { QueryFragment(raw: " NULLS " + $0.rawValue) } ?? QueryFragment()
}

/// A select of whole rows of `From` and the tables joined to it, as the reference names it:
/// `static let byTitle: SelectOf<Reminder> = Reminder.order(by: \.title)`.
public typealias SelectOf<From: Table, each Join: Table> = Select<
  (From, repeat each Join), From, (repeat each Join)
>
