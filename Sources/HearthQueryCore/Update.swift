import HearthNaming

/// An `UPDATE` of `From`'s rows, returning `Returning` rows (`Void` without `returning`).
///
/// ```swift
/// try Reminder.where { $0.status.eq(#bind(.completing)) }
///   .update { $0.status = #bind(.completed) }
///   .execute(db)
/// ```
public struct Update<From: Table, Returning>: Statement, Sendable {
  public typealias QueryValue = Returning

  var conflictResolution: ConflictResolution?
  var assignments: [(String, QueryFragment)]
  var wheres: [QueryFragment]
  var returningColumns: [QueryFragment] = []
  let decode: @Sendable (inout QueryRowDecoder) throws -> Returning

  public func _decodeRow(_ decoder: inout QueryRowDecoder) throws -> Returning {
    try decode(&decoder)
  }

  /// The statement's SQL; an update that assigns nothing is no statement (it runs as
  /// nothing and returns no rows), as in the reference.
  public var query: QueryFragment {
    guard !assignments.isEmpty, !wheres.contains(.noRows) else { return QueryFragment() }
    var sql: QueryFragment = "UPDATE"
    if let conflictResolution { sql.append(raw: " OR " + conflictResolution.rawValue) }
    sql += " " + From.tableReference + " SET "
    sql += renderedAssignments(assignments)
    if !wheres.isEmpty { sql += " WHERE " + wheres.joinedWithAnd() }
    if !returningColumns.isEmpty { sql += " RETURNING " + returningColumns.joined() }
    return sql
  }

  /// Adds a condition on the rows to update.
  public func `where`(_ predicate: (From.TableColumns) -> some QueryExpression<Bool>) -> Self {
    var copy = self
    copy.wheres.append(predicate(From.columns).queryFragment)
    return copy
  }

  /// Rows of the updated values.
  public func returning<each C: QueryExpression>(
    _ selection: (From.TableColumns) -> (repeat each C)
  )
    -> Update<From, (repeat (each C).QueryValue.QueryOutput)>
  where repeat (each C).QueryValue: QueryRepresentable {
    let selected = returningClause(of: From.self) {
      selectedColumns(repeat each selection(From.columns))
    }
    return Update<From, (repeat (each C).QueryValue.QueryOutput)>(
      conflictResolution: conflictResolution, assignments: assignments, wheres: wheres,
      returningColumns: selected.fragments, decode: selected.decode)
  }
}

extension Update where Returning == Void {
  init(
    conflictResolution: ConflictResolution?, assignments: [(String, QueryFragment)],
    wheres: [QueryFragment]
  ) {
    self.init(
      conflictResolution: conflictResolution, assignments: assignments, wheres: wheres,
      decode: { _ in })
  }
}

extension Update where From: PrimaryKeyedTable {
  /// The row with this primary key, among the rows this updates:
  /// `Reminder.update { … }.find(1)`.
  public func find(_ id: some QueryExpression<From.TableColumns.PrimaryKey>) -> Self {
    var copy = self
    copy.wheres.append(From.keyCondition(id))
    return copy
  }

  /// The rows with these primary keys, among the rows this updates.
  public func find(_ ids: some Sequence<From.TableColumns.PrimaryKey>) -> Self {
    var copy = self
    copy.wheres.append(From.keyCondition(ids))
    return copy
  }

  /// The row whose primary key, made of a group of columns, is `id`.
  public func find(_ id: From.TableColumns.PrimaryKey) -> Self
  where From.TableColumns.PrimaryKey: _ColumnGroup {
    var copy = self
    copy.wheres.append(From.keyCondition(value: id))
    return copy
  }
}

/// The assignments of an `update { … }` closure: `$0.title = "Milk"`, `$0.count += 1`,
/// `$0.status = #bind(.completed)`, `$0.position = Item.select { … }` (a subquery). A column
/// reads as it stands before the update; assigned twice, it keeps both assignments and
/// SQLite applies the last, as the reference renders it.
@dynamicMemberLookup
public struct Updates<From: Table> {
  var assignments: [(String, QueryFragment)] = []

  init() {}

