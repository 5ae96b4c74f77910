// Joins: `join`, `leftJoin`, `rightJoin`, `fullJoin`. Each adds a table to a select; the
// closures that follow take its columns as the next `$n`. A side that an outer join can
// leave without a match is `Optional`: its columns read as optional values and its rows
// decode as nil.
//
// The joined tables are a tuple type (`Joins`), not a pack of the type itself: the type
// checker follows chained calls (`.join(…).join(…).select { … }`) through a tuple, and not
// through a variadic generic type.

extension Select {
  /// `JOIN other ON constraint`: rows of both tables where the constraint holds.
  ///
  /// ```swift
  /// Reminder
  ///   .join(RemindersList.all) { $0.remindersListID.eq($1.id) }
  ///   .select { ($0.title, $1.title) }
  /// ```
  ///
  /// `other` is a table's rows, `Team.all` or `Team.where { … }`: its conditions join the
  /// `WHERE` clause. A select whose columns were chosen before the join keeps them (see
  /// below).
  public func join<each J: Table, F: Table>(
    _ other: Where<F>,
    on constraint: ((From.TableColumns, repeat (each J).TableColumns, F.TableColumns))
      -> some QueryExpression<Bool>
  ) -> Select<(From, repeat each J, F), From, (repeat each J, F)>
  where Joins == (repeat each J) {
    let on = constraint((From.columns, repeat (each J).columns, F.columns)).queryFragment
    return Select<(From, repeat each J, F), From, (repeat each J, F)>(
      clauses: clauses.adding(F.self, other.scopedPredicates, kind: "JOIN", on: on),
      decode: { decoder in
        (
          try From(decoder: &decoder), repeat try (each J)(decoder: &decoder),
          try F(decoder: &decoder)
        )
      })
  }

  /// `LEFT JOIN other ON constraint`: every row of this select, with the matching rows of
  /// `other` or, without a match, nil.
  ///
  /// ```swift
  /// Sport
  ///   .group(by: \.id)
  ///   .leftJoin(Team.all) { $0.id.eq($1.sportID) }
  ///   .select { ($0, $1.count()) }
  /// ```
  public func leftJoin<each J: Table, F: Table>(
    _ other: Where<F>,
    on constraint: ((From.TableColumns, repeat (each J).TableColumns, F?.TableColumns))
      -> some QueryExpression<Bool>
  ) -> Select<(From, repeat each J, F?), From, (repeat each J, F?)>
  where Joins == (repeat each J) {
    let on = constraint((From.columns, repeat (each J).columns, F?.columns)).queryFragment
    return Select<(From, repeat each J, F?), From, (repeat each J, F?)>(
      clauses: clauses.adding(F.self, other.scopedPredicates, kind: "LEFT JOIN", on: on),
      decode: { decoder in
        (
          try From(decoder: &decoder), repeat try (each J)(decoder: &decoder),
          try F?(decoder: &decoder)
        )
      })
  }

  /// `RIGHT JOIN other ON constraint`: every row of `other`, with the matching rows of the
  /// tables before it or, without a match, nil for each.
  public func rightJoin<each J: Table, F: Table>(
    _ other: Where<F>,
    on constraint: ((From?.TableColumns, repeat (each J)?.TableColumns, F.TableColumns))
      -> some QueryExpression<Bool>
  ) -> Select<(From?, repeat (each J)?, F), From?, (repeat (each J)?, F)>
  where Joins == (repeat each J) {
    let on = constraint((From?.columns, repeat (each J)?.columns, F.columns)).queryFragment
    return Select<(From?, repeat (each J)?, F), From?, (repeat (each J)?, F)>(
      clauses: clauses.adding(F.self, other.scopedPredicates, kind: "RIGHT JOIN", on: on),
      decode: { decoder in
        (
          try From?(decoder: &decoder), repeat try (each J)?(decoder: &decoder),
          try F(decoder: &decoder)
        )
      })
  }

