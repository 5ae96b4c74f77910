import HearthNaming
import HearthSQLite

/// Conditions on the rows of `From`, not yet a statement of a kind: select from it, count
/// it, update or delete what it matches. As a statement it selects whole rows.
///
/// ```swift
/// extension Reminder {
///   static let incomplete = Self.where { !$0.isCompleted }
/// }
/// try Reminder.incomplete.order(by: \.title).fetchAll(db)
/// try Reminder.incomplete.delete().execute(db)
/// ```
// `where` takes an expression, a nullable one, or a builder, as the reference's.
// swift-format-ignore: AmbiguousTrailingClosureOverload
@dynamicMemberLookup
public struct Where<From: Table>: Statement, Sendable {
  public typealias QueryValue = From

  /// This clause's own conditions.
  @usableFromInline var predicates: [QueryFragment]
  /// Whether the table's default scope (the conditions of its `static let all`) is left out.
  @usableFromInline var isUnscoped: Bool

  @inlinable public init() { self.init(predicates: [], isUnscoped: false) }

  @usableFromInline init(predicates: [QueryFragment], isUnscoped: Bool = false) {
    self.predicates = predicates
    self.isUnscoped = isUnscoped
  }

  /// The conditions that apply: the table's default scope, then this clause's own (a
  /// condition of the scope that this clause repeats, as `Note.all.where { … }` does, counts
  /// once).
  @usableFromInline var scopedPredicates: [QueryFragment] {
    if isUnscoped { return predicates }
    let scope = From.all._scopePredicates.filter { !predicates.contains($0) }
    return scope + predicates
  }

  /// The rows this matches, as a `Select` of whole rows (in the default scope's order).
  @inlinable
  public func asSelect() -> Select<From, From, ()> {
    var clauses = SelectClauses()
    clauses.setWheres(scopedPredicates)
    if !isUnscoped { clauses.setOrders(From.all._scopeOrders) }
    return Select(clauses: clauses) { try From(decoder: &$0) }
  }

  /// These conditions within the table's default scope, as the reference reads `all` after
  /// a query (the table's `all` added to it): `Row.unscoped.all` is `Row.all`, and
  /// `Row.all.all` is `Row.all` (a condition the scope repeats counts once).
  @inlinable
  public var all: Select<From, From, ()> {
    Where(predicates: predicates, isUnscoped: false).asSelect()
  }

  public var query: QueryFragment { asSelect().query }

  public func _decodeRow(_ decoder: inout QueryRowDecoder) throws -> From {
    try From(decoder: &decoder)
  }

  func adding(_ conditions: [QueryFragment]) -> Self {
    Where(predicates: predicates + conditions, isUnscoped: isUnscoped)
  }

  /// Adds a condition (conditions combine with `AND`).
  public func `where`(_ predicate: (From.TableColumns) -> some QueryExpression<Bool>) -> Self {
    adding([predicate(From.columns).queryFragment])
  }

  /// Adds a condition that may be NULL (a NULL condition matches no row).
  @_disfavoredOverload
  public func `where`(_ predicate: (From.TableColumns) -> some QueryExpression<Bool?>) -> Self {
    adding([predicate(From.columns).queryFragment])
  }

  /// Adds the conditions a builder closure gives: none, one, or the ones of an `if`.
  ///
  /// ```swift
  /// Reminder.where { if showFlaggedOnly { $0.isFlagged } }
  /// ```
  @_disfavoredOverload
  public func `where`(@PredicateBuilder _ predicates: (From.TableColumns) -> [QueryFragment])
    -> Self
  {
    adding(predicates(From.columns))
  }

  /// Adds a boolean column or computed expression as a condition.
  public func `where`(_ keyPath: KeyPath<From.TableColumns, some QueryExpression<Bool>>) -> Self {
    adding([From.columns[keyPath: keyPath].queryFragment])
  }

  /// `.where { … }` where a `Where` of the table is expected: `.and(.where(\.isFlagged))`.
  public static func `where`(_ predicate: (From.TableColumns) -> some QueryExpression<Bool>)
    -> Self
  {
    Where().where(predicate)
  }

  /// `.where(\.isFlagged)` where a `Where` of the table is expected.
  public static func `where`(_ keyPath: KeyPath<From.TableColumns, some QueryExpression<Bool>>)
    -> Self
  {
    Where().where(keyPath)
  }

