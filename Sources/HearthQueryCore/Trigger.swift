import Foundation
import HearthNaming

// Temporary triggers and views. SQLite allows no bound parameters in a trigger's or a view's
// definition, so their SQL carries its values as literals (`inlinedSQL`).

/// `CREATE TEMPORARY TRIGGER …`: statements that run when rows of `On` change.
///
/// ```swift
/// try Reminder.createTemporaryTrigger(
///   after: .delete { old in
///     ReminderText.where { $0.rowid.eq(old.rowid) }.delete()
///   }
/// )
/// .execute(db)
/// ```
public struct TemporaryTrigger<On: Table>: Statement, Sendable {
  public typealias QueryValue = Void

  let name: String
  let ifNotExists: Bool
  let timing: String
  let operation: TriggerOperation<On>

  /// Without a name, the trigger is named for what it does and where it was written:
  /// `after_insert_on_items@Module/File.swift:12:7`.
  init(
    _ name: String?, _ ifNotExists: Bool, _ timing: String, _ operation: TriggerOperation<On>,
    at site: String
  ) {
    let event = operation.event.sql.split(separator: " ").prefix(1).joined().lowercased()
    let timingName = timing.lowercased().replacingOccurrences(of: " ", with: "_")
    self.name = name ?? "\(timingName)_\(event)_on_\(On.tableName)@\(site)"
    self.ifNotExists = ifNotExists
    self.timing = timing
    self.operation = operation
  }

  public var query: QueryFragment {
    var sql = "CREATE TEMPORARY TRIGGER " + (ifNotExists ? "IF NOT EXISTS " : "")
    sql += SQLNaming.quote(name) + " " + timing + " " + operation.event.sql
    sql += " ON " + SQLNaming.quote(On.tableName) + " FOR EACH ROW"
    if let condition = operation.condition { sql += " WHEN " + condition.inlinedSQL }
    sql += " BEGIN " + operation.statements.map { $0.inlinedSQL + ";" }.joined(separator: " ")
    sql += " END"
    return QueryFragment(raw: sql)
  }

  public func _decodeRow(_ decoder: inout QueryRowDecoder) throws {}

  /// `DROP TRIGGER "name"`: removes this trigger (`ifExists`: and no error when it is gone).
  public func drop(ifExists: Bool = false) -> SQLQueryExpression<Void> {
    SQLQueryExpression(
      QueryFragment(raw: "DROP TRIGGER " + (ifExists ? "IF EXISTS " : "") + SQLNaming.quote(name)))
  }
}

/// A `CREATE TEMPORARY VIEW` statement, and the `DROP VIEW` that undoes it.
public struct TemporaryView<View: Table>: Statement, Sendable {
  public typealias QueryValue = Void
  public let query: QueryFragment

  public func _decodeRow(_ decoder: inout QueryRowDecoder) throws {}

  /// `DROP VIEW "name"` (`ifExists`: and no error when it is gone).
  public func drop(ifExists: Bool = false) -> SQLQueryExpression<Void> {
    SQLQueryExpression(
      "DROP VIEW " + QueryFragment(raw: ifExists ? "IF EXISTS " : "") + View.quotedTableName)
  }
}

/// What fires a trigger and what it runs. `new` and `old` are the row's columns after and
/// before the change (`"new"."title"` in the SQL).
public struct TriggerOperation<On: Table>: Sendable {
  let event: QueryFragment
  let statements: [QueryFragment]
  let condition: QueryFragment?

  /// After (or before, or instead of) an `INSERT`.
  public static func insert(
    @TriggerStatementBuilder forEachRow statements: (_ new: AliasedColumns<On>) -> [QueryFragment],
    when condition: ((_ new: AliasedColumns<On>) -> any QueryExpression<Bool>)? = nil
  ) -> Self {
    let new = AliasedColumns<On>(alias: "new")
    return Self(
      event: "INSERT", statements: statements(new), condition: condition?(new).queryFragment)
  }

