import HearthNaming

// Column groups: a `@Selection` struct stored in a `@Table` flattens to its columns
// (`timestamps: Timestamps` → "createdAt", "updatedAt") and reads with dot syntax
// (`$0.timestamps.createdAt`). `@Selection` writes the conformance; `@Table` calls
// `_tableColumn` for every property, and the overload the property's type picks decides
// whether it is one column or a group.

/// A `@Selection` type, as a group of columns. `@Selection` writes the conformance.
public protocol _ColumnGroup: QueryRepresentable, _JSONKeyed where QueryOutput == Self {
  /// The expression of a whole group: `Timestamps.Columns(createdAt:updatedAt:)`,
  /// `Kind.Columns.note("Hello!")`.
  associatedtype Columns: _GroupColumns where Columns.QueryValue == Self
  /// The column names, in order.
  static var _columnNames: [String] { get }
  /// The index of the column a stored property is stored in.
  static func _columnIndex(_ keyPath: PartialKeyPath<Self>) -> Int?
  /// The values of the columns, in order.
  static func _bindings(_ value: Self) -> [QueryBinding]
  /// The columns the database computes (`@Column(generated:)` fields): read, never written.
  static var _generatedColumns: [String] { get }
}

extension _ColumnGroup {
  public static var _generatedColumns: [String] { [] }
}

/// A type whose `Codable` keys the macros wrote (the package trait `ColumnCoding`): JSON
/// paths into it name those keys.
public protocol _JSONKeyed {
  /// The JSON key of a stored property, or of an enum case's property (`\.note`).
  static func _jsonKey(_ keyPath: AnyKeyPath) -> String?
}

extension _JSONKeyed {
  /// Without the macros' keys, a stored property's JSON key is its name.
  public static func _jsonKey(_ keyPath: AnyKeyPath) -> String? { nil }
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

  /// A group inside the group: `$0.frame.size`, and `$0.frame.size.width` inside it.
  public subscript<Value: _ColumnGroup>(dynamicMember member: KeyPath<Group, Value>)
    -> ColumnGroup<Root, Value>
  {
    ColumnGroup<Root, Value>(keyPath: _GroupPath(keyPath, member))
  }

  /// The column that stores one case of an enum group: `$0.kind.note` (NULL when the row
  /// is of another case).
  public subscript<Value: QueryBindable>(
    dynamicMember member: KeyPath<Group.AllCasePaths, AnyCasePath<Group, Value>>
  ) -> TableColumn<Root, Value?> where Group: _CaseGroup, Value.QueryOutput == Value {
    let path = Group.allCasePaths[keyPath: member]
    let name = Group._columnNames[Group._columnRange(ofCase: path.name).lowerBound]
    return TableColumn(name, keyPath: _GroupPath(keyPath, \.[case: path]))
  }

  /// The columns that store one case of an enum group whose value is a group of its own:
  /// `$0.kind.image` (`"imageCaption"`, `"imageURL"`), all NULL when the row is of another
  /// case; `$0.kind.image.caption` is one of them.
  public subscript<Value: _ColumnGroup>(
    dynamicMember member: KeyPath<Group.AllCasePaths, AnyCasePath<Group, Value>>
  ) -> _CaseColumnGroup<Root, Value> where Group: _CaseGroup {
    let path = Group.allCasePaths[keyPath: member]
    return _CaseColumnGroup(keyPath: _GroupPath(keyPath, \.[case: path]))
  }

  /// Whether the row is of one case: `$0.kind.is(\.note)`, true when the case's columns are
  /// not all NULL.
  public func `is`<Value>(_ member: KeyPath<Group.AllCasePaths, AnyCasePath<Group, Value>>)
    -> SQLQueryExpression<Bool> where Group: _CaseGroup
  {
    caseIsPresent(Array(_columnFragments[Group._columnRange(ofCase: member)]))
  }

  var columns: [any TableColumnExpression<Root>] {
    Group._columnNames.indices.map { _GroupColumn(group: keyPath, index: $0) }
  }

  static func qualified(_ name: String) -> String {
    Root.qualifiedColumn(name)
  }
}