  /// `a && b`: as `a.and(b)`.
  public static func && (lhs: Self, rhs: Self) -> Self { lhs.and(rhs) }
  /// `a || b`: as `a.or(b)`.
  public static func || (lhs: Self, rhs: Self) -> Self { lhs.or(rhs) }
  /// `!a`: as `a.not()`.
  public static prefix func ! (operand: Self) -> Self { operand.not() }

  /// Both clauses' conditions: `(a) AND (b)`. A clause with no condition (`all`) adds
  /// nothing: the other clause is the result.
  public func and(_ other: Self) -> Self { combined(with: other, "AND") }

  /// Either clause's conditions: `(a) OR (b)`; the default scope still applies to both. As
  /// in the reference, a clause with no condition (`all`) adds nothing: the other clause is
  /// the result, so `Reminder.all.or(Reminder.where(\.isFlagged))` matches the flagged rows.
  public func or(_ other: Self) -> Self { combined(with: other, "OR") }

  private func combined(with other: Self, _ op: String) -> Self {
    guard !predicates.isEmpty else {
      return Where(predicates: other.predicates, isUnscoped: isUnscoped)
    }
    guard !other.predicates.isEmpty else { return self }
    let both =
      "(" + predicates.joinedWithAnd() + ") " + QueryFragment(raw: op) + " ("
      + other.predicates.joinedWithAnd() + ")"
    return Where(predicates: [both], isUnscoped: isUnscoped)
  }

  /// The rows this does not match: `NOT (a AND b)`.
  public func not() -> Self {
    let condition = predicates.isEmpty ? "1" : predicates.joinedWithAnd()
    return Where(predicates: ["NOT (" + condition + ")"], isUnscoped: isUnscoped)
  }

  /// `LIMIT … OFFSET n` with no limit.
  public func offset(_ offset: Int?) -> Select<From, From, ()> { asSelect().offset(offset) }

  /// Selects expressions from the matching rows.
  @_disfavoredOverload
  public func select<each C: QueryExpression>(
    _ selection: (From.TableColumns) -> (repeat each C)
  ) -> Select<(repeat (each C).QueryValue.QueryOutput), From, ()>
  where repeat (each C).QueryValue: QueryRepresentable {
    asSelect().select(selection)
  }

  /// Selects one expression from the matching rows.
  public func select<C: QueryExpression>(_ selection: (From.TableColumns) -> C)
    -> Select<C.QueryValue.QueryOutput, From, ()>
  where C.QueryValue: QueryRepresentable {
    asSelect().select(selection)
  }

  /// Selects a table's `Columns` as rows of that table (see `Select.select`).
  public func select<C: _GroupColumns>(_ selection: (From.TableColumns) -> C)
    -> Select<C.QueryValue, From, ()>
  where C.QueryValue: Table {
    asSelect().select(selection)
  }

  public func order<each C: QueryExpression>(by keyPaths: repeat KeyPath<From.TableColumns, each C>)
    -> Select<From, From, ()>
  {
    asSelect().order(by: repeat each keyPaths)
  }

  public func order(@OrderingBuilder _ ordering: (From.TableColumns) -> [QueryFragment])
    -> Select<From, From, ()>
  {
    asSelect().order(ordering)
  }

  /// The same, spelled with a label: `order(by: { ($0.listID, $0.title) })`.
  @_disfavoredOverload
  public func order(@OrderingBuilder by ordering: (From.TableColumns) -> [QueryFragment])
    -> Select<From, From, ()>
  {
    asSelect().order(ordering)
  }

  public func limit(_ count: Int?, offset: Int? = nil) -> Select<From, From, ()> {
    asSelect().limit(count, offset: offset)
  }

  public func distinct(_ isDistinct: Bool = true) -> Select<From, From, ()> {
    asSelect().distinct(isDistinct)
  }

  public func group<each C: QueryExpression>(by keyPaths: repeat KeyPath<From.TableColumns, each C>)
    -> Select<From, From, ()>
  {
    asSelect().group(by: repeat each keyPaths)
  }

  /// The number of matching rows.
  public func count() -> Select<Int, From, ()> { asSelect().count() }

  /// `HAVING` a boolean column or computed expression, over the rows this matches.
  public func having(_ keyPath: KeyPath<From.TableColumns, some QueryExpression<Bool>>)
    -> Select<From, From, ()>
  {
    asSelect().having(keyPath)
  }