  /// `FULL JOIN other ON constraint`: every row of both sides, matched where the constraint
  /// holds and nil on the side without a match.
  public func fullJoin<each J: Table, F: Table>(
    _ other: Where<F>,
    on constraint: ((From?.TableColumns, repeat (each J)?.TableColumns, F?.TableColumns))
      -> some QueryExpression<Bool>
  ) -> Select<(From?, repeat (each J)?, F?), From?, (repeat (each J)?, F?)>
  where Joins == (repeat each J) {
    let on = constraint((From?.columns, repeat (each J)?.columns, F?.columns)).queryFragment
    return Select<(From?, repeat (each J)?, F?), From?, (repeat (each J)?, F?)>(
      clauses: clauses.adding(F.self, other.scopedPredicates, kind: "FULL JOIN", on: on),
      decode: { decoder in
        (
          try From?(decoder: &decoder), repeat try (each J)?(decoder: &decoder),
          try F?(decoder: &decoder)
        )
      })
  }
}

// A select whose columns were chosen keeps them through a later join, as the reference's
// does: the joined table is there for the `ON` and the clauses after it.
//
// ```swift
// Employee
//   .select { Report.Columns(id: $0.id, name: $0.name) }
//   .join(Report.all) { $0.bossID.is($1.id) }        // rows of Report
// ```
extension Select {
  /// `JOIN other ON constraint`, keeping the columns chosen so far.
  @_disfavoredOverload
  public func join<each J: Table, F: Table>(
    _ other: Where<F>,
    on constraint: ((From.TableColumns, repeat (each J).TableColumns, F.TableColumns))
      -> some QueryExpression<Bool>
  ) -> Select<Columns, From, (repeat each J, F)>
  where Joins == (repeat each J) {
    let on = constraint((From.columns, repeat (each J).columns, F.columns)).queryFragment
    return keepingColumns(clauses.adding(F.self, other.scopedPredicates, kind: "JOIN", on: on))
  }

  /// `LEFT JOIN other ON constraint`, keeping the columns chosen so far.
  @_disfavoredOverload
  public func leftJoin<each J: Table, F: Table>(
    _ other: Where<F>,
    on constraint: ((From.TableColumns, repeat (each J).TableColumns, F?.TableColumns))
      -> some QueryExpression<Bool>
  ) -> Select<Columns, From, (repeat each J, F?)>
  where Joins == (repeat each J) {
    let on = constraint((From.columns, repeat (each J).columns, F?.columns)).queryFragment
    return keepingColumns(
      clauses.adding(F.self, other.scopedPredicates, kind: "LEFT JOIN", on: on))
  }

  private func keepingColumns<NewJoins>(_ joined: SelectClauses) -> Select<
    Columns, From, NewJoins
  > {
    var joined = joined
    joined.columns = clauses.columns
    return Select<Columns, From, NewJoins>(clauses: joined, decode: decode)
  }
}

extension _ColumnSelecting {
  /// `JOIN` a select of columns to a select of columns: the rows of both where the
  /// constraint holds, with the columns of each, in order, and the joined select's conditions
  /// in the `ON` clause.
  ///
  /// ```swift
  /// RemindersList.select(\.title)
  ///   .join(Reminder.select(\.title)) { $0.id == $1.remindersListID }   // (String, String)
  /// ```
  public func join<each S, each J: Table, each T, F: Table>(
    _ other: Select<(repeat each T), F, ()>,
    on constraint: ((From.TableColumns, repeat (each J).TableColumns, F.TableColumns))
      -> some QueryExpression<Bool>
  ) -> Select<(repeat each S, repeat each T), From, (repeat each J, F)>
  where Columns == (repeat each S), Joins == (repeat each J) {
    let select = _select
    let on = constraint((From.columns, repeat (each J).columns, F.columns)).queryFragment
    var clauses = select.clauses.adding(F.self, other.clauses.wheres, kind: "JOIN", on: on)
    clauses.columns = select.clauses.columns + other.clauses.columns
    clauses.orders += other.clauses.orders
    return Select<(repeat each S, repeat each T), From, (repeat each J, F)>(
      clauses: clauses, decode: concatenating(select.decode, other.decode))
  }
}