extension ColumnGroup: _PrimaryKeyColumns {
  public var _keyColumnNames: [String] { Group._columnNames }
  public func _key(for row: Root) -> Group { row[keyPath: keyPath] }
  public func _keyBindings(of key: Group) -> [QueryBinding] { Group._bindings(key) }
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
  var _isGenerated: Bool { Group._generatedColumns.contains(name) }
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
  /// The columns an `update` assigned one by one (`$0.fields.count = 1`), in order; empty
  /// for a group assigned whole.
  var _assignedColumns: [Int] { get set }
}

extension _ColumnFragments {
  public var queryFragment: QueryFragment { _columnFragments.joined() }
}

// MARK: - What the macros call

/// The column expressions of one argument of a group's `Columns`: a group's own columns,
/// or the expression as one column.
public func _columnFragments(_ expression: some QueryExpression) -> [QueryFragment] {
  if let group = expression as? any _ColumnFragments { return group._columnFragments }
  if let table = expression as? any TableDefinition { return columnFragments(of: table) }
  return [expression.queryFragment]
}

/// A table's columns, one expression each (`$0` as a `@Selection` field's value).
private func columnFragments<Columns: TableDefinition>(of table: Columns) -> [QueryFragment] {
  Columns.allColumns.map(\.queryFragment)
}

// MARK: - Enum groups

/// An enum `@Selection`: a group stored one case after another, each case in its own
/// columns (one, named after the case, or the columns of the group the case holds). A row's
/// case is the one whose columns are not all NULL. `@Selection` writes the conformance.
public protocol _CaseGroup: _ColumnGroup, CasePathable {
  /// Each case's name and the columns it is stored in, in order.
  static var _caseColumns: [(name: String, columns: [String])] { get }
}

extension _CaseGroup {
  public static var _columnNames: [String] { _caseColumns.flatMap(\.columns) }

  /// The position of the case named `name` among the cases.
  static func _caseIndex(_ name: String) -> Int {
    guard let index = _caseColumns.firstIndex(where: { $0.name == name }) else {
      preconditionFailure("\(Self.self) has no case named \(name)")
    }
    return index
  }

  /// The positions, among the group's columns, of the columns of the case named `name`.
  static func _columnRange(ofCase name: String) -> Range<Int> {
    let index = _caseIndex(name)
    let start = _caseColumns[..<index].reduce(0) { $0 + $1.columns.count }
    return start..<start + _caseColumns[index].columns.count
  }

  /// The positions of the columns of the case `member` names.
  static func _columnRange<Value>(ofCase member: KeyPath<AllCasePaths, AnyCasePath<Self, Value>>)
    -> Range<Int>
  {
    _columnRange(ofCase: allCasePaths[keyPath: member].name)
  }

  /// A value for every column: `values` in the columns of case `index`, `null` in all the
  /// others'.
  static func _padded<T>(ofCase index: Int, _ values: [T], null: T) -> [T] {
    _caseColumns.enumerated().flatMap { offset, entry in
      offset == index ? values : entry.columns.map { _ in null }
    }
  }
}

/// The columns one property of a `@Selection` struct, or one case of an enum group, is
/// stored in: its own, named `name`…
public func _columnNames<Value: QueryBindable>(_ name: String, as type: Value.Type) -> [String] {
  [name]
}

/// …a group's, for a group inside the group…
public func _columnNames<Value: _ColumnGroup>(_ name: String, as type: Value.Type) -> [String] {
  Value._columnNames
}

/// …a table's, for a row of a table inside the group…
@_disfavoredOverload
public func _columnNames<Value: Table>(_ name: String, as type: Value.Type) -> [String] {
  Value.TableColumns.allColumns.map(\.name)
}

/// …or its own, for a value of another kind (an aggregate of a join's rows).
@_disfavoredOverload
public func _columnNames<Value>(_ name: String, as type: Value.Type) -> [String] { [name] }

/// The values of every column of an enum group holding case `index`, whose own columns'
/// values are `bindings`: NULL in the other cases' columns.
public func _caseBindings<Group: _CaseGroup>(
  _ group: Group.Type, case index: Int, _ bindings: [QueryBinding]
) -> [QueryBinding] {
  Group._padded(ofCase: index, bindings, null: .null)
}