  /// A column (`$0.title = "Milk"`) or a group of columns, assigned column by column
  /// (`$0.kind = .link(url)` sets the link column and NULLs the other cases';
  /// `$0.timestamps = Timestamps.Columns(…)`). One subscript for both: a second overload
  /// keeps the type checker from opening `any QueryExpression` in `Case($0.id)`.
  public subscript<Column: _UpdatableColumns<From>>(
    dynamicMember keyPath: KeyPath<From.TableColumns, Column>
  ) -> Column._Assignment {
    get {
      let column = From.columns[keyPath: keyPath]
      return column._assignment(column._columnFragments)
    }
    set {
      let column = From.columns[keyPath: keyPath]
      assignments += column._assignments(of: newValue)
    }
  }

  /// A group set to a value: `$0.fields = Fields(count: 1, note: nil)` sets each of its
  /// columns to the value's (`nil`, each to NULL). Optional, so that `$0.fields.count` never
  /// reads through this unreadable value but through the group's columns.
  @_disfavoredOverload
  public subscript<Group: _ColumnGroup>(
    dynamicMember keyPath: KeyPath<From.TableColumns, ColumnGroup<From, Group>>
  ) -> Group? {
    @available(*, unavailable, message: "a group's value is not known before the update")
    get { fatalError("a group's value is not known before the update") }
    set { assignments += zip(Group._columnNames, valueFragments(newValue)).map { ($0, $1) } }
  }

  /// A JSON column set to a select of its value's type: `$0.tags = Tag.select {
  /// $0.title.jsonGroupArray() }` (the select gives the array, the column keeps its JSON).
  public subscript<Output: Codable>(
    dynamicMember keyPath: KeyPath<
      From.TableColumns, TableColumn<From, _CodableJSONRepresentation<Output>>
    >
  ) -> any Statement<Output> {
    @available(*, unavailable, message: "a column's value is not known before the update")
    get { fatalError("a column's value is not known before the update") }
    set { assignments.append((From.columns[keyPath: keyPath].name, newValue.queryFragment)) }
  }

  /// A column as a concrete expression, for the mutating forms: `$0.isFlagged.toggle()`,
  /// `$0.title.append("!")`, `$0.balance.negate()`.
  @_disfavoredOverload
  public subscript<Value: QueryBindable>(
    dynamicMember keyPath: KeyPath<From.TableColumns, TableColumn<From, Value>>
  ) -> SQLQueryExpression<Value> {
    get { SQLQueryExpression(From.columns[keyPath: keyPath].queryFragment) }
    set { assignments.append((From.columns[keyPath: keyPath].name, newValue.queryFragment)) }
  }
}

extension SQLQueryExpression<Bool> {
  /// `NOT (x)`: in an update, `$0.isFlagged.toggle()` sets the column to its opposite.
  public mutating func toggle() {
    self = SQLQueryExpression("NOT (" + queryFragment + ")")
  }
}

extension SQLQueryExpression<String> {
  /// `x || other`: in an update, `$0.title.append("!")` adds to the column's text.
  public mutating func append(_ other: some QueryExpression<String>) {
    self = SQLQueryExpression("(" + queryFragment + " || " + other.queryFragment + ")")
  }

  /// `x || other`, as `append(_:)`.
  public mutating func append(contentsOf other: some QueryExpression<String>) {
    append(other)
  }
}

extension SQLQueryExpression where QueryValue: SignedNumeric {
  /// `-(x)`: in an update, `$0.balance.negate()` sets the column to its negation.
  public mutating func negate() {
    self = SQLQueryExpression("-(" + queryFragment + ")")
  }
}

/// What an `update` can assign: a column, or a group of them.
public protocol _UpdatableColumns<Root> {
  associatedtype Root: Table
  /// The type `$0.name` has in an `update` closure.
  associatedtype _Assignment
  var _columnNames: [String] { get }
  /// The columns, as they stand before the update.
  var _columnFragments: [QueryFragment] { get }
  /// An assignment from the expressions of its columns.
  func _assignment(_ fragments: [QueryFragment]) -> _Assignment
  /// The `SET` pairs an assigned value gives its columns.
  func _assignments(of value: _Assignment) -> [(String, QueryFragment)]
}