  /// What an update runs, given the row before and after the change.
  public typealias UpdateStatements = (_ old: AliasedColumns<On>, _ new: AliasedColumns<On>) ->
    [QueryFragment]
  /// When an update's statements run.
  public typealias UpdateCondition = (_ old: AliasedColumns<On>, _ new: AliasedColumns<On>) ->
    any QueryExpression<Bool>

  /// An `UPDATE` of any column.
  public static func update(
    @TriggerStatementBuilder forEachRow statements: UpdateStatements,
    when condition: UpdateCondition? = nil
  ) -> Self {
    update(event: "UPDATE", statements, condition)
  }

  /// An `UPDATE OF` the chosen columns: `.update { ($0.title, $0.notes) } forEachRow: { old, new in … }`.
  public static func update<each V>(
    of columns: (On.TableColumns) -> (repeat TableColumn<On, each V>),
    @TriggerStatementBuilder forEachRow statements: UpdateStatements,
    when condition: UpdateCondition? = nil
  ) -> Self {
    let names = columnNames(repeat each columns(On.columns)).map(SQLNaming.quote)
    return update(event: "UPDATE OF " + names.joined(separator: ", "), statements, condition)
  }

  private static func update(
    event: String, _ statements: UpdateStatements, _ condition: UpdateCondition?
  ) -> Self {
    let (old, new) = (AliasedColumns<On>(alias: "old"), AliasedColumns<On>(alias: "new"))
    return Self(
      event: QueryFragment(raw: event), statements: statements(old, new),
      condition: condition?(old, new).queryFragment)
  }

  /// A `DELETE`.
  public static func delete(
    @TriggerStatementBuilder forEachRow statements: (_ old: AliasedColumns<On>) -> [QueryFragment],
    when condition: ((_ old: AliasedColumns<On>) -> any QueryExpression<Bool>)? = nil
  ) -> Self {
    let old = AliasedColumns<On>(alias: "old")
    return Self(
      event: "DELETE", statements: statements(old), condition: condition?(old).queryFragment)
  }
}

// Touching: a trigger that stamps the row it fired for, the reference's `touch` helpers.
//
// ```swift
// Reminder.createTemporaryTrigger(after: .update(touch: \.updatedAt))
// Reminder.createTemporaryTrigger(after: .insert(touch: { $0.isFlagged = false }))
// ```
extension TriggerOperation {
  /// After an insert, updates the inserted row: `.insert(touch: { $0.status = … })`.
  @_disfavoredOverload
  public static func insert(
    touch updates: (inout Updates<On>) -> Void,
    when condition: ((_ new: AliasedColumns<On>) -> any QueryExpression<Bool>)? = nil
  ) -> Self {
    insert(forEachRow: { new in touching(new, updates) }, when: condition)
  }

  /// After an insert, sets a date column of the inserted row to now (or to `date`).
  @_disfavoredOverload
  public static func insert<D: _DateColumnValue>(
    touch dateColumn: KeyPath<On.TableColumns, TableColumn<On, D>>,
    date: (any QueryExpression<D>)? = nil,
    when condition: ((_ new: AliasedColumns<On>) -> any QueryExpression<Bool>)? = nil
  ) -> Self {
    insert(touch: { $0[dynamicMember: dateColumn] = date ?? now(D.self) }, when: condition)
  }

  /// After an update, updates the row again: `.update(touch: { $0.version += 1 })`.
  @_disfavoredOverload
  public static func update(
    touch updates: (inout Updates<On>) -> Void, when condition: UpdateCondition? = nil
  ) -> Self {
    update(forEachRow: { _, new in touching(new, updates) }, when: condition)
  }

  /// After an update, sets a date column of the updated row to now (or to `date`): the
  /// reference's `updatedAt` stamp.
  @_disfavoredOverload
  public static func update<D: _DateColumnValue>(
    touch dateColumn: KeyPath<On.TableColumns, TableColumn<On, D>>,
    date: (any QueryExpression<D>)? = nil, when condition: UpdateCondition? = nil
  ) -> Self {
    update(touch: { $0[dynamicMember: dateColumn] = date ?? now(D.self) }, when: condition)
  }