/// The expressions of every column of an enum group set to case `index` (`Kind.Columns
/// .note("Hi")`), from the expression of that case's value.
public func _caseFragments<Group: _CaseGroup>(
  _ group: Group.Type, case index: Int, _ value: some QueryExpression
) -> [QueryFragment] {
  Group._padded(ofCase: index, _columnFragments(value), null: QueryFragment(raw: "NULL"))
}

extension _GroupColumns where QueryValue: _ColumnGroup {
  /// One column of a group in an `update`: `$0.fields.count = 1` sets that column alone;
  /// read, it is the column as it stands before the update.
  public subscript<Value: QueryBindable>(dynamicMember member: KeyPath<QueryValue, Value>)
    -> any QueryExpression<Value> where Value.QueryOutput == Value
  {
    get { SQLQueryExpression<Value>(_columnFragments[Self.column(of: member)]) }
    set { assign(Self.column(of: member), newValue.queryFragment) }
  }

  /// One column of a group as a concrete expression, for arithmetic and the mutating forms:
  /// `$0.fields.count = $0.fields.count + 1`, `$0.fields.isOpen.toggle()`.
  @_disfavoredOverload
  public subscript<Value: QueryBindable>(dynamicMember member: KeyPath<QueryValue, Value>)
    -> SQLQueryExpression<Value> where Value.QueryOutput == Value
  {
    get { SQLQueryExpression<Value>(_columnFragments[Self.column(of: member)]) }
    set { assign(Self.column(of: member), newValue.queryFragment) }
  }

  private mutating func assign(_ column: Int, _ fragment: QueryFragment) {
    var fragments = _columnFragments
    fragments[column] = fragment
    let assigned = _assignedColumns + [column]
    self = Self(_columnFragments: fragments)
    _assignedColumns = assigned
  }

  private static func column(of member: PartialKeyPath<QueryValue>) -> Int {
    guard let index = QueryValue._columnIndex(member) else {
      preconditionFailure(
        "\(member) is not a stored property of \(QueryValue.self), so it has no column")
    }
    return index
  }
}

extension _GroupColumns where QueryValue: _CaseGroup {
  /// One case's column in an `update`: `$0.kind.note = #bind("Hi")` sets the row to that case
  /// (NULL in every other case's columns).
  public subscript<Value: QueryBindable>(
    dynamicMember member: KeyPath<QueryValue.AllCasePaths, AnyCasePath<QueryValue, Value>>
  ) -> any QueryExpression<Value> {
    get {
      SQLQueryExpression<Value>(_columnFragments[QueryValue._columnRange(ofCase: member)].joined())
    }
    set { setCase(member, newValue) }
  }

  /// One case's group of columns in an `update`: `$0.kind.image = Image(…)`, or
  /// `Image.Columns(…)` of expressions.
  public subscript<Value: _ColumnGroup>(
    dynamicMember member: KeyPath<QueryValue.AllCasePaths, AnyCasePath<QueryValue, Value>>
  ) -> any QueryExpression<Value> {
    get {
      Value.Columns(
        _columnFragments: Array(_columnFragments[QueryValue._columnRange(ofCase: member)]))
    }
    set { setCase(member, newValue) }
  }

  private mutating func setCase<Value>(
    _ member: KeyPath<QueryValue.AllCasePaths, AnyCasePath<QueryValue, Value>>,
    _ value: any QueryExpression<Value>
  ) {
    let index = QueryValue._caseIndex(QueryValue.allCasePaths[keyPath: member].name)
    self = Self(
      _columnFragments: _caseFragments(QueryValue.self, case: index, value))
  }
}

/// The column of one case of an enum table (`@Table enum Media { case note(String) }`).
public func _caseColumn<Root: Table, Value: QueryBindable>(
  _ name: String, _ keyPath: any KeyPath<Root, Value.QueryOutput?> & Sendable, as type: Value.Type
) -> TableColumn<Root, Value?> {
  TableColumn(name, keyPath: keyPath)
}

/// The columns of one case of an enum table that holds a group (`case image(MediaImage)`).
public func _caseColumn<Root: Table, Value: _ColumnGroup>(
  _ name: String, _ keyPath: any KeyPath<Root, Value?> & Sendable, as type: Value.Type
) -> _CaseColumnGroup<Root, Value> {
  _CaseColumnGroup(keyPath: keyPath)
}