extension _ColumnSelecting {
  /// `LEFT JOIN` a select of columns to a select of columns: the joined columns read as
  /// optional (NULL where nothing matched).
  ///
  /// ```swift
  /// RemindersList.select(\.title)
  ///   .leftJoin(Reminder.select(\.title)) { $0.id == $1.remindersListID }   // (String, String?)
  /// ```
  public func leftJoin<each S, each J: Table, each T: QueryDecodable, F: Table>(
    _ other: Select<(repeat each T), F, ()>,
    on constraint: ((From.TableColumns, repeat (each J).TableColumns, F?.TableColumns))
      -> some QueryExpression<Bool>
  ) -> Select<(repeat each S, repeat (each T)?), From, (repeat each J, F?)>
  where Columns == (repeat each S), Joins == (repeat each J) {
    let select = _select
    let on = constraint((From.columns, repeat (each J).columns, F?.columns)).queryFragment
    var clauses = select.clauses.adding(F.self, other.clauses.wheres, kind: "LEFT JOIN", on: on)
    clauses.columns = select.clauses.columns + other.clauses.columns
    let decodeFirst = select.decode
    return Select<(repeat each S, repeat (each T)?), From, (repeat each J, F?)>(clauses: clauses) {
      decoder in
      let first = try decodeFirst(&decoder)
      return (repeat each first, repeat try (each T)._decodeOptional(decoder: &decoder))
    }
  }
}

extension Select {
  /// `JOIN` the rows of a table-valued function, as `json_each` gives them: `Profile.join(
  /// Profile.columns.author.jsonEach(\.links)) { _, _ in true }`.
  public func join<each J: Table, F: Table>(
    _ other: Select<F, F, ()>,
    on constraint: ((From.TableColumns, repeat (each J).TableColumns, F.TableColumns))
      -> some QueryExpression<Bool>
  ) -> Select<(From, repeat each J, F), From, (repeat each J, F)>
  where Joins == (repeat each J), Columns == (From, repeat each J) {
    let on = constraint((From.columns, repeat (each J).columns, F.columns)).queryFragment
    let clauses = clauses.adding(
      F.self, other.clauses.wheres, kind: "JOIN", on: on, reference: other.clauses.from)
    return Select<(From, repeat each J, F), From, (repeat each J, F)>(clauses: clauses) {
      decoder in
      (
        try From(decoder: &decoder), repeat try (each J)(decoder: &decoder),
        try F(decoder: &decoder)
      )
    }
  }
}

extension Select {
  /// `LEFT JOIN` the rows of a table-valued function: each row of this select, with nil
  /// where the function gives no row (`json_each` of an empty or NULL document).
  public func leftJoin<each J: Table, F: Table>(
    _ other: Select<F, F, ()>,
    on constraint: ((From.TableColumns, repeat (each J).TableColumns, F?.TableColumns))
      -> some QueryExpression<Bool>
  ) -> Select<(From, repeat each J, F?), From, (repeat each J, F?)>
  where Joins == (repeat each J), Columns == (From, repeat each J) {
    let on = constraint((From.columns, repeat (each J).columns, F?.columns)).queryFragment
    let clauses = clauses.adding(
      F.self, other.clauses.wheres, kind: "LEFT JOIN", on: on, reference: other.clauses.from)
    return Select<(From, repeat each J, F?), From, (repeat each J, F?)>(clauses: clauses) {
      decoder in
      (
        try From(decoder: &decoder), repeat try (each J)(decoder: &decoder),
        try F?(decoder: &decoder)
      )
    }
  }
}

extension SelectClauses {
  /// These clauses with `table` joined. Its conditions join this select's `WHERE`, as the
  /// reference combines joined queries (so an outer join's row that the joined side's
  /// conditions refuse is gone; put a condition in the `ON` closure to keep it).
  func adding<F: Table>(
    _ table: F.Type, _ conditions: [QueryFragment], kind: String, on constraint: QueryFragment,
    reference: QueryFragment? = nil
  ) -> SelectClauses {
    var clauses = self
    clauses.columns = []
    clauses.wheres += conditions
    clauses.joins.append(
      QueryFragment(raw: " \(kind) ") + (reference ?? F.tableReference) + " ON " + constraint)
    clauses.joinedTableColumns.append(F.columns.queryFragment)
    return clauses
  }
}

