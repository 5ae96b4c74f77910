import HearthNaming
import HearthSQLite

/// What SQLite does when a row breaks a constraint: `INSERT OR REPLACE`, `UPDATE OR IGNORE`…
public enum ConflictResolution: String, Sendable {
  case abort = "ABORT"
  case fail = "FAIL"
  case ignore = "IGNORE"
  case replace = "REPLACE"
  case rollback = "ROLLBACK"
}

/// An `INSERT` into `Into`, returning `Returning` rows (`Void` without `returning`).
///
/// ```swift
/// try Reminder.insert { Reminder.Draft(title: "Get milk") }.execute(db)
/// let id = try Reminder.insert { Reminder.Draft(title: "Call") }.returning(\.id).fetchOne(db)
/// ```
public struct Insert<Into: Table, Returning>: Statement, Sendable {
  public typealias QueryValue = Returning

  var conflictResolution: ConflictResolution?
  var source: InsertSource
  var upsert: QueryFragment?
  var returningColumns: [QueryFragment] = []
  let decode: @Sendable (inout QueryRowDecoder) throws -> Returning

  public func _decodeRow(_ decoder: inout QueryRowDecoder) throws -> Returning {
    try decode(&decoder)
  }

  public var query: QueryFragment {
    var sql: QueryFragment = "INSERT"
    if let conflictResolution { sql.append(raw: " OR " + conflictResolution.rawValue) }
    sql += " INTO " + Into.tableReference
    switch source {
    case .defaultValues:
      sql += " DEFAULT VALUES"
    case .values(_, let rows) where rows.isEmpty:
      // Nothing to insert (an empty builder): no statement at all, as the reference renders
      // it, so running it changes nothing.
      return QueryFragment()
    case .values(let columns, let rows) where columns.isEmpty && rows.count == 1:
      // A row with no column given (a draft of defaults only).
      sql += " DEFAULT VALUES"
    case .values(let columns, let rows):
      sql += " " + columnList(columns) + " VALUES "
      sql += rows.map { "(" + $0.joined() + ")" }.joined()
    case .select(_, let select) where select.isEmpty:
      // A select of `none`: nothing to insert, so no statement.
      return QueryFragment()
    case .select(let columns, let select):
      sql += " " + columnList(columns) + " " + select
    }
    if let upsert { sql += upsert }
    if !returningColumns.isEmpty { sql += " RETURNING " + returningColumns.joined() }
    return sql
  }

  /// Rows of the inserted values: `.returning { ($0.id, $0.title) }`, `.returning(\.id)`.
  public func returning<each C: QueryExpression>(
    _ selection: (Into.TableColumns) -> (repeat each C)
  )
    -> Insert<Into, (repeat (each C).QueryValue.QueryOutput)>
  where repeat (each C).QueryValue: QueryRepresentable {
    let selected = returningClause(of: Into.self) {
      selectedColumns(repeat each selection(Into.columns))
    }
    return Insert<Into, (repeat (each C).QueryValue.QueryOutput)>(
      conflictResolution: conflictResolution, source: source, upsert: upsert,
      returningColumns: selected.fragments, decode: selected.decode)
  }

  /// Rows of one inserted column: `.returning(\.id)`.
  public func returning<C: QueryExpression>(_ keyPath: KeyPath<Into.TableColumns, C>)
    -> Insert<Into, C.QueryValue.QueryOutput>
  where C.QueryValue: QueryRepresentable {
    returning { $0[keyPath: keyPath] }
  }
}

/// Where the rows of an `INSERT` come from.
enum InsertSource: Sendable {
  case defaultValues
  case values(columns: [String], rows: [[QueryFragment]])
  case select(columns: [String], query: QueryFragment)
}

func columnList(_ names: [String]) -> QueryFragment {
  "(" + names.map { QueryFragment(raw: SQLNaming.quote($0)) }.joined() + ")"
}

/// Collects the rows of an `insert { … }` or `db.seed { … }` closure.
@resultBuilder
public enum InsertValuesBuilder<Value> {
  public static func buildExpression(_ value: Value) -> [Value] { [value] }
  public static func buildExpression(_ values: [Value]) -> [Value] { values }
  public static func buildBlock(_ components: [Value]...) -> [Value] { components.flatMap { $0 } }
  public static func buildEither(first component: [Value]) -> [Value] { component }
  public static func buildEither(second component: [Value]) -> [Value] { component }
  public static func buildOptional(_ component: [Value]?) -> [Value] { component ?? [] }
  public static func buildArray(_ components: [[Value]]) -> [Value] { components.flatMap { $0 } }
}