public func _flatColumns<Root: Table, Group>(_ group: _CaseColumnGroup<Root, Group>)
  -> [any TableColumnExpression<Root>]
{
  Group._columnNames.indices.map { _CaseGroupColumn(group: group.keyPath, index: $0) }
}

/// One column of a case's group, for code that walks all of a table's columns: NULL in a
/// row of another case.
struct _CaseGroupColumn<Root: Table, Group: _ColumnGroup>: TableColumnExpression {
  let group: any KeyPath<Root, Group?> & Sendable
  let index: Int

  var name: String { Group._columnNames[index] }
  var queryFragment: QueryFragment {
    QueryFragment(raw: Root.qualifiedColumn(name))
  }
  var _keyPath: AnyKeyPath { group }
  func _binding(for row: Root) -> QueryBinding {
    row[keyPath: group].map { Group._bindings($0)[index] } ?? .null
  }
}

/// The columns of one case of an enum group that holds a group (`$0.kind.image`): an
/// optional value of that group, NULL in every column when the row is of another case.
@dynamicMemberLookup
public struct _CaseColumnGroup<Root: Table, Group: _ColumnGroup>: _ColumnFragments, Sendable {
  public typealias QueryValue = Group?
  let keyPath: any KeyPath<Root, Group?> & Sendable

  public var _columnFragments: [QueryFragment] {
    Group._columnNames.map { QueryFragment(raw: Root.qualifiedColumn($0)) }
  }

  /// One column of the case's group: `$0.kind.image.caption`, NULL in another case's rows.
  public subscript<Value: QueryBindable>(dynamicMember member: KeyPath<Group, Value>)
    -> TableColumn<Root, Value?> where Value.QueryOutput == Value
  {
    guard let index = Group._columnIndex(member) else {
      preconditionFailure(
        "\(member) is not a stored property of \(Group.self), so it has no column")
    }
    return TableColumn(
      Group._columnNames[index], keyPath: _GroupPath(keyPath, \Group?.[_unwrapped: member]))
  }

  /// A group inside the optional group: `$0.picture.frame.size`, NULL in each column
  /// where the group is.
  public subscript<Value: _ColumnGroup>(dynamicMember member: KeyPath<Group, Value>)
    -> _CaseColumnGroup<Root, Value>
  {
    _CaseColumnGroup<Root, Value>(keyPath: _GroupPath(keyPath, \Group?.[_unwrapped: member]))
  }

  /// `(a, b) IS (x, y)`: the case's columns against a value, or NULL in each (`is(nil)`).
  public func `is`(_ value: Group?) -> SQLQueryExpression<Bool> {
    rowComparison(_columnFragments, "IS", valueFragments(value))
  }

  /// `(a, b) IS NOT (x, y)`: `$0.kind.image.isNot(nil)` is true for rows of that case.
  public func isNot(_ value: Group?) -> SQLQueryExpression<Bool> {
    rowComparison(_columnFragments, "IS NOT", valueFragments(value))
  }
}

extension _CaseColumnGroup where Group: _CaseGroup {
  /// The column of one case of an optional enum group: `$0.time.note`, NULL in a row of
  /// another case or with no value.
  public subscript<Value: QueryBindable>(
    dynamicMember member: KeyPath<Group.AllCasePaths, AnyCasePath<Group, Value>>
  ) -> TableColumn<Root, Value?> where Value.QueryOutput == Value {
    let path = Group.allCasePaths[keyPath: member]
    let name = Group._columnNames[Group._columnRange(ofCase: path.name).lowerBound]
    return TableColumn(name, keyPath: _GroupPath(keyPath, \Group?.[_unwrappedCase: path]))
  }

  /// The columns of one case of an optional enum group that holds a group:
  /// `$0.time.span`, and `$0.time.span.startDate` inside it.
  public subscript<Value: _ColumnGroup>(
    dynamicMember member: KeyPath<Group.AllCasePaths, AnyCasePath<Group, Value>>
  ) -> _CaseColumnGroup<Root, Value> {
    let path = Group.allCasePaths[keyPath: member]
    return _CaseColumnGroup<Root, Value>(
      keyPath: _GroupPath(keyPath, \Group?.[_unwrappedCase: path]))
  }