extension Where {
  /// `JOIN` the rows of a table-valued function (`json_each`) to the rows this matches.
  public func join<F: Table>(
    _ other: Select<F, F, ()>,
    on constraint: (From.TableColumns, F.TableColumns) -> some QueryExpression<Bool>
  ) -> Select<(From, F), From, F> {
    asSelect().join(other, on: constraint)
  }

  /// `LEFT JOIN` the rows of a table-valued function to the rows this matches.
  public func leftJoin<F: Table>(
    _ other: Select<F, F, ()>,
    on constraint: (From.TableColumns, F?.TableColumns) -> some QueryExpression<Bool>
  ) -> Select<(From, F?), From, F?> {
    asSelect().leftJoin(other, on: constraint)
  }

  /// `JOIN other ON constraint`.
  public func join<F: Table>(
    _ other: Where<F>,
    on constraint: (From.TableColumns, F.TableColumns) -> some QueryExpression<Bool>
  ) -> Select<(From, F), From, F> {
    asSelect().join(other, on: constraint)
  }

  /// `LEFT JOIN other ON constraint`.
  public func leftJoin<F: Table>(
    _ other: Where<F>,
    on constraint: (From.TableColumns, F?.TableColumns) -> some QueryExpression<Bool>
  ) -> Select<(From, F?), From, F?> {
    asSelect().leftJoin(other, on: constraint)
  }

  /// `RIGHT JOIN other ON constraint`.
  public func rightJoin<F: Table>(
    _ other: Where<F>,
    on constraint: (From?.TableColumns, F.TableColumns) -> some QueryExpression<Bool>
  ) -> Select<(From?, F), From?, F> {
    asSelect().rightJoin(other, on: constraint)
  }

  /// `FULL JOIN other ON constraint`.
  public func fullJoin<F: Table>(
    _ other: Where<F>,
    on constraint: (From?.TableColumns, F?.TableColumns) -> some QueryExpression<Bool>
  ) -> Select<(From?, F?), From?, F?> {
    asSelect().fullJoin(other, on: constraint)
  }
}

extension Table {
  /// `SELECT … FROM self JOIN` the rows of a table-valued function (`json_each`).
  public static func join<F: Table>(
    _ other: Select<F, F, ()>,
    on constraint: (TableColumns, F.TableColumns) -> some QueryExpression<Bool>
  ) -> Select<(Self, F), Self, F> {
    Where<Self>().asSelect().join(other, on: constraint)
  }

  /// `SELECT … FROM self LEFT JOIN` the rows of a table-valued function (`json_each`).
  public static func leftJoin<F: Table>(
    _ other: Select<F, F, ()>,
    on constraint: (TableColumns, F?.TableColumns) -> some QueryExpression<Bool>
  ) -> Select<(Self, F?), Self, F?> {
    Where<Self>().asSelect().leftJoin(other, on: constraint)
  }

  /// `SELECT … FROM self JOIN other ON constraint`.
  public static func join<F: Table>(
    _ other: Where<F>, on constraint: (TableColumns, F.TableColumns) -> some QueryExpression<Bool>
  ) -> Select<(Self, F), Self, F> {
    Where<Self>().join(other, on: constraint)
  }

  /// `SELECT … FROM self LEFT JOIN other ON constraint`.
  public static func leftJoin<F: Table>(
    _ other: Where<F>, on constraint: (TableColumns, F?.TableColumns) -> some QueryExpression<Bool>
  ) -> Select<(Self, F?), Self, F?> {
    Where<Self>().leftJoin(other, on: constraint)
  }

  /// `SELECT … FROM self RIGHT JOIN other ON constraint`.
  public static func rightJoin<F: Table>(
    _ other: Where<F>,
    on constraint: (Self?.TableColumns, F.TableColumns) -> some QueryExpression<Bool>
  ) -> Select<(Self?, F), Self?, F> {
    Where<Self>().rightJoin(other, on: constraint)
  }

