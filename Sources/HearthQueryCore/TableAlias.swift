import HearthNaming

/// A name a table goes by in one query, so that a query can hold the same table twice (a
/// self join, a subquery on its outer query's table).
///
/// ```swift
/// enum Referrer: AliasName {}
/// User.leftJoin(User.as(Referrer.self).all) { $0.referrerID == $1.id }
///   .select { ($0.name, $1.name) }
/// // SELECT "users"."name", "referrers"."name" FROM "users"
/// // LEFT JOIN "users" AS "referrers" ON ("users"."referrerID" = "referrers"."id")
/// ```
public protocol AliasName: Sendable {
  /// The alias in SQL: by default the type's name in lower camel case, plural, as a table's.
  static var aliasName: String { get }
}

extension AliasName {
  public static var aliasName: String {
    SQLNaming.tableName(forTypeName: String(describing: Self.self))
  }
}

extension Table {
  /// This table under another name: `User.as(Referrer.self)` is a table whose columns
  /// render as `"referrers"."name"` and whose `FROM` or `JOIN` is `"users" AS "referrers"`.
  public static func `as`<Name: AliasName>(_ name: Name.Type) -> TableAlias<Self, Name>.Type {
    TableAlias.self
  }
}

/// A row of `Base` read under the alias `Name`. Its properties are `Base`'s (`row.name`),
/// and `base` is the row itself.
@dynamicMemberLookup
public struct TableAlias<Base: Table, Name: AliasName>: Table {
  public var base: Base

  public init(_ base: Base) { self.base = base }

  /// A row read under an alias is a row of `Base` to the program: what a select of it gives,
  /// what a `@Selection` field or a function argument stored through it holds.
  public typealias QueryOutput = Base.QueryOutput
  public init(queryOutput: Base.QueryOutput) { base = Base(queryOutput: queryOutput) }
  public var queryOutput: Base.QueryOutput { base.queryOutput }

  public subscript<Value>(dynamicMember keyPath: KeyPath<Base, Value>) -> Value {
    base[keyPath: keyPath]
  }

  public static var columns: TableColumns { TableColumns() }
  public static var tableName: String { Base.tableName }
  public static var tableAlias: String? { Name.aliasName }
  public static var schemaName: String? { Base.schemaName }
  public static var tableFragment: QueryFragment { Base.tableFragment }
  public static var _columnWidth: Int { Base._columnWidth }

  /// The conditions of `Base`'s default scope, under the alias: `Note.as(N.self)` sees the
  /// rows `Note` sees.
  public static var all: Where<TableAlias> {
    Where(
      predicates: Base.all._scopePredicates.map {
        $0.requalified(Base.tableName, as: Name.aliasName)
      }, isUnscoped: false)
  }

  public init(decoder: inout QueryRowDecoder) throws {
    base = try Base(decoder: &decoder)
  }

  /// The columns of `Base`, qualified by the alias.
  @dynamicMemberLookup
  public struct TableColumns: TableDefinition {
    public typealias QueryValue = TableAlias

    public static var allColumns: [any TableColumnExpression<TableAlias>] {
      Base.TableColumns.allColumns.map { _AliasedColumn(base: $0) }
    }

    public subscript<Value>(
      dynamicMember keyPath: KeyPath<Base.TableColumns, TableColumn<Base, Value>>
    ) -> TableColumn<TableAlias, Value> {
      let column = Base.columns[keyPath: keyPath]
      return TableColumn(column.name, keyPath: _GroupPath(\TableAlias.base, column.keyPath))
    }
  }
}

extension TableAlias: Equatable where Base: Equatable {}
extension TableAlias: Hashable where Base: Hashable {}

/// A row under an alias is coded as the row itself (as `jsonGroupArray` of an aliased
/// outer join's rows decodes it).
extension TableAlias: Codable where Base: Codable {
  public init(from decoder: any Decoder) throws { base = try Base(from: decoder) }
  public func encode(to encoder: any Encoder) throws { try base.encode(to: encoder) }
}

extension TableAlias: PrimaryKeyedTable where Base: PrimaryKeyedTable {
  public typealias Draft = Base.Draft
}

extension TableAlias.TableColumns: PrimaryKeyedTableDefinition
where Base.TableColumns: PrimaryKeyedTableDefinition {
  public typealias PrimaryKey = Base.TableColumns.PrimaryKey

  public var primaryKey: _AliasedPrimaryKey<Base, Name> {
    _AliasedPrimaryKey(base: Base.columns.primaryKey)
  }
}

