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
public struct Where<From: Table>: Statement, Sendable {
  public typealias QueryValue = From

  @usableFromInline var predicates: [QueryFragment]

  @inlinable public init() { predicates = [] }

  init(predicates: [QueryFragment]) { self.predicates = predicates }

  /// The rows this matches, as a `Select` of whole rows.
  @inlinable
  public var all: Select<From, From, ()> {
    var clauses = SelectClauses()
    clauses.setWheres(predicates)
    return Select(clauses: clauses) { try From(decoder: &$0) }
  }

  public var query: QueryFragment { all.query }

  public func _decodeRow(_ decoder: inout QueryDecoder) throws -> From {
    try From(decoder: &decoder)
  }

  /// Adds a condition (conditions combine with `AND`).
  public func `where`(_ predicate: (From.TableColumns) -> some QueryExpression<Bool>) -> Self {
    Where(predicates: predicates + [predicate(From.columns).queryFragment])
  }

  /// Adds a boolean column or computed expression as a condition.
  public func `where`(_ keyPath: KeyPath<From.TableColumns, some QueryExpression<Bool>>) -> Self {
    Where(predicates: predicates + [From.columns[keyPath: keyPath].queryFragment])
  }

  /// Selects expressions from the matching rows.
  public func select<each C: QueryExpression>(
    _ selection: (From.TableColumns) -> (repeat each C)
  ) -> Select<(repeat (each C).QueryValue.QueryOutput), From, ()>
  where repeat (each C).QueryValue: QueryRepresentable {
    all.select(selection)
  }

  public func order<each C: QueryExpression>(by keyPaths: repeat KeyPath<From.TableColumns, each C>)
    -> Select<From, From, ()>
  {
    all.order(by: repeat each keyPaths)
  }

  public func order(@OrderingBuilder _ ordering: (From.TableColumns) -> [QueryFragment])
    -> Select<From, From, ()>
  {
    all.order(ordering)
  }

  public func limit(_ count: Int, offset: Int? = nil) -> Select<From, From, ()> {
    all.limit(count, offset: offset)
  }

  public func distinct(_ isDistinct: Bool = true) -> Select<From, From, ()> {
    all.distinct(isDistinct)
  }

  public func group<each C: QueryExpression>(by keyPaths: repeat KeyPath<From.TableColumns, each C>)
    -> Select<From, From, ()>
  {
    all.group(by: repeat each keyPaths)
  }

  /// The number of matching rows.
  public func count() -> Select<Int, From, ()> { all.count() }

  /// Runs `count()` and returns the number.
  public func fetchCount(_ db: Database) throws -> Int { try all.fetchCount(db) }

  /// Deletes the matching rows.
  public func delete() -> Delete<From, Void> { Delete(wheres: predicates) }

  /// Updates the matching rows: `.update { $0.isCompleted = true; $0.count += 1 }`.
  public func update(
    or conflictResolution: ConflictResolution? = nil, set updates: (inout Updates<From>) -> Void
  ) -> Update<From, Void> {
    var assignments = Updates<From>()
    updates(&assignments)
    return Update(
      conflictResolution: conflictResolution, assignments: assignments.assignments,
      wheres: predicates)
  }
}

extension Table {
  /// Every row: `SELECT … FROM "table"`, a `Where` without conditions (so that a join takes
  /// `Team.all` and `Team.where { … }` as the same type).
  @inlinable
  public static var all: Where<Self> { Where() }

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
    return Where<Self>(predicates: [predicate])
  }

  /// Selects expressions from every row.
  public static func select<each C: QueryExpression>(
    _ selection: (TableColumns) -> (repeat each C)
  ) -> Select<(repeat (each C).QueryValue.QueryOutput), Self, ()>
  where repeat (each C).QueryValue: QueryRepresentable {
    all.select(selection)
  }

  public static func order<each C: QueryExpression>(
    by keyPaths: repeat KeyPath<TableColumns, each C>
  )
    -> Select<Self, Self, ()>
  {
    all.order(by: repeat each keyPaths)
  }

  public static func order(@OrderingBuilder _ ordering: (TableColumns) -> [QueryFragment])
    -> Select<Self, Self, ()>
  {
    all.order(ordering)
  }

  public static func limit(_ count: Int, offset: Int? = nil) -> Select<Self, Self, ()> {
    all.limit(count, offset: offset)
  }

  public static func distinct(_ isDistinct: Bool = true) -> Select<Self, Self, ()> {
    all.distinct(isDistinct)
  }

  public static func group<each C: QueryExpression>(
    by keyPaths: repeat KeyPath<TableColumns, each C>
  )
    -> Select<Self, Self, ()>
  {
    all.group(by: repeat each keyPaths)
  }

  /// `SELECT count(*) FROM "table"`.
  public static func count() -> Select<Int, Self, ()> { all.count() }

  /// Every row, decoded.
  public static func fetchAll(_ db: Database) throws -> [Self] { try all.fetchAll(db) }

  /// The first row, or nil.
  public static func fetchOne(_ db: Database) throws -> Self? { try all.fetchOne(db) }

  /// The number of rows.
  public static func fetchCount(_ db: Database) throws -> Int { try all.fetchCount(db) }

  /// Deletes every row.
  public static func delete() -> Delete<Self, Void> { Delete(wheres: []) }

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
    Where<Self>(predicates: [
      "(" + columns.primaryKey.queryFragment + " = " + id.queryFragment + ")"
    ])
  }

  /// The rows with these primary keys.
  public static func find(_ ids: some Sequence<TableColumns.PrimaryKey>) -> Where<Self> {
    Where<Self>(predicates: [columns.primaryKey.in(ids).queryFragment])
  }

  /// Updates every column of the row with `row`'s primary key to `row`'s values.
  public static func update(_ row: Self) -> Update<Self, Void> {
    let key = columns.primaryKey
    let assignments = TableColumns.allColumns.filter { $0.name != key.name }.map {
      ($0.name, QueryFragment(binding: $0._binding(for: row)))
    }
    return Update(
      conflictResolution: nil, assignments: assignments,
      wheres: [
        "(" + key.queryFragment + " = " + QueryFragment(binding: key._binding(for: row)) + ")"
      ])
  }

  /// Deletes the row with `row`'s primary key.
  public static func delete(_ row: Self) -> Delete<Self, Void> {
    let key = columns.primaryKey
    return Delete(wheres: [
      "(" + key.queryFragment + " = " + QueryFragment(binding: key._binding(for: row)) + ")"
    ])
  }
}