  /// `HAVING` a condition on groups, over the rows this matches.
  public func having(_ predicate: (From.TableColumns) -> some QueryExpression<Bool>)
    -> Select<From, From, ()>
  {
    asSelect().having(predicate)
  }

  /// `SELECT count(*) FILTER (WHERE condition)` of the rows this matches.
  public func count(filter condition: (From.TableColumns) -> some QueryExpression<Bool>)
    -> Select<Int, From, ()>
  {
    asSelect().count(filter: condition)
  }

  /// Runs `count()` and returns the number.
  public func fetchCount(_ db: Database) throws -> Int { try asSelect().fetchCount(db) }

  /// Deletes the matching rows.
  public func delete() -> Delete<From, Void> { Delete(wheres: scopedPredicates) }

  /// Updates the matching rows: `.update { $0.isCompleted = true; $0.count += 1 }`.
  public func update(
    or conflictResolution: ConflictResolution? = nil, set updates: (inout Updates<From>) -> Void
  ) -> Update<From, Void> {
    var assignments = Updates<From>()
    updates(&assignments)
    return Update(
      conflictResolution: conflictResolution, assignments: assignments.assignments,
      wheres: scopedPredicates)
  }
}

/// What a table's `all` can be: a `Where` (conditions) or a `Select` of whole rows
/// (conditions and an order), whose conditions and order become the table's default scope.
public protocol _DefaultScope<_ScopedTable>: Sendable {
  associatedtype _ScopedTable: Table
  /// The conditions every query of the table gets (unless it starts from `unscoped`).
  var _scopePredicates: [QueryFragment] { get }
  /// The order every select of the table starts with.
  var _scopeOrders: [QueryFragment] { get }
}

extension Where: _DefaultScope {
  public typealias _ScopedTable = From
  public var _scopePredicates: [QueryFragment] { predicates }
  public var _scopeOrders: [QueryFragment] { [] }
}

extension Select: _DefaultScope where Columns == From, Joins == () {
  public typealias _ScopedTable = From
  public var _scopePredicates: [QueryFragment] { clauses.wheres }
  public var _scopeOrders: [QueryFragment] { clauses.orders }
}

// swift-format-ignore: AmbiguousTrailingClosureOverload
extension Table where DefaultScope == Where<Self> {
  /// Every row: `SELECT … FROM "table"`, a `Where` without conditions (so that a join takes
  /// `Team.all` and `Team.where { … }` as the same type). A table that declares its own
  /// `static let all = Self.where { … }` gives itself a default scope: its conditions apply
  /// to every query of the table (selects, `find`, joins, counts, updates, deletes) that does
  /// not start from `unscoped`.
  @inlinable
  public static var all: Where<Self> { Where(predicates: [], isUnscoped: true) }
}

// swift-format-ignore: AmbiguousTrailingClosureOverload
extension Table {

  /// Every row, without the table's default scope.
  ///
  /// ```swift
  /// Note.unscoped.select(\.body)   // deleted notes too
  /// ```
  public static var unscoped: Where<Self> { Where(predicates: [], isUnscoped: true) }

  /// No rows: `WHERE 0`, for a query that must select, update or delete nothing
  /// (`searchText.isEmpty ? Reminder.none : Reminder.where { … }`).
  @_disfavoredOverload
  public static var none: Where<Self> { Where(predicates: [.noRows], isUnscoped: true) }

  /// Rows matching a condition that may be NULL.
  @_disfavoredOverload
  public static func `where`(_ predicate: (TableColumns) -> some QueryExpression<Bool?>)
    -> Where<Self>
  {
    Where<Self>().where(predicate)
  }

  /// Rows matching the conditions a builder closure gives (none, one, an `if`).
  @_disfavoredOverload
  public static func `where`(@PredicateBuilder _ predicates: (TableColumns) -> [QueryFragment])
    -> Where<Self>
  {
    Where<Self>().where(predicates)
  }

  /// `LIMIT -1 OFFSET n`: every row after the first `n`.
  public static func offset(_ offset: Int?) -> Select<Self, Self, ()> {
    Where<Self>().offset(offset)
  }

  /// Rows matching a condition.
  public static func `where`(_ predicate: (TableColumns) -> some QueryExpression<Bool>)
    -> Where<Self>
  {
    Where<Self>().where(predicate)
  }

  /// Rows whose boolean column or computed expression is true: `Reminder.where(\.isFlagged)`.
  public static func `where`(_ keyPath: KeyPath<TableColumns, some QueryExpression<Bool>>)
    -> Where<Self>
  {
    Where<Self>().where(keyPath)
  }