  /// Whether the row has a value of one case: `$0.time.is(\.interval)`.
  public func `is`<Value>(_ member: KeyPath<Group.AllCasePaths, AnyCasePath<Group, Value>>)
    -> SQLQueryExpression<Bool>
  {
    caseIsPresent(Array(_columnFragments[Group._columnRange(ofCase: member)]))
  }
}

extension Optional {
  /// The value at `member` of the wrapped value, or nil: how a key path reaches a property
  /// of a case's group through the case's optional.
  subscript<Value>(_unwrapped member: KeyPath<Wrapped, Value>) -> Value? {
    self?[keyPath: member]
  }

  /// The value of one case of the wrapped enum, or nil.
  subscript<Value>(_unwrappedCase path: AnyCasePath<Wrapped, Value>) -> Value?
  where Wrapped: CasePathable {
    self.flatMap { $0[case: path] }
  }
}

/// A stored property of a `@Table` that is an optional group of columns (`var meta: Meta?`):
/// nil is NULL in every one of its columns, and a row with all of them NULL reads as nil.
public func _tableColumn<Root: Table, Group: _ColumnGroup>(
  _ name: String, _ keyPath: any KeyPath<Root, Group?> & Sendable, as type: Group?.Type
) -> _CaseColumnGroup<Root, Group> {
  _CaseColumnGroup(keyPath: keyPath)
}

extension QueryExpression where QueryValue: _ColumnGroup {
  /// `(a, b) IS (x, y)`: a group's columns against a value, `$0.kind.is(.note("Hi"))`.
  public func `is`(_ value: QueryValue) -> SQLQueryExpression<Bool> {
    rowComparison(_columnFragments(self), "IS", valueFragments(value))
  }

  /// `(a, b) IS NOT (x, y)`.
  public func isNot(_ value: QueryValue) -> SQLQueryExpression<Bool> {
    rowComparison(_columnFragments(self), "IS NOT", valueFragments(value))
  }
}

/// A group's value as the expressions of its columns: each bound, or NULL in each for nil.
func valueFragments<Group: _ColumnGroup>(_ value: Group?) -> [QueryFragment] {
  guard let value else { return Group._columnNames.map { _ in QueryFragment(raw: "NULL") } }
  return Group._bindings(value).map { QueryFragment(binding: $0) }
}

/// `(a, b) IS NOT (NULL, NULL)`: whether a row is of the case stored in these columns.
func caseIsPresent(_ columns: [QueryFragment]) -> SQLQueryExpression<Bool> {
  rowComparison(columns, "IS NOT", columns.map { _ in QueryFragment(raw: "NULL") })
}

/// `(a, b) op (x, y)`, or `(a op x)` for one column.
func rowComparison(_ lhs: [QueryFragment], _ op: String, _ rhs: [QueryFragment])
  -> SQLQueryExpression<Bool>
{
  let op = QueryFragment(raw: " \(op) ")
  if lhs.count == 1 { return SQLQueryExpression("(" + lhs[0] + op + rhs[0] + ")") }
  return SQLQueryExpression("((" + lhs.joined() + ")" + op + "(" + rhs.joined() + "))")
}

/// A `@Selection` struct's value, as an expression of its columns' values: what assigns a
/// group in an update (`$0.kind.image = Image(…)`). `@Selection` writes the conformance.
public protocol _SelectionValue: _ColumnGroup, _ColumnFragments, Table where QueryValue == Self {}

extension _SelectionValue {
  public var _columnFragments: [QueryFragment] {
    Self._bindings(self).map { QueryFragment(binding: $0) }
  }