/// Collects the rows of an insert into chosen columns, each row a tuple of the columns'
/// values or of expressions of their types, in any mix:
/// `insert { ($0.title, $0.priority) } values: { ("Milk", .high); (#sql("'Eggs'"), #sql("1")) }`.
/// (A struct: an enum cannot declare a type pack.)
@resultBuilder
public struct InsertColumnValuesBuilder<each V: QueryBindable> {
  public static func buildExpression(_ row: (repeat (each V).QueryOutput)) -> [[QueryFragment]] {
    var fragments: [QueryFragment] = []
    for (type, value) in repeat ((each V).self, each row) {
      fragments.append(QueryFragment(binding: type.init(queryOutput: value).queryBinding))
    }
    return [fragments]
  }

  public static func buildExpression<each E: QueryExpression>(_ row: (repeat each E))
    -> [[QueryFragment]]
  where repeat (each E).QueryValue == each V {
    [queryFragments(repeat each row)]
  }

  public static func buildBlock(_ components: [[QueryFragment]]...) -> [[QueryFragment]] {
    components.flatMap { $0 }
  }
  public static func buildEither(first component: [[QueryFragment]]) -> [[QueryFragment]] {
    component
  }
  public static func buildEither(second component: [[QueryFragment]]) -> [[QueryFragment]] {
    component
  }
  public static func buildOptional(_ component: [[QueryFragment]]?) -> [[QueryFragment]] {
    component ?? []
  }
  public static func buildArray(_ components: [[[QueryFragment]]]) -> [[QueryFragment]] {
    components.flatMap { $0 }
  }
}

/// A table's `Draft`, which `@Table` writes: the same columns with an optional primary key.
public protocol _TableDraft: Table {
  associatedtype _Row: Table
  /// A draft holding every value of `row`, primary key included.
  init(_ row: _Row)
}

extension InsertValuesBuilder where Value: _TableDraft {
  /// A whole row among drafts: `insert { Reminder(id: 1, …); Reminder.Draft(title: …) }`.
  public static func buildExpression(_ row: Value._Row) -> [Value] { [Value(row)] }
  public static func buildExpression(_ rows: [Value._Row]) -> [Value] { rows.map(Value.init) }
}

extension Table {
  /// Inserts whole rows.
  ///
  /// ```swift
  /// Item.insert {
  ///   Item(id: 1, title: "Milk")
  ///   Item(id: 2, title: "Eggs")
  /// }
  /// ```
  public static func insert(
    or conflictResolution: ConflictResolution? = nil,
    @InsertValuesBuilder<Self> _ rows: () -> [Self]
  ) -> Insert<Self, Void> {
    insertRows(of: Self.self, rows(), or: conflictResolution)
  }

  /// Inserts one row.
  public static func insert(or conflictResolution: ConflictResolution? = nil, _ row: Self)
    -> Insert<Self, Void>
  {
    insertRows(of: Self.self, [row], or: conflictResolution)
  }

  /// Inserts a row of expressions, one per column, as `@Table`'s `Columns` writes them:
  /// what a trigger inserts from the row that fired it.
  ///
  /// ```swift
  /// ReminderText.insert {
  ///   ReminderText.Columns(rowid: new.rowid, title: new.title, notes: new.notes, tags: "")
  /// }
  /// ```
  public static func insert(
    or conflictResolution: ConflictResolution? = nil, _ row: () -> some QueryExpression<Self>
  ) -> Insert<Self, Void> {
    Insert(
      conflictResolution: conflictResolution,
      source: .values(columns: TableColumns.allColumns.map(\.name), rows: [[row().queryFragment]]),
      decode: { _ in })
  }

  /// `INSERT … DEFAULT VALUES`: one row of the columns' defaults.
  public static func insert(or conflictResolution: ConflictResolution? = nil) -> Insert<Self, Void>
  {
    Insert(conflictResolution: conflictResolution, source: .defaultValues, decode: { _ in })
  }