  /// Rows whose stored `Bool` property is true: `Item.where(\Item.isInStock)`.
  ///
  /// A computed property has no column: the query then fails when it runs, with SQLite's
  /// "no such column: no stored column for \Item.isCompleted". (For computed conditions,
  /// extend `TableColumns` and write `Item.where(\.isCompleted)`; that form wins whenever
  /// both apply.)
  @_disfavoredOverload
  public static func `where`(_ keyPath: KeyPath<Self, Bool>) -> Where<Self> {
    let column = TableColumns.allColumns.first { $0._keyPath == keyPath }
    let predicate =
      column?.queryFragment
      ?? QueryFragment(raw: SQLNaming.quote("no stored column for \(keyPath)"))
    return Where<Self>().adding([predicate])
  }

  /// Selects expressions from every row.
  @_disfavoredOverload
  public static func select<each C: QueryExpression>(
    _ selection: (TableColumns) -> (repeat each C)
  ) -> Select<(repeat (each C).QueryValue.QueryOutput), Self, ()>
  where repeat (each C).QueryValue: QueryRepresentable {
    Where<Self>().select(selection)
  }

  /// Selects one expression from every row. (The tuple form covers this too, but a single
  /// value matched to a pack leaves the type checker unable to follow a subquery inside it.)
  public static func select<C: QueryExpression>(_ selection: (TableColumns) -> C)
    -> Select<C.QueryValue.QueryOutput, Self, ()>
  where C.QueryValue: QueryRepresentable {
    Where<Self>().select(selection)
  }

  /// Selects a table's `Columns` as rows of that table (see `Select.select`).
  public static func select<C: _GroupColumns>(_ selection: (TableColumns) -> C)
    -> Select<C.QueryValue, Self, ()>
  where C.QueryValue: Table {
    Where<Self>().select(selection)
  }

  public static func order<each C: QueryExpression>(
    by keyPaths: repeat KeyPath<TableColumns, each C>
  )
    -> Select<Self, Self, ()>
  {
    Where<Self>().order(by: repeat each keyPaths)
  }

  public static func order(@OrderingBuilder _ ordering: (TableColumns) -> [QueryFragment])
    -> Select<Self, Self, ()>
  {
    Where<Self>().order(ordering)
  }

  /// The same, spelled with a label: `order(by: { ($0.listID, $0.title) })`.
  @_disfavoredOverload
  public static func order(@OrderingBuilder by ordering: (TableColumns) -> [QueryFragment])
    -> Select<Self, Self, ()>
  {
    Where<Self>().order(ordering)
  }

  public static func limit(_ count: Int?, offset: Int? = nil) -> Select<Self, Self, ()> {
    Where<Self>().limit(count, offset: offset)
  }

  public static func distinct(_ isDistinct: Bool = true) -> Select<Self, Self, ()> {
    Where<Self>().distinct(isDistinct)
  }

  public static func group<each C: QueryExpression>(
    by keyPaths: repeat KeyPath<TableColumns, each C>
  )
    -> Select<Self, Self, ()>
  {
    Where<Self>().group(by: repeat each keyPaths)
  }

  /// `GROUP BY` an expression built in a closure: `Reminder.group { $0.dueDate.year }`.
  public static func group<C: QueryExpression>(by grouping: (TableColumns) -> C)
    -> Select<Self, Self, ()>
  {
    Where<Self>().asSelect().group(by: grouping)
  }

  /// `GROUP BY` expressions built in a closure.
  @_disfavoredOverload
  public static func group<each C: QueryExpression>(by grouping: (TableColumns) -> (repeat each C))
    -> Select<Self, Self, ()>
  {
    Where<Self>().asSelect().group(by: grouping)
  }

  /// `SELECT count(*) FROM "table"`.
  public static func count() -> Select<Int, Self, ()> { Where<Self>().count() }

  /// `SELECT count(*) FILTER (WHERE condition) FROM "table"`: `Reminder.count { !$0.isDone }`.
  public static func count(filter condition: (TableColumns) -> some QueryExpression<Bool>)
    -> Select<Int, Self, ()>
  {
    Where<Self>().asSelect().count(filter: condition)
  }

  /// Every row, decoded.
  public static func fetchAll(_ db: Database) throws -> [Self] { try Where<Self>().fetchAll(db) }

