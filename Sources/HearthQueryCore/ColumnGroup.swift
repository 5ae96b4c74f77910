import HearthNaming

// Column groups: a `@Selection` struct stored in a `@Table` flattens to its columns
// (`timestamps: Timestamps` → "createdAt", "updatedAt") and reads with dot syntax
// (`$0.timestamps.createdAt`). `@Selection` writes the conformance; `@Table` calls
// `_tableColumn` for every property, and the overload the property's type picks decides
// whether it is one column or a group.

/// A `@Selection` type, as a group of columns. `@Selection` writes the conformance.
public protocol _ColumnGroup: QueryRepresentable where QueryOutput == Self {
  /// The expression of a whole group: `Timestamps.Columns(createdAt:updatedAt:)`,
  /// `Kind.Columns.note("Hello!")`.
  associatedtype Columns: _GroupColumns where Columns.QueryValue == Self
  /// The column names, in order.
  static var _columnNames: [String] { get }
  /// The index of the column a stored property is stored in.
  static func _columnIndex(_ keyPath: PartialKeyPath<Self>) -> Int?
  /// The values of the columns, in order.
  static func _bindings(_ value: Self) -> [QueryBinding]
}

/// The columns of a group inside table `Root`: `$0.timestamps.createdAt` is a column of
/// `Root`, and the whole group is an expression of the group's type.
@dynamicMemberLookup
public struct ColumnGroup<Root: Table, Group: _ColumnGroup>: _ColumnFragments, Sendable {
  public typealias QueryValue = Group

  let keyPath: any KeyPath<Root, Group> & Sendable

  public var _columnFragments: [QueryFragment] {
    Group._columnNames.map { QueryFragment(raw: Self.qualified($0)) }
  }

  /// One column of the group.
  public subscript<Value: QueryBindable>(dynamicMember member: KeyPath<Group, Value>)
    -> TableColumn<Root, Value> where Value.QueryOutput == Value
  {
    guard let index = Group._columnIndex(member) else {
      // Only a computed property gets here (stored ones all have a column): there is no
      // column to query, and another column's SQL would be silently wrong.
      preconditionFailure(
        "\(member) is not a stored property of \(Group.self), so it has no column")
    }
    return TableColumn(Group._columnNames[index], keyPath: _GroupPath(keyPath, member))
  }

  /// The column that stores one case of an enum group: `$0.kind.image` (NULL when the row
  /// is of another case). A case's column is named after the case.
  public subscript<Value: QueryBindable>(
    dynamicMember member: KeyPath<Group.AllCasePaths, AnyCasePath<Group, Value>>
  ) -> TableColumn<Root, Value?> where Group: CasePathable, Value.QueryOutput == Value {
    let path = Group.allCasePaths[keyPath: member]
    let index = Group._columnNames.firstIndex(of: path.name) ?? 0
    return TableColumn(Group._columnNames[index], keyPath: _GroupPath(keyPath, \.[case: path]))
  }

  var columns: [any TableColumnExpression<Root>] {
    Group._columnNames.indices.map { _GroupColumn(group: keyPath, index: $0) }
  }

  static func qualified(_ name: String) -> String {
    Root.qualifier + "." + SQLNaming.quote(name)
  }
}

/// `\Root.group` followed by `\Group.field`, as one key path.
func _GroupPath<Root, Group, Value>(
  _ group: any KeyPath<Root, Group> & Sendable, _ member: KeyPath<Group, Value>
) -> any KeyPath<Root, Value> & Sendable {
  let path = (group as KeyPath<Root, Group>).appending(path: member)
  // Safe: both parts are key paths of stored properties, so the composed one captures
  // nothing and holds no mutable state. (`appending` does not carry `Sendable` in its type;
  // both types are one class reference, so the cast only adds the marker.)
  return unsafeBitCast(path, to: (any KeyPath<Root, Value> & Sendable).self)
}

/// One column of a group, for code that walks all of a table's columns.
struct _GroupColumn<Root: Table, Group: _ColumnGroup>: TableColumnExpression {
  let group: any KeyPath<Root, Group> & Sendable
  let index: Int

  var name: String { Group._columnNames[index] }
  var queryFragment: QueryFragment {
    QueryFragment(raw: ColumnGroup<Root, Group>.qualified(name))
  }
  var _keyPath: AnyKeyPath { group }
  func _binding(for row: Root) -> QueryBinding { Group._bindings(row[keyPath: group])[index] }
}

/// An expression of several columns, that an `update` can assign one by one
/// (`$0.timestamps = Timestamps.Columns(…)`, `$0.kind = .note("Hello!")`).
public protocol _ColumnFragments: QueryExpression {
  /// Each column's expression, in the group's column order.
  var _columnFragments: [QueryFragment] { get }
}

/// A group's `Columns`, which `@Selection` writes.
public protocol _GroupColumns: _ColumnFragments {
  init(_columnFragments: [QueryFragment])
}

extension _ColumnFragments {
  public var queryFragment: QueryFragment { _columnFragments.joined() }
}

// MARK: - What the macros call

/// The column expressions of one argument of a group's `Columns`: a group's own columns,
/// or the expression as one column.
public func _columnFragments(_ expression: some QueryExpression) -> [QueryFragment] {
  (expression as? any _ColumnFragments)?._columnFragments ?? [expression.queryFragment]
}

/// The bound value of one case of an enum group, for `_bindings`.
public func _caseBinding<Value: QueryBindable>(_ value: Value.QueryOutput, as type: Value.Type)
  -> QueryBinding
{
  Value(queryOutput: value).queryBinding
}