  /// After an update of the chosen columns, updates the row again.
  @_disfavoredOverload
  public static func update<each V>(
    of columns: (On.TableColumns) -> (repeat TableColumn<On, each V>),
    touch updates: (inout Updates<On>) -> Void, when condition: UpdateCondition? = nil
  ) -> Self {
    update(of: columns, forEachRow: { _, new in touching(new, updates) }, when: condition)
  }

  /// After an update of the chosen columns, sets a date column of the row to now.
  @_disfavoredOverload
  public static func update<each V, D: _DateColumnValue>(
    of columns: (On.TableColumns) -> (repeat TableColumn<On, each V>),
    touch dateColumn: KeyPath<On.TableColumns, TableColumn<On, D>>,
    date: (any QueryExpression<D>)? = nil, when condition: UpdateCondition? = nil
  ) -> Self {
    update(
      of: columns, touch: { $0[dynamicMember: dateColumn] = date ?? now(D.self) },
      when: condition)
  }

  /// `UPDATE "table" SET … WHERE "table"."rowid" = "new"."rowid"`.
  private static func touching(_ new: AliasedColumns<On>, _ updates: (inout Updates<On>) -> Void)
    -> Update<On, Void>
  {
    On.where { $0.rowid.eq(new.rowid) }.update(set: updates)
  }

  /// The time now, in the text a `Date` column stores (`.now`'s SQL).
  private static func now<D>(_: D.Type) -> any QueryExpression<D> {
    SQLQueryExpression<D>(Date._dateStorage(["'now'"]))
  }
}

/// The types of a column a trigger can stamp with the time: `Date` and `Date?`.
public protocol _DateColumnValue: QueryBindable {}
extension Date: _DateColumnValue {}
extension Optional: _DateColumnValue where Wrapped == Date {}

/// The statements of a trigger's body, one per line.
@resultBuilder
public enum TriggerStatementBuilder {
  public static func buildExpression(_ statement: some Statement) -> [QueryFragment] {
    [statement.query]
  }
  public static func buildBlock(_ components: [QueryFragment]...) -> [QueryFragment] {
    components.flatMap { $0 }
  }
}

extension Table {
  /// `CREATE TEMPORARY TRIGGER` on this table, run `after:` the operation. The name defaults
  /// to one made from the call's place in the source, so each call site has its own.
  public static func createTemporaryTrigger(
    _ name: String? = nil, ifNotExists: Bool = false, after operation: TriggerOperation<Self>,
    fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column
  ) -> TemporaryTrigger<Self> {
    TemporaryTrigger(name, ifNotExists, "AFTER", operation, at: "\(fileID):\(line):\(column)")
  }

  /// `CREATE TEMPORARY TRIGGER … BEFORE` the operation.
  public static func createTemporaryTrigger(
    _ name: String? = nil, ifNotExists: Bool = false, before operation: TriggerOperation<Self>,
    fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column
  ) -> TemporaryTrigger<Self> {
    TemporaryTrigger(name, ifNotExists, "BEFORE", operation, at: "\(fileID):\(line):\(column)")
  }

  /// `CREATE TEMPORARY TRIGGER … INSTEAD OF` the operation: what makes a view writable.
  public static func createTemporaryTrigger(
    _ name: String? = nil, ifNotExists: Bool = false, insteadOf operation: TriggerOperation<Self>,
    fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column
  ) -> TemporaryTrigger<Self> {
    TemporaryTrigger(name, ifNotExists, "INSTEAD OF", operation, at: "\(fileID):\(line):\(column)")
  }