  /// Inserts whole rows, naming every column: `insert { $0 } values: { Item(…) }`.
  public static func insert(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> TableColumns,
    @InsertValuesBuilder<Self> values: () -> [Self]
  ) -> Insert<Self, Void> {
    _ = columns(Self.columns)
    return insertRows(of: Self.self, values(), or: conflictResolution)
  }

  /// Inserts the columns of one group (`@Selection` stored in the table) and lets the others
  /// take their defaults: `insert { $0.timestamps } values: { Timestamps(…) }`.
  public static func insert<Group: _ColumnGroup>(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> ColumnGroup<Self, Group>,
    @InsertValuesBuilder<Group> values: () -> [Group]
  ) -> Insert<Self, Void> {
    _ = columns(Self.columns)
    let rows = values().map { Group._bindings($0).map { QueryFragment(binding: $0) } }
    return Insert(
      conflictResolution: conflictResolution,
      source: .values(columns: Group._columnNames, rows: rows), decode: { _ in })
  }

  /// `INSERT INTO … SELECT …` of whole rows: `insert { $0 } select: { Other.select { … } }`.
  public static func insert(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> TableColumns,
    select: () -> some Statement
  ) -> Insert<Self, Void> {
    _ = columns(Self.columns)
    return Insert(
      conflictResolution: conflictResolution,
      source: .select(columns: TableColumns.allColumns.map(\.name), query: select().query),
      decode: { _ in })
  }

  /// Inserts values for chosen columns only; the others take their defaults. A row is a
  /// tuple of values, or of expressions computed in SQL (as a trigger writes a row).
  ///
  /// ```swift
  /// Item.insert { ($0.title, $0.isInStock) } values: {
  ///   ("Milk", true)
  ///   ("Eggs", false)
  ///   (#sql("upper('bread')"), #sql("1"))
  /// }
  /// ```
  public static func insert<each V: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> (repeat TableColumn<Self, each V>),
    @InsertColumnValuesBuilder<repeat each V> values: () -> [[QueryFragment]]
  ) -> Insert<Self, Void> {
    let names = nonEmptyColumnNames(repeat each columns(Self.columns))
    return Insert(
      conflictResolution: conflictResolution, source: .values(columns: names, rows: values()),
      decode: { _ in })
  }

  /// `INSERT INTO … (column) SELECT …` of a select typed by the column, so that its values'
  /// type comes from it: `insert { $0.title } select: { Values(#sql("'Milk'")) }`.
  @_disfavoredOverload
  public static func insert<V: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> TableColumn<Self, V>,
    select: () -> some Statement<V.QueryOutput>
  ) -> Insert<Self, Void> {
    let names = [columns(Self.columns).name]
    return Insert(
      conflictResolution: conflictResolution,
      source: .select(columns: names, query: select().query), decode: { _ in })
  }

  /// `INSERT INTO … (columns) SELECT …`.
  public static func insert<each V: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> (repeat TableColumn<Self, each V>),
    select: () -> some Statement
  ) -> Insert<Self, Void> {
    let names = nonEmptyColumnNames(repeat each columns(Self.columns))
    return Insert(
      conflictResolution: conflictResolution,
      source: .select(columns: names, query: select().query), decode: { _ in })
  }
}

extension Table {
  /// Inserts drafts of a table without a primary key, whose lazily initialized columns the
  /// database may fill: `Location.insert { Location.Draft(name: "Home") }` binds NULL for
  /// each column the draft leaves out (a column's `ON CONFLICT REPLACE DEFAULT` fills it).
  @_disfavoredOverload
  public static func insert<Draft: _TableDraft>(
    or conflictResolution: ConflictResolution? = nil,
    @InsertValuesBuilder<Draft> _ drafts: () -> [Draft]
  ) -> Insert<Self, Void> where Draft._Row == Self {
    let columns = Draft.TableColumns.writableColumns
    let rows = drafts().map { draft in
      columns.map { QueryFragment(binding: $0._binding(for: draft)) }
    }
    return Insert(
      conflictResolution: conflictResolution,
      source: .values(columns: columns.map(\.name), rows: rows), decode: { _ in })
  }
}