extension TableColumn: _UpdatableColumns {
  public typealias _Assignment = any QueryExpression<Value>
  public var _columnNames: [String] { [name] }
  public var _columnFragments: [QueryFragment] { [queryFragment] }
  public func _assignment(_ fragments: [QueryFragment]) -> any QueryExpression<Value> {
    SQLQueryExpression<Value>(fragments[0])
  }
  public func _assignments(of value: any QueryExpression<Value>) -> [(String, QueryFragment)] {
    [(name, value.queryFragment)]
  }
}

extension ColumnGroup: _UpdatableColumns {
  public typealias _Assignment = Group.Columns
  public var _columnNames: [String] { Group._columnNames }
  public func _assignment(_ fragments: [QueryFragment]) -> Group.Columns {
    Group.Columns(_columnFragments: fragments)
  }
  /// A whole group sets every column; `$0.fields.count = 1` sets that column alone, as the
  /// reference does (the others stay out of `SET`, and out of `UPDATE OF` triggers).
  public func _assignments(of value: Group.Columns) -> [(String, QueryFragment)] {
    let columns =
      value._assignedColumns.isEmpty ? Array(_columnNames.indices) : value._assignedColumns
    return columns.map { (_columnNames[$0], value._columnFragments[$0]) }
  }
}

public func += <Value: Numeric>(
  lhs: inout any QueryExpression<Value>, rhs: some QueryExpression<Value>
) {
  lhs = compound(lhs, "+", rhs)
}

public func -= <Value: Numeric>(
  lhs: inout any QueryExpression<Value>, rhs: some QueryExpression<Value>
) {
  lhs = compound(lhs, "-", rhs)
}

public func *= <Value: Numeric>(
  lhs: inout any QueryExpression<Value>, rhs: some QueryExpression<Value>
) {
  lhs = compound(lhs, "*", rhs)
}

public func /= <Value: Numeric>(
  lhs: inout any QueryExpression<Value>, rhs: some QueryExpression<Value>
) {
  lhs = compound(lhs, "/", rhs)
}

public func %= <Value: BinaryInteger>(
  lhs: inout any QueryExpression<Value>, rhs: some QueryExpression<Value>
) {
  lhs = compound(lhs, "%", rhs)
}

public func &= <Value: BinaryInteger>(
  lhs: inout any QueryExpression<Value>, rhs: some QueryExpression<Value>
) {
  lhs = compound(lhs, "&", rhs)
}

public func |= <Value: BinaryInteger>(
  lhs: inout any QueryExpression<Value>, rhs: some QueryExpression<Value>
) {
  lhs = compound(lhs, "|", rhs)
}

public func <<= <Value: BinaryInteger>(
  lhs: inout any QueryExpression<Value>, rhs: some QueryExpression<Value>
) {
  lhs = compound(lhs, "<<", rhs)
}

public func >>= <Value: BinaryInteger>(
  lhs: inout any QueryExpression<Value>, rhs: some QueryExpression<Value>
) {
  lhs = compound(lhs, ">>", rhs)
}

public func += (lhs: inout any QueryExpression<String>, rhs: some QueryExpression<String>) {
  lhs = compound(lhs, "||", rhs)
}

/// `(lhs op rhs)`: what a compound assignment in an `update` sets the column to.
private func compound<Value>(
  _ lhs: any QueryExpression<Value>, _ op: String, _ rhs: some QueryExpression<Value>
) -> any QueryExpression<Value> {
  SQLQueryExpression<Value>(
    "(" + lhs.queryFragment + QueryFragment(raw: " \(op) ") + rhs.queryFragment + ")")
}

/// Toggles a boolean column: `$0.isFlagged.toggle()`.
extension Updates {
  public mutating func toggle(_ keyPath: KeyPath<From.TableColumns, TableColumn<From, Bool>>) {
    let column = From.columns[keyPath: keyPath]
    assignments.append((column.name, "NOT (" + column.queryFragment + ")"))
  }
}

/// An update of `From` with no `returning`, as the reference names it.
public typealias UpdateOf<From: Table> = Update<From, Void>