  /// `CREATE TEMPORARY VIEW "name" (columns…) AS select`: a `@Table` type over a query.
  ///
  /// ```swift
  /// @Table @Selection
  /// struct ReminderWithList { let reminderTitle: String; let remindersListTitle: String }
  /// try ReminderWithList.createTemporaryView(
  ///   as: Reminder.join(RemindersList.all) { $0.remindersListID.eq($1.id) }
  ///     .select { ReminderWithList.Columns(reminderTitle: $0.title, remindersListTitle: $1.title) }
  /// ).execute(db)
  /// ```
  public static func createTemporaryView(
    ifNotExists: Bool = false, as select: some Statement<Self>
  ) -> TemporaryView<Self> {
    let names = columnList(TableColumns.allColumns.map(\.name))
    return TemporaryView(
      query: QueryFragment(
        raw: "CREATE TEMPORARY VIEW " + (ifNotExists ? "IF NOT EXISTS " : "")
          + SQLNaming.quote(tableName) + " " + names.sql + " AS " + select.query.inlinedSQL))
  }
}

extension TableDefinition {
  /// The row's `rowid`: `"reminders"."rowid"`, or under the table's alias.
  public var rowid: SQLQueryExpression<Int> {
    SQLQueryExpression(QueryFragment(raw: QueryValue.qualifiedColumn("rowid")))
  }
}

/// The columns of a table under another name: `new` and `old` in a trigger.
/// `new.title` is `"new"."title"`; computed members are renamed the same way.
@dynamicMemberLookup
public struct AliasedColumns<Base: Table>: Sendable {
  let alias: String

  public subscript<Member: QueryExpression>(
    dynamicMember keyPath: KeyPath<Base.TableColumns, Member>
  ) -> SQLQueryExpression<Member.QueryValue> {
    SQLQueryExpression(
      Base.columns[keyPath: keyPath].queryFragment.requalified(Base.tableName, as: alias))
  }

  /// The row's `rowid`.
  public var rowid: SQLQueryExpression<Int> {
    SQLQueryExpression(QueryFragment(raw: SQLNaming.quote(alias) + ".\"rowid\""))
  }
}

extension AliasedColumns where Base.TableColumns: PrimaryKeyedTableDefinition {
  /// The row's primary key.
  public var primaryKey: SQLQueryExpression<Base.TableColumns.PrimaryKey> {
    SQLQueryExpression(Base.columns.primaryKey.queryFragment.requalified(Base.tableName, as: alias))
  }
}

extension QueryFragment {
  /// This SQL with columns of `table` (`"table".`) read from `alias` instead. Bound values
  /// are untouched; only the program's own SQL text is rewritten.
  func requalified(_ table: String, as alias: String) -> QueryFragment {
    let from = SQLNaming.quote(table) + "."
    let to = SQLNaming.quote(alias) + "."
    var result = QueryFragment()
    for segment in segments {
      switch segment {
      case .sql(let text): result.append(raw: text.replacingOccurrences(of: from, with: to))
      case .binding(let value): result += QueryFragment(binding: value)
      }
    }
    return result
  }

  /// The SQL with each bound value written as a literal, for the definitions SQLite takes no
  /// parameters in (triggers, views).
  var inlinedSQL: String {
    segments.map { segment in
      switch segment {
      case .sql(let text): text
      case .binding(let value): value.sqlLiteral
      }
    }.joined()
  }
}

extension QueryBinding {
  /// The value as SQL text: `NULL`, `42`, `1.5`, `'it''s'`, `X'00ff'`.
  var sqlLiteral: String {
    switch storage {
    case .null: "NULL"
    case .integer(let value): String(value)
    case .double(let value):
      value.isFinite ? "\(value)" : (value > 0 ? "9e999" : value < 0 ? "-9e999" : "NULL")
    case .text(let value): "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
    case .blob(let data): "X'" + data.map { String(format: "%02x", $0) }.joined() + "'"
    // As the reference writes it: SQL that does not prepare, so the trigger is never made.
    case .invalid(let error): "<invalid: \(error.underlyingError)>"
    }
  }
}