// `upsert` takes drafts or rows, as the reference's does.
// swift-format-ignore: AmbiguousTrailingClosureOverload
extension PrimaryKeyedTable {
  /// Inserts drafts: rows whose primary key the database may assign. When no draft has a
  /// key, the key column is left out, so its default (a rowid, `uuid()`…) applies.
  ///
  /// ```swift
  /// Reminder.insert { Reminder.Draft(title: "Get milk") }
  /// ```
  public static func insert(
    or conflictResolution: ConflictResolution? = nil,
    @InsertValuesBuilder<Draft> _ drafts: () -> [Draft]
  ) -> Insert<Self, Void> {
    let drafts = drafts()
    // The key is left out when no draft has one, so that the database's default (a
    // rowid, `uuid()`) applies.
    let key = columns.primaryKey._keyColumnNames
    let kept = Draft.TableColumns.writableColumns.filter { column in
      !key.contains(column.name) || !drafts.allSatisfy { column._binding(for: $0).isNull }
    }
    let rows = drafts.map { draft in
      kept.map { QueryFragment(binding: $0._binding(for: draft)) }
    }
    return Insert(
      conflictResolution: conflictResolution,
      source: .values(columns: kept.map(\.name), rows: rows), decode: { _ in })
  }

  /// Inserts one draft.
  public static func insert(or conflictResolution: ConflictResolution? = nil, _ draft: Draft)
    -> Insert<Self, Void>
  {
    insert(or: conflictResolution) { draft }
  }

  /// Inserts drafts, or updates every other column of the rows whose primary key exists,
  /// as the reference's `upsert { Reminder.Draft(id: 1, …) }`: a draft without a key is
  /// inserted with a new one.
  public static func upsert(@InsertValuesBuilder<Draft> _ drafts: () -> [Draft]) -> Insert<
    Self, Void
  > {
    upserting(insert(drafts))
  }

  /// Inserts rows, or updates every other column of the rows whose primary key exists:
  /// `INSERT … ON CONFLICT ("id") DO UPDATE SET "title" = "excluded"."title", …`.
  @_disfavoredOverload
  public static func upsert(@InsertValuesBuilder<Self> _ rows: () -> [Self]) -> Insert<Self, Void> {
    upserting(insertRows(of: Self.self, rows(), or: nil))
  }

  /// `ON CONFLICT ("key") DO UPDATE SET` every other column to the refused row's value.
  private static func upserting(_ insert: Insert<Self, Void>) -> Insert<Self, Void> {
    let key = columns.primaryKey._keyColumnNames
    return insert.upserting(key) { updates, _ in
      for name in TableColumns.writableColumns.map(\.name) where !key.contains(name) {
        updates.assignments.append(
          (name, QueryFragment(raw: "\"excluded\"." + SQLNaming.quote(name))))
      }
    }
  }

}

/// The names of an insert's chosen columns, which must be some: a columns closure that
/// names none is one whose value Swift dropped (a single-expression closure may return
/// `()`), and its insert would write a row of defaults — or nothing — in place of the
/// values given. That stops the program, naming what to write, rather than write wrongly.
func nonEmptyColumnNames<T: Table, each V>(_ columns: repeat TableColumn<T, each V>) -> [String] {
  let names = columnNames(repeat each columns)
  precondition(
    !names.isEmpty,
    "insert into \(T.tableName) names no column: write the columns as a tuple "
      + "(insert { ($0.a, $0.b) } values: { … }), the whole row (insert { $0 } values: { … }), "
      + "or insert() for a row of defaults")
  return names
}

func insertRows<T: Table>(of type: T.Type, _ rows: [T], or conflictResolution: ConflictResolution?)
  -> Insert<T, Void>
{
  let names = T.TableColumns.writableColumns.map(\.name)
  let values = rows.map { $0._writableColumnBindings.map { QueryFragment(binding: $0) } }
  return Insert(
    conflictResolution: conflictResolution, source: .values(columns: names, rows: values),
    decode: { _ in })
}

extension Database {
  /// Inserts rows of several tables, in order: sample data for tests and previews.
  ///
  /// ```swift
  /// try db.seed {
  ///   RemindersList(id: 1, title: "Personal")
  ///   Reminder(id: 1, remindersListID: 1, title: "Get milk")
  /// }
  /// ```
  public func seed(@SeedsBuilder _ rows: () -> [any Table]) throws {
    for insert in Seeds(rows) {
      try insert.execute(self)
    }
  }
}

/// An insert into `Into` with no `returning`, as the reference names it.
public typealias InsertOf<Into: Table> = Insert<Into, Void>