  /// The first row, or nil.
  public static func fetchOne(_ db: Database) throws -> Self? { try Where<Self>().fetchOne(db) }

  /// The number of rows.
  public static func fetchCount(_ db: Database) throws -> Int { try Where<Self>().fetchCount(db) }

  /// Deletes every row of the table's default scope (every row, for a table without one;
  /// `unscoped.delete()` for every row whatever the scope).
  public static func delete() -> Delete<Self, Void> { Where<Self>().delete() }

  /// Updates every row.
  public static func update(
    or conflictResolution: ConflictResolution? = nil, set updates: (inout Updates<Self>) -> Void
  ) -> Update<Self, Void> {
    Where<Self>().update(or: conflictResolution, set: updates)
  }
}

extension PrimaryKeyedTable {
  /// The row with this primary key.
  public static func find(_ id: some QueryExpression<TableColumns.PrimaryKey>) -> Where<Self> {
    Where<Self>().find(id)
  }

  /// The rows with these primary keys.
  public static func find(_ ids: some Sequence<TableColumns.PrimaryKey>) -> Where<Self> {
    Where<Self>().find(ids)
  }

  /// The row whose primary key, made of a group of columns, is `id`:
  /// `Metadata.find(MetadataID(recordID: id, recordType: "reminders"))`.
  public static func find(_ id: TableColumns.PrimaryKey) -> Where<Self>
  where TableColumns.PrimaryKey: _ColumnGroup {
    Where<Self>().find(id)
  }

  /// Updates every column of the row with `row`'s primary key to `row`'s values.
  public static func update(_ row: Self) -> Update<Self, Void> {
    let key = columns.primaryKey._keyColumnNames
    let assignments = TableColumns.writableColumns.filter { !key.contains($0.name) }.map {
      ($0.name, QueryFragment(binding: $0._binding(for: row)))
    }
    return Update(
      conflictResolution: nil, assignments: assignments, wheres: _find(row: row).scopedPredicates)
  }

  /// The row with `row`'s primary key, in the table's default scope.
  public static func _find(row: Self) -> Where<Self> {
    let key = columns.primaryKey
    return Where<Self>().adding([
      "(" + key._rowValue + " = " + key._rowValue(of: key._keyBindings(for: row)) + ")"
    ])
  }

  /// Deletes the row with `row`'s primary key.
  public static func delete(_ row: Self) -> Delete<Self, Void> {
    _find(row: row).delete()
  }
}

extension Where where From: PrimaryKeyedTable {
  /// The row with this primary key, among the rows this matches.
  public func find(_ id: some QueryExpression<From.TableColumns.PrimaryKey>) -> Self {
    adding([From.keyCondition(id)])
  }

  /// The rows with these primary keys, among the rows this matches.
  public func find(_ ids: some Sequence<From.TableColumns.PrimaryKey>) -> Self {
    adding([From.keyCondition(ids)])
  }

  /// The row whose primary key, made of a group of columns, is `id`.
  public func find(_ id: From.TableColumns.PrimaryKey) -> Self
  where From.TableColumns.PrimaryKey: _ColumnGroup {
    adding([From.keyCondition(value: id)])
  }
}

/// Builds the conditions of a `where` or `having` closure: an expression, nothing, or the
/// conditions of an `if`/`else`.
@resultBuilder
public enum PredicateBuilder: _FragmentListBuilder {
  public static func buildExpression(_ condition: some QueryExpression<Bool>) -> [QueryFragment] {
    [condition.queryFragment]
  }

  public static func buildExpression(_ condition: some QueryExpression<Bool?>) -> [QueryFragment] {
    [condition.queryFragment]
  }

  /// `nil`: no condition (`where { _ in nil }` is every row).
  public static func buildExpression(_ nothing: Never?) -> [QueryFragment] { [] }
}

/// The default scope of a table's `Draft`: the table's own conditions and order, so that
/// `Reminder.Draft.where { … }` sees the rows `Reminder.where { … }` sees.
public func _draftScope<Row: Table, Draft: Table>(of row: Row.Type, for draft: Draft.Type)
  -> Select<Draft, Draft, ()>
{
  let scope = Row.all
  var clauses = SelectClauses()
  clauses.setWheres(scope._scopePredicates)
  clauses.setOrders(scope._scopeOrders)
  return Select(clauses: clauses) { decoder in try Draft(decoder: &decoder) }
}
