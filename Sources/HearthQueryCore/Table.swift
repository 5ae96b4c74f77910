import HearthNaming

/// A struct stored as the rows of a table. `@Table` writes the conformance.
///
/// ```swift
/// @Table
/// struct Reminder: Identifiable {
///   let id: Int
///   var title = ""
///   var isCompleted = false
/// }
/// try Reminder.where { !$0.isCompleted }.order(by: \.title).fetchAll(db)
/// ```
///
/// A table's columns are reachable from the type itself (`Reminder.title`), as in `#sql`.
///
/// A row is a statement too: the one-row select of its values, each named after its column
/// (`SELECT 'Phone' AS "title", 1 AS "quantity"`), whose row reads back as the row; and, as an
/// expression, the list of its values (`(a, b) = ('Phone', 1)`).
@dynamicMemberLookup
public protocol Table: QueryRepresentable, PartialSelectStatement, _JSONKeyed
where QueryValue == Self {
  /// The typed columns of the table, and any computed expressions added in extensions.
  associatedtype TableColumns: TableDefinition where TableColumns.QueryValue == Self

  /// The columns.
  static var columns: TableColumns { get }

  /// The table's name in the database.
  static var tableName: String { get }

  /// The type of `all`: `Where<Self>`, or the `Select` a default scope with an order is
  /// (`static let all = unscoped.where { … }.order { … }`).
  associatedtype DefaultScope: _DefaultScope<Self> = Where<Self>

  /// Every row, or the table's default scope: a table that declares `static let all =
  /// Self.where { !$0.isDeleted }` (or `unscoped.where { … }.order { … }`) has its conditions
  /// applied to every query of it that does not start from `unscoped`, and its order to
  /// every select of it that orders by nothing else first.
  static var all: DefaultScope { get }

  /// The name the table goes by in its queries, when it is a `TableAlias`; nil for a table.
  static var tableAlias: String? { get }

  /// The attached database the table lives in (`@Table(schema: "archive")`), or nil for
  /// the main one.
  static var schemaName: String? { get }

  /// What `FROM` and `JOIN` read: the quoted table name by default; a table-valued
  /// function for a table declared over one (give it a `tableAlias` to qualify its columns).
  ///
  /// ```swift
  /// @Table struct ReminderColumn {
  ///   static var tableAlias: String? { "reminderColumns" }
  ///   static var tableFragment: QueryFragment {
  ///     "pragma_table_info(\(quote: Reminder.tableName, delimiter: .text))"
  ///   }
  ///   let name: String
  /// }
  /// ```
  static var tableFragment: QueryFragment { get }
}

extension Table {
  /// `SELECT ? AS "title", ? AS "quantity", …`: this row's values as a one-row select.
  public var query: QueryFragment { selectedValues.query }

  /// This row's values, in column order: `?, ?, …`.
  public var queryFragment: QueryFragment {
    _columnBindings.map { QueryFragment(binding: $0) }.joined()
  }

  public func _decodeRow(_ decoder: inout QueryRowDecoder) throws -> Self {
    try Self(decoder: &decoder)
  }

  /// A column or computed expression of the table: `Reminder.title`, `Reminder.isCompleted`.
  public static subscript<Member>(dynamicMember keyPath: KeyPath<TableColumns, Member>) -> Member {
    columns[keyPath: keyPath]
  }

  public static var _columnWidth: Int { TableColumns.allColumns.count }

  public static var tableAlias: String? { nil }

  public static var schemaName: String? { nil }

  public static var tableFragment: QueryFragment { quotedTableName }

  /// The table's quoted name, after its schema's: `"reminders"`, `"archive"."reminders"`.
  static var quotedTableName: QueryFragment {
    QueryFragment(
      raw: (schemaName.map { SQLNaming.quote($0) + "." } ?? "") + SQLNaming.quote(tableName))
  }

  /// What qualifies the table's columns: its alias, or its name.
  static var qualifier: String { SQLNaming.quote(tableAlias ?? tableName) }

  /// `"qualifier"."name"`, or `"name"` alone inside the `RETURNING` clause of a statement on
  /// this table, where SQLite knows no alias (and the reference writes names alone).
  static func qualifiedColumn(_ name: String) -> String {
    let qualifier = qualifier
    return qualifier == unqualifiedTable
      ? SQLNaming.quote(name) : qualifier + "." + SQLNaming.quote(name)
  }

  /// The table in a `FROM` or `JOIN`: `"users"`, or `"users" AS "referrers"`.
  static var tableReference: QueryFragment {
    guard let tableAlias else { return tableFragment }
    return tableFragment + QueryFragment(raw: " AS " + SQLNaming.quote(tableAlias))
  }

  /// The values of this row, in column order.
  /// The values of this row's writable columns, in column order.
  var _writableColumnBindings: [QueryBinding] {
    TableColumns.writableColumns.map { $0._binding(for: self) }
  }

  var _columnBindings: [QueryBinding] {
    TableColumns.allColumns.map { $0._binding(for: self) }
  }
}

/// A table with a primary key: `find`, `update(_:)`, `delete(_:)`, `upsert`, and a `Draft`.
public protocol PrimaryKeyedTable: Table where TableColumns: PrimaryKeyedTableDefinition {
  /// The same columns with an optional primary key, for inserting rows whose key the
  /// database assigns.
  associatedtype Draft: Table
}