/// The primary key of `Base` under the alias: its columns qualified by the alias.
public struct _AliasedPrimaryKey<Base: Table, Name: AliasName>: _PrimaryKeyColumns
where Base.TableColumns: PrimaryKeyedTableDefinition {
  public typealias Root = TableAlias<Base, Name>
  public typealias Value = Base.TableColumns.PrimaryKey
  public typealias QueryValue = Value
  let base: Base.TableColumns.PrimaryColumn

  public var queryFragment: QueryFragment {
    _keyColumnNames.map { QueryFragment(raw: Root.qualifiedColumn($0)) }.joined()
  }
  public var _keyColumnNames: [String] { base._keyColumnNames }
  public func _key(for row: Root) -> Value { base._key(for: row.base) }
  public func _keyBindings(of key: Value) -> [QueryBinding] { base._keyBindings(of: key) }
}

/// A column of `Base` under the alias, for code that walks all columns.
struct _AliasedColumn<Base: Table, Name: AliasName>: TableColumnExpression {
  typealias Root = TableAlias<Base, Name>
  let base: any TableColumnExpression<Base>

  var name: String { base.name }
  var queryFragment: QueryFragment {
    // In the RETURNING clause of a write through the alias, the column's name alone.
    if unqualifiedTable == Root.qualifier {
      return $unqualifiedTable.withValue(Base.qualifier) { base.queryFragment }
    }
    return base.queryFragment.requalified(Base.tableName, as: Name.aliasName)
  }
  var _keyPath: AnyKeyPath { base._keyPath }
  var _jsonValue: QueryFragment {
    base._jsonValue.requalified(Base.tableName, as: Name.aliasName)
  }
  func _binding(for row: Root) -> QueryBinding { base._binding(for: row.base) }
}

// A select named after its clauses: `jsonEach().where { … }.as(Element.self)`,
// `Trip.join(…).select { … }.as(Outer.self)`. The table it reads goes by the alias, and every
// clause written so far names the alias in place of the table.
extension Select {
  /// This select of whole rows, reading its table under `name`: a table-valued function so
  /// named can be joined twice (`JOIN json_each(…) AS "firsts"`).
  public func `as`<Name: AliasName>(_ name: Name.Type)
    -> Select<TableAlias<From, Name>, TableAlias<From, Name>, Joins>
  where Columns == From {
    Select<TableAlias<From, Name>, TableAlias<From, Name>, Joins>(
      clauses: aliasedClauses(Name.self), decode: { try TableAlias(decoder: &$0) })
  }

  /// This select of a table under one alias, under another instead:
  /// `Reminder.as(R1.self).find(1).as(R2.self)` reads `"reminders" AS "r2s"`.
  public func `as`<Base, Old, Name: AliasName>(_ name: Name.Type)
    -> Select<TableAlias<Base, Name>, TableAlias<Base, Name>, Joins>
  where Columns == From, From == TableAlias<Base, Old> {
    Select<TableAlias<Base, Name>, TableAlias<Base, Name>, Joins>(
      clauses: aliasedClauses(Name.self), decode: { try TableAlias(decoder: &$0) })
  }

  /// This select, reading its table under `name`.
  @_disfavoredOverload
  public func `as`<Name: AliasName>(_ name: Name.Type) -> Select<
    Columns, TableAlias<From, Name>, Joins
  > {
    Select<Columns, TableAlias<From, Name>, Joins>(
      clauses: aliasedClauses(Name.self), decode: decode)
  }

  private func aliasedClauses<Name: AliasName>(_ name: Name.Type) -> SelectClauses {
    let table = From.tableAlias ?? From.tableName
    func renamed(_ fragment: QueryFragment) -> QueryFragment {
      fragment.requalified(table, as: Name.aliasName)
    }
    var aliased = clauses
    aliased.columns = clauses.columns.map(renamed)
    aliased.from = clauses.from.map {
      renamed($0) + QueryFragment(raw: " AS " + SQLNaming.quote(Name.aliasName))
    }
    aliased.joins = clauses.joins.map(renamed)
    aliased.joinedTableColumns = clauses.joinedTableColumns.map(renamed)
    aliased.wheres = clauses.wheres.map(renamed)
    aliased.groups = clauses.groups.map(renamed)
    aliased.havings = clauses.havings.map(renamed)
    aliased.orders = clauses.orders.map(renamed)
    aliased.limit = clauses.limit.map(renamed)
    aliased.offset = clauses.offset.map(renamed)
    return aliased
  }
}

extension Where {
  /// These rows, reading their table under `name` (see `Select.as`).
  public func `as`<Name: AliasName>(_ name: Name.Type)
    -> Select<TableAlias<From, Name>, TableAlias<From, Name>, ()>
  {
    asSelect().as(name)
  }

  /// These rows of a table under one alias, under another instead.
  public func `as`<Base, Old, Name: AliasName>(_ name: Name.Type)
    -> Select<TableAlias<Base, Name>, TableAlias<Base, Name>, ()>
  where From == TableAlias<Base, Old> {
    asSelect().as(name)
  }
}