  /// `SELECT … FROM self FULL JOIN other ON constraint`.
  public static func fullJoin<F: Table>(
    _ other: Where<F>,
    on constraint: (Self?.TableColumns, F?.TableColumns) -> some QueryExpression<Bool>
  ) -> Select<(Self?, F?), Self?, F?> {
    Where<Self>().fullJoin(other, on: constraint)
  }
}

// MARK: - Optional tables

extension Optional: Table, PartialSelectStatement, Statement, _JSONKeyed where Wrapped: Table {
  public typealias TableColumns = _OptionalColumns<Wrapped>
  public static var columns: _OptionalColumns<Wrapped> { _OptionalColumns() }
  public static var tableName: String { Wrapped.tableName }
  public static var tableAlias: String? { Wrapped.tableAlias }
  public static var schemaName: String? { Wrapped.schemaName }
  public static var tableFragment: QueryFragment { Wrapped.tableFragment }
}

/// The columns of a table on the optional side of an outer join: each reads as optional.
///
/// ```swift
/// Reminder.leftJoin(RemindersList.all) { $0.remindersListID.eq($1.id) }
///   .select { ($0.title, $1.title) }        // (String, String?)
/// ```
@dynamicMemberLookup
public struct _OptionalColumns<Wrapped: Table>: TableDefinition {
  public typealias QueryValue = Wrapped?

  public static var allColumns: [any TableColumnExpression<Wrapped?>] {
    Wrapped.TableColumns.allColumns.map { _OptionalTableColumn(wrapped: $0) }
  }

  public var queryFragment: QueryFragment { Wrapped.columns.queryFragment }

  /// A column or computed expression of the table, made optional.
  public subscript<Member: QueryExpression>(
    dynamicMember keyPath: KeyPath<Wrapped.TableColumns, Member>
  ) -> SQLQueryExpression<Member.QueryValue?> {
    SQLQueryExpression(expression: Wrapped.columns[keyPath: keyPath])
  }

  /// A column or computed expression that is optional already stays singly optional.
  public subscript<Member: QueryExpression>(
    dynamicMember keyPath: KeyPath<Wrapped.TableColumns, Member>
  ) -> SQLQueryExpression<Member.QueryValue> where Member.QueryValue: _OptionalProtocol {
    SQLQueryExpression(expression: Wrapped.columns[keyPath: keyPath])
  }
}

extension _OptionalColumns where Wrapped.TableColumns: PrimaryKeyedTableDefinition {
  /// The primary key, NULL where the join found no row.
  public var primaryKey: SQLQueryExpression<Wrapped.TableColumns.PrimaryKey?> {
    SQLQueryExpression(expression: Wrapped.columns.primaryKey)
  }

  /// `count(pk)`: the rows the join matched (an unmatched side counts 0, not 1).
  public func count(distinct isDistinct: Bool = false) -> SQLQueryExpression<Int> {
    Wrapped.columns.primaryKey._firstColumn.count(distinct: isDistinct)
  }

  /// `count(pk) FILTER (WHERE condition)`.
  public func count(distinct isDistinct: Bool = false, filter condition: some QueryExpression<Bool>)
    -> SQLQueryExpression<Int>
  {
    Wrapped.columns.primaryKey._firstColumn.count(distinct: isDistinct, filter: condition)
  }
}

/// A column of an optional table: NULL for a nil row.
struct _OptionalTableColumn<Wrapped: Table>: TableColumnExpression {
  typealias Root = Wrapped?
  let wrapped: any TableColumnExpression<Wrapped>

  var name: String { wrapped.name }
  var queryFragment: QueryFragment { wrapped.queryFragment }
  var _keyPath: AnyKeyPath { wrapped._keyPath }
  var _jsonValue: QueryFragment { wrapped._jsonValue }

  func _binding(for row: Wrapped?) -> QueryBinding {
    row.map { wrapped._binding(for: $0) } ?? .null
  }
}