  /// The values of the columns, as a table's row renders them.
  public var queryFragment: QueryFragment { _columnFragments.joined() }
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

/// A stored property of a `@Selection` that holds a table's row read through an alias
/// (`@Column(as: TableAlias<RemindersList, L>.self) let list: RemindersList`).
public func _tableColumn<Root: Table, Nested: Table, Name: AliasName>(
  _ name: String, _ keyPath: any KeyPath<Root, Nested> & Sendable,
  as type: TableAlias<Nested, Name>.Type
) -> NestedTableColumns<Root, Nested> {
  NestedTableColumns(keyPath: keyPath)
}

/// A stored property of a `@Selection` that holds an optional row read through an alias
/// (`@Column(as: TableAlias<User, A>?.self) let assignee: User?`).
public func _tableColumn<Root: Table, Nested: Table, Name: AliasName>(
  _ name: String, _ keyPath: any KeyPath<Root, Nested?> & Sendable,
  as type: TableAlias<Nested, Name>?.Type
) -> NestedTableColumns<Root, Nested?> {
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

extension NestedTableColumns {
  /// One column of an optional nested row (`var picture: Picture?`): `$0.picture.title`,
  /// NULL where the row is.
  public subscript<Wrapped: Table, Value: QueryBindable>(
    dynamicMember member: KeyPath<Wrapped.TableColumns, TableColumn<Wrapped, Value>>
  ) -> TableColumn<Root, Value?> where Nested == Wrapped?, Value.QueryOutput == Value {
    let column = Wrapped.columns[keyPath: member]
    return TableColumn(
      column.name, keyPath: _GroupPath(keyPath, \Wrapped?.[_unwrapped: column.keyPath]))
  }

  /// A group of an optional nested row: `$0.picture.frame`, NULL in each column where the
  /// row is.
  public subscript<Wrapped: Table, Group: _ColumnGroup>(
    dynamicMember member: KeyPath<Wrapped.TableColumns, ColumnGroup<Wrapped, Group>>
  ) -> _CaseColumnGroup<Root, Group> where Nested == Wrapped? {
    let group = Wrapped.columns[keyPath: member]
    return _CaseColumnGroup(keyPath: _GroupPath(keyPath, \Wrapped?.[_unwrapped: group.keyPath]))
  }
}

/// One column of a nested table, for code that walks all of a table's columns.
struct _NestedColumn<Root: Table, Nested: Table>: TableColumnExpression {
  let table: any KeyPath<Root, Nested> & Sendable
  let column: any TableColumnExpression<Nested>

  var name: String { column.name }
  var queryFragment: QueryFragment {
    QueryFragment(raw: Root.qualifiedColumn(column.name))
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

public func _groupBindings<Base: Table, Name: AliasName>(
  _ value: Base, as type: TableAlias<Base, Name>.Type
) -> [QueryBinding] {
  value._columnBindings
}

public func _groupBindings<Base: Table, Name: AliasName>(
  _ value: Base?, as type: TableAlias<Base, Name>?.Type
) -> [QueryBinding] {
  value._columnBindings
}

/// A property that is neither a column nor a group (an aggregate of a join result): no
/// stored values; such a selection is not a column group.
@_disfavoredOverload
public func _groupBindings<Value>(_ value: Value, as type: Any.Type) -> [QueryBinding] { [] }

// MARK: - Groups on the optional side of an outer join

/// A column group of a table on the optional side of an outer join (`$1.id` of
/// `leftJoin(SyncMetadata.all) { … }`): its columns, NULL where the join found no row.
@dynamicMemberLookup
public struct _OptionalColumnGroup<Group: _ColumnGroup>: _ColumnFragments, Sendable {
  public typealias QueryValue = Group?
  public let _columnFragments: [QueryFragment]

  /// One column of the group: `$1.time.span.endDate`.
  public subscript<Value: QueryBindable>(dynamicMember member: KeyPath<Group, Value>)
    -> SQLQueryExpression<Value?>
  {
    guard let index = Group._columnIndex(member) else {
      preconditionFailure(
        "\(member) is not a stored property of \(Group.self), so it has no column")
    }
    return SQLQueryExpression(_columnFragments[index])
  }

  /// The column of one case of an enum group: `$1.kind.note`.
  public subscript<Value: QueryBindable>(
    dynamicMember member: KeyPath<Group.AllCasePaths, AnyCasePath<Group, Value>>
  ) -> SQLQueryExpression<Value?> where Group: _CaseGroup {
    SQLQueryExpression(_columnFragments[Group._columnRange(ofCase: member).lowerBound])
  }

  /// The columns of one case of an enum group that holds a group: `$1.kind.image`.
  public subscript<Value: _ColumnGroup>(
    dynamicMember member: KeyPath<Group.AllCasePaths, AnyCasePath<Group, Value>>
  ) -> _OptionalColumnGroup<Value> where Group: _CaseGroup {
    _OptionalColumnGroup<Value>(
      _columnFragments: Array(_columnFragments[Group._columnRange(ofCase: member)]))
  }

  /// Whether the row is of one case: `$1.kind.is(\.note)` (false where the join found none).
  public func `is`<Value>(_ member: KeyPath<Group.AllCasePaths, AnyCasePath<Group, Value>>)
    -> SQLQueryExpression<Bool> where Group: _CaseGroup
  {
    caseIsPresent(Array(_columnFragments[Group._columnRange(ofCase: member)]))
  }

  /// `(a, b) IS NOT (NULL, NULL)` and the like: `$1.kind.image.isNot(nil)`.
  public func isNot(_ value: Group?) -> SQLQueryExpression<Bool> {
    rowComparison(_columnFragments, "IS NOT", valueFragments(value))
  }

  /// `(a, b) IS (x, y)`.
  public func `is`(_ value: Group?) -> SQLQueryExpression<Bool> {
    rowComparison(_columnFragments, "IS", valueFragments(value))
  }
}

extension _OptionalColumns {
  /// A column group of the table, made optional.
  public subscript<Group: _ColumnGroup>(
    dynamicMember keyPath: KeyPath<Wrapped.TableColumns, ColumnGroup<Wrapped, Group>>
  ) -> _OptionalColumnGroup<Group> {
    _OptionalColumnGroup(_columnFragments: Wrapped.columns[keyPath: keyPath]._columnFragments)
  }

  /// An optional group of the table (`var time: RecordTime?`), optional already: its cases
  /// and columns reach on as the table's own do (`$1.time.is(\.interval)`,
  /// `$1.time.span.endDate`).
  public subscript<Group: _ColumnGroup>(
    dynamicMember keyPath: KeyPath<Wrapped.TableColumns, _CaseColumnGroup<Wrapped, Group>>
  ) -> _CaseColumnGroup<Wrapped, Group> {
    Wrapped.columns[keyPath: keyPath]
  }
}

extension QueryExpression where QueryValue: _ColumnGroup {
  /// `(a, b) = (c, d)`: a group against the same group of an outer join's optional side,
  /// as row values.
  public func eq(_ other: _OptionalColumnGroup<QueryValue>) -> SQLQueryExpression<Bool> {
    binary(self, "=", other)
  }
}

/// A property's default value as the default argument of its group's `Columns`: the value
/// bound as its column stores it.
public func _columnDefault<Value: QueryBindable>(_ value: Value.QueryOutput, as type: Value.Type)
  -> BindQueryExpression<Value>
{
  BindQueryExpression(queryOutput: value)
}

/// A group's default value as the default argument of the `Columns` it is in.
public func _columnDefault<Group: _SelectionValue>(_ value: Group, as type: Group.Type) -> Group {
  value
}

/// An optional group's default value as the default argument of the `Columns` it is in:
/// its columns' values, or NULL in each.
public func _columnDefault<Group: _ColumnGroup>(_ value: Group?, as type: Group?.Type)
  -> _OptionalColumnsValue<Group>
{
  _OptionalColumnsValue(_columnFragments: valueFragments(value))
}

/// An optional table row's default value (`let list: RemindersList?` in a `@Selection`):
/// its columns' values, or NULL in each. (A group is a table too; its own overload wins.)
@_disfavoredOverload
public func _columnDefault<Row: Table>(_ value: Row?, as type: Row?.Type)
  -> _OptionalColumnsValue<Row>
{
  _OptionalColumnsValue(
    _columnFragments: value?._columnBindings.map { QueryFragment(binding: $0) }
      ?? Row.TableColumns.allColumns.map { _ in QueryFragment(raw: "NULL") })
}

/// An optional group's or row's value as an expression of its columns.
public struct _OptionalColumnsValue<Value>: _ColumnFragments, Sendable {
  public typealias QueryValue = Value?
  public let _columnFragments: [QueryFragment]
}