/// The columns of a table, as `@Table` generates them.
public protocol TableDefinition<QueryValue>: QueryExpression, Sendable where QueryValue: Table {
  /// Every column, in declaration order (the order rows are decoded in).
  static var allColumns: [any TableColumnExpression<QueryValue>] { get }
  /// The columns an insert or an update of a whole row writes: all but the generated ones
  /// (`@Column(generated: .virtual)`), which the database computes.
  static var writableColumns: [any TableColumnExpression<QueryValue>] { get }
}

extension TableDefinition {
  public static var writableColumns: [any TableColumnExpression<QueryValue>] {
    allColumns.filter { !$0._isGenerated }
  }
}

extension TableDefinition {
  /// All the columns, qualified: `"reminders"."id", "reminders"."title"`.
  public var queryFragment: QueryFragment {
    Self.allColumns.map(\.queryFragment).joined()
  }
}

/// The columns of a table with a primary key.
public protocol PrimaryKeyedTableDefinition: TableDefinition {
  /// The key's type: a column's value, or a `@Selection` group of them (a composite key).
  associatedtype PrimaryKey: QueryRepresentable
  /// The key's column, or its group's columns.
  associatedtype PrimaryColumn: _PrimaryKeyColumns<QueryValue, PrimaryKey>
  var primaryKey: PrimaryColumn { get }
}

/// The column of a primary key (`TableColumn`), or the columns of one made of a group
/// (`ColumnGroup`: `let id: MetadataID`, a `@Selection` of two columns), as `find`,
/// `update(_:)`, `delete(_:)` and `upsert` use them.
public protocol _PrimaryKeyColumns<Root, Value>: QueryExpression, Sendable
where QueryValue == Value {
  associatedtype Root: Table
  associatedtype Value: QueryRepresentable
  /// The key's column names, in order.
  var _keyColumnNames: [String] { get }
  /// The key of `row`.
  func _key(for row: Root) -> Value
  /// The values of `key`, in column order.
  func _keyBindings(of key: Value) -> [QueryBinding]
}

extension _PrimaryKeyColumns {
  /// The key's values in `row`, in column order.
  func _keyBindings(for row: Root) -> [QueryBinding] { _keyBindings(of: _key(for: row)) }

  /// `"t"."id"`, or the row value `("t"."a", "t"."b")` of a composite key.
  var _rowValue: QueryFragment { _parenthesized(queryFragment) }

  /// One value of the key as SQL: `?`, or `(?, ?)` for a composite key.
  func _rowValue(of values: [QueryBinding]) -> QueryFragment {
    _parenthesized(values.map { QueryFragment(binding: $0) }.joined())
  }

  /// The key's first column: not NULL wherever an outer join found a row.
  var _firstColumn: SQLQueryExpression<Value?> {
    SQLQueryExpression(QueryFragment(raw: Root.qualifiedColumn(_keyColumnNames[0])))
  }

  func _parenthesized(_ fragment: QueryFragment) -> QueryFragment {
    _keyColumnNames.count == 1 ? fragment : "(" + fragment + ")"
  }
}

extension TableColumn: _PrimaryKeyColumns {
  public var _keyColumnNames: [String] { [name] }
  public func _key(for row: Root) -> Value { Value(queryOutput: row[keyPath: keyPath]) }
  public func _keyBindings(of key: Value) -> [QueryBinding] { [key.queryBinding] }
}

/// A column, without its value type: what code that walks all columns sees.
public protocol TableColumnExpression<Root>: Sendable {
  associatedtype Root: Table
  /// The column's name.
  var name: String { get }
  /// The qualified column: `"reminders"."title"`.
  var queryFragment: QueryFragment { get }
  /// This column's value in `row`, bound.
  func _binding(for row: Root) -> QueryBinding
  /// The Swift property the column stores.
  var _keyPath: AnyKeyPath { get }
  /// The column as a value of `json_object` (`true`/`false` for a `Bool`).
  var _jsonValue: QueryFragment { get }
  /// Whether the database computes the column (a generated column inside a group): writes
  /// leave it out.
  var _isGenerated: Bool { get }
}

extension TableColumnExpression {
  public var _jsonValue: QueryFragment { queryFragment }
  public var _isGenerated: Bool { false }
}

/// One column of `Root`, holding values of `Value` (a representation's column holds the
/// representation; its Swift property holds `Value.QueryOutput`).
public struct TableColumn<Root: Table, Value: QueryBindable>: TableColumnExpression,
  QueryExpression
{
  public typealias QueryValue = Value

  public let name: String
  public let keyPath: any KeyPath<Root, Value.QueryOutput> & Sendable

  public init(_ name: String, keyPath: any KeyPath<Root, Value.QueryOutput> & Sendable) {
    self.name = name
    self.keyPath = keyPath
  }

  public var queryFragment: QueryFragment {
    QueryFragment(raw: Root.qualifiedColumn(name))
  }

  public var _keyPath: AnyKeyPath { keyPath }

  public func _binding(for row: Root) -> QueryBinding {
    Value(queryOutput: row[keyPath: keyPath]).queryBinding
  }

  public var _jsonValue: QueryFragment { Value._jsonEncoded(queryFragment) }
}

/// How the database keeps a generated column (`@Column(generated: .virtual)`): computed when
/// read, or stored when the row is written. Either way Hearth reads it and never writes it.
public enum GeneratedColumnStorage: Sendable {
  case virtual
  case stored
}

/// The qualifier of the table whose `RETURNING` clause is being written, if one is: its
/// columns are written by name alone there.
@TaskLocal var unqualifiedTable: String?

/// Evaluates a `RETURNING` clause's columns for a statement on `table`.
func returningClause<T: Table, R>(of table: T.Type, _ body: () -> R) -> R {
  $unqualifiedTable.withValue(T.qualifier, operation: body)
}