/// A row whose enum group has a NULL in every case's column.
public func _noCaseError(_ type: Any.Type) -> QueryDecodingError {
  QueryDecodingError(
    type: "\(type)", value: "NULL", reason: "every case's column is NULL, so the row has no case")
}

/// A stored property of a `@Table` that is one column.
public func _tableColumn<Root: Table, Value: QueryBindable>(
  _ name: String, _ keyPath: any KeyPath<Root, Value.QueryOutput> & Sendable, as type: Value.Type
) -> TableColumn<Root, Value> {
  TableColumn(name, keyPath: keyPath)
}

/// A stored property of a `@Table` that is a group of columns.
public func _tableColumn<Root: Table, Group: _ColumnGroup>(
  _ name: String, _ keyPath: any KeyPath<Root, Group> & Sendable, as type: Group.Type
) -> ColumnGroup<Root, Group> {
  ColumnGroup(keyPath: keyPath)
}

/// A stored property of a `@Selection` whose type is a table (`let list: RemindersList`):
/// the table's columns, in place.
@_disfavoredOverload
public func _tableColumn<Root: Table, Nested: Table>(
  _ name: String, _ keyPath: any KeyPath<Root, Nested> & Sendable, as type: Nested.Type
) -> NestedTableColumns<Root, Nested> {
  NestedTableColumns(keyPath: keyPath)
}

/// The columns of a table stored in a `@Selection` used as a table (a common table
/// expression's rows): named as the nested table names them, qualified by the selection.
@dynamicMemberLookup
public struct NestedTableColumns<Root: Table, Nested: Table>: QueryExpression, Sendable {
  public typealias QueryValue = Nested
  let keyPath: any KeyPath<Root, Nested> & Sendable

  /// One column of the nested table: `$0.list.title`.
  public subscript<Value>(
    dynamicMember member: KeyPath<Nested.TableColumns, TableColumn<Nested, Value>>
  ) -> TableColumn<Root, Value> {
    let column = Nested.columns[keyPath: member]
    return TableColumn(column.name, keyPath: _GroupPath(keyPath, column.keyPath))
  }

  var columns: [any TableColumnExpression<Root>] {
    Nested.TableColumns.allColumns.map { _NestedColumn(table: keyPath, column: $0) }
  }

  public var queryFragment: QueryFragment { columns.map(\.queryFragment).joined() }
}

/// One column of a nested table, for code that walks all of a table's columns.
struct _NestedColumn<Root: Table, Nested: Table>: TableColumnExpression {
  let table: any KeyPath<Root, Nested> & Sendable
  let column: any TableColumnExpression<Nested>

  var name: String { column.name }
  var queryFragment: QueryFragment {
    QueryFragment(raw: Root.qualifier + "." + SQLNaming.quote(column.name))
  }
  var _keyPath: AnyKeyPath { (table as AnyKeyPath).appending(path: column._keyPath) ?? table }
  func _binding(for row: Root) -> QueryBinding { column._binding(for: row[keyPath: table]) }
}

/// The columns a property of a table stands for: itself, or its group's.
public func _flatColumns<Root: Table, Value>(_ column: TableColumn<Root, Value>)
  -> [any TableColumnExpression<Root>]
{
  [column]
}

public func _flatColumns<Root: Table, Group>(_ group: ColumnGroup<Root, Group>)
  -> [any TableColumnExpression<Root>]
{
  group.columns
}

public func _flatColumns<Root: Table, Nested>(_ table: NestedTableColumns<Root, Nested>)
  -> [any TableColumnExpression<Root>]
{
  table.columns
}

/// The bound values of one property of a `@Selection`, for `_bindings`.
public func _groupBindings<Value: QueryBindable>(_ value: Value.QueryOutput, as type: Value.Type)
  -> [QueryBinding]
{
  [Value(queryOutput: value).queryBinding]
}

public func _groupBindings<Value: _ColumnGroup>(_ value: Value, as type: Value.Type)
  -> [QueryBinding]
{
  Value._bindings(value)
}

@_disfavoredOverload
public func _groupBindings<Value: Table>(_ value: Value, as type: Value.Type) -> [QueryBinding] {
  value._columnBindings
}

/// A property that is neither a column nor a group (an aggregate of a join result): no
/// stored values; such a selection is not a column group.
@_disfavoredOverload
public func _groupBindings<Value>(_ value: Value, as type: Any.Type) -> [QueryBinding] { [] }

// MARK: - Groups on the optional side of an outer join

/// A column group of a table on the optional side of an outer join (`$1.id` of
/// `leftJoin(SyncMetadata.all) { … }`): its columns, NULL where the join found no row.
public struct _OptionalColumnGroup<Group: _ColumnGroup>: _ColumnFragments, Sendable {
  public typealias QueryValue = Group?
  public let _columnFragments: [QueryFragment]
}

extension _OptionalColumns {
  /// A column group of the table, made optional.
  public subscript<Group: _ColumnGroup>(
    dynamicMember keyPath: KeyPath<Wrapped.TableColumns, ColumnGroup<Wrapped, Group>>
  ) -> _OptionalColumnGroup<Group> {
    _OptionalColumnGroup(_columnFragments: Wrapped.columns[keyPath: keyPath]._columnFragments)
  }
}

extension QueryExpression where QueryValue: _ColumnGroup {
  /// `(a, b) = (c, d)`: a group against the same group of an outer join's optional side,
  /// as row values.
  public func eq(_ other: _OptionalColumnGroup<QueryValue>) -> SQLQueryExpression<Bool> {
    binary(self, "=", other)
  }
}
