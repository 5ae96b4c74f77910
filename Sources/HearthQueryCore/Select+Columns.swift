// What a select selects: its columns chosen, added to (selection is incremental), bundled
// with `map`, and rows found by primary key.

// The `select` overloads are meant: a select of whole rows chooses its columns, a select
// of columns adds to them, and each comes in a tuple and a single-expression form.
// swift-format-ignore: AmbiguousTrailingClosureOverload
extension Select {
  /// Selects expressions instead of whole rows: one column, or a tuple.
  ///
  /// ```swift
  /// Reminder.where(\.isFlagged).select { ($0.id, $0.title) }
  /// Reminder.join(RemindersList.all) { $0.remindersListID.eq($1.id) }.select { ($0.title, $1.title) }
  /// ```
  @_disfavoredOverload
  public func select<each J: Table, each C: QueryExpression>(
    _ selection: (From.TableColumns, repeat (each J).TableColumns) -> (repeat each C)
  ) -> Select<(repeat (each C).QueryValue.QueryOutput), From, Joins>
  where
    Joins == (repeat each J), Columns == (From, repeat each J),
    repeat (each C).QueryValue: QueryRepresentable
  {
    let selected = selectedColumns(repeat each selection(From.columns, repeat (each J).columns))
    var clauses = self.clauses
    clauses.columns = selected.fragments
    return Select<(repeat (each C).QueryValue.QueryOutput), From, Joins>(
      clauses: clauses, decode: selected.decode)
  }

  /// Selects one expression. (The tuple form covers this too, but over joined tables the
  /// type checker cannot match a single value to a pack: this overload spares it.)
  public func select<each J: Table, C: QueryExpression>(
    _ selection: (From.TableColumns, repeat (each J).TableColumns) -> C
  ) -> Select<C.QueryValue.QueryOutput, From, Joins>
  where Joins == (repeat each J), Columns == (From, repeat each J), C.QueryValue: QueryRepresentable
  {
    let selected = selectedColumns(selection(From.columns, repeat (each J).columns))
    var clauses = self.clauses
    clauses.columns = selected.fragments
    return Select<C.QueryValue.QueryOutput, From, Joins>(clauses: clauses, decode: selected.decode)
  }

  /// Selects a table's `Columns` as rows of that table: `Tally.Columns(value: …)` selects
  /// rows of `Tally`, also where a `Tally` stands for another type (its `queryOutput`), so
  /// that a common table expression of it, or a union with one of its rows, has its type.
  public func select<each J: Table, C: _GroupColumns>(
    _ selection: (From.TableColumns, repeat (each J).TableColumns) -> C
  ) -> Select<C.QueryValue, From, Joins>
  where Joins == (repeat each J), Columns == (From, repeat each J), C.QueryValue: Table {
    let selected = selectedColumns(selection(From.columns, repeat (each J).columns))
    var clauses = self.clauses
    clauses.columns = selected.fragments
    return Select<C.QueryValue, From, Joins>(clauses: clauses) {
      try C.QueryValue(decoder: &$0)
    }
  }

  /// This select with more columns after its own, decoded after them.
  func adding<each S, each T>(
    _ fragments: [QueryFragment],
    decode decodeMore: @escaping @Sendable (inout QueryRowDecoder) throws -> (repeat each T)
  ) -> Select<(repeat each S, repeat each T), From, Joins> where Columns == (repeat each S) {
    var clauses = self.clauses
    clauses.columns += fragments
    return Select<(repeat each S, repeat each T), From, Joins>(
      clauses: clauses, decode: concatenating(decode, decodeMore))
  }

  /// The selected columns, handed to `transform` as expressions, made into new ones: how a
  /// select built up column by column becomes a `@Selection`.
  ///
  /// ```swift
  /// Reminder.select(\.id).select(\.title).map { _, title in ReminderTitle.Columns(title: title) }
  /// ```
  @_disfavoredOverload
  public func map<each S: QueryRepresentable, each C: QueryExpression>(
    _ transform: (repeat SQLQueryExpression<each S>) -> (repeat each C)
  ) -> Select<(repeat (each C).QueryValue.QueryOutput), From, Joins>
  where Columns == (repeat each S), repeat (each C).QueryValue: QueryRepresentable {
    var columns = clauses.columns.makeIterator()
    func next<Value>(_: Value.Type) -> SQLQueryExpression<Value> {
      SQLQueryExpression(columns.next() ?? "NULL")
    }
    let selected = selectedColumns(repeat each transform(repeat next((each S).self)))
    return replacingColumns(selected.fragments, decode: selected.decode)
  }

  /// The selected columns made into one new expression, such as a `@Selection`'s `Columns`.
  public func map<each S: QueryRepresentable, C: QueryExpression>(
    _ transform: (repeat SQLQueryExpression<each S>) -> C
  ) -> Select<C.QueryValue.QueryOutput, From, Joins>
  where Columns == (repeat each S), C.QueryValue: QueryRepresentable {
    var columns = clauses.columns.makeIterator()
    func next<Value>(_: Value.Type) -> SQLQueryExpression<Value> {
      SQLQueryExpression(columns.next() ?? "NULL")
    }
    let selected = selectedColumns(transform(repeat next((each S).self)))
    return replacingColumns(selected.fragments, decode: selected.decode)
  }

  /// A join whose columns are its tables' rows, mapped to nothing: the select unchanged. In
  /// the reference such a join has chosen no columns yet, and `map {}` keeps it that way; here
  /// its rows are the tables' rows before and after.
  public func map<each J: Table>(_ transform: () -> Void) -> Self
  where Columns == (From, repeat each J), Joins == (repeat each J) {
    transform()
    return self
  }

  func replacingColumns<T>(
    _ fragments: [QueryFragment], decode: @escaping @Sendable (inout QueryRowDecoder) throws -> T
  ) -> Select<T, From, Joins> {
    var clauses = self.clauses
    clauses.columns = fragments
    return Select<T, From, Joins>(clauses: clauses, decode: decode)
  }
}

extension Select where From: PrimaryKeyedTable {
  /// The row with this primary key, among the rows this selects.
  public func find(_ id: some QueryExpression<From.TableColumns.PrimaryKey>) -> Self {
    with { $0.wheres.append(From.keyCondition(id)) }
  }

  /// The rows with these primary keys, among the rows this selects.
  public func find(_ ids: some Sequence<From.TableColumns.PrimaryKey>) -> Self {
    with { $0.wheres.append(From.keyCondition(ids)) }
  }

  /// The rows whose primary key a subquery selects, among the rows this selects:
  /// `find(Reminder.select(\.id))` is `"id" IN (SELECT …)`.
  public func find(_ ids: some Statement<From.TableColumns.PrimaryKey>) -> Self {
    with { $0.wheres.append(From.keyCondition(ids)) }
  }

  /// The row whose primary key, made of a group of columns, is `id`.
  public func find(_ id: From.TableColumns.PrimaryKey) -> Self
  where From.TableColumns.PrimaryKey: _ColumnGroup {
    with { $0.wheres.append(From.keyCondition(value: id)) }
  }
}

extension Select where From: _TableDraft, From._Row: PrimaryKeyedTable {
  /// The draft with this primary key, among the drafts this selects.
  public func find(_ id: some QueryExpression<From._Row.TableColumns.PrimaryKey>) -> Self {
    with { $0.wheres.append(From._Row.keyCondition(id)) }
  }

  /// The drafts with these primary keys, among the drafts this selects.
  public func find(_ ids: some Sequence<From._Row.TableColumns.PrimaryKey>) -> Self {
    with { $0.wheres.append(From._Row.keyCondition(ids)) }
  }
}

/// A select, seen from a protocol extension: the overloads that add columns to a select of
/// columns live there, so that where both they and the ones that choose the columns of a
/// select of whole rows apply (a select of whole rows is a tuple of tables too), the
/// concrete type's ones win.
public protocol _ColumnSelecting<Columns, From, Joins> {
  associatedtype Columns
  associatedtype From: Table
  associatedtype Joins
  var _select: Select<Columns, From, Joins> { get }
}

extension Select: _ColumnSelecting {
  public var _select: Self { self }
}

// swift-format-ignore: AmbiguousTrailingClosureOverload
extension _ColumnSelecting {
  /// Adds expressions to the columns already selected, as the reference does: selection is
  /// incremental.
  ///
  /// ```swift
  /// let q1 = Reminder.select(\.id)      // Int
  /// let q2 = q1.select(\.title)         // (Int, String)
  /// ```
  @_disfavoredOverload
  public func select<each S, each J: Table, each C: QueryExpression>(
    _ selection: (From.TableColumns, repeat (each J).TableColumns) -> (repeat each C)
  ) -> Select<(repeat each S, repeat (each C).QueryValue.QueryOutput), From, Joins>
  where
    Columns == (repeat each S), Joins == (repeat each J),
    repeat (each C).QueryValue: QueryRepresentable
  {
    let selected = selectedColumns(repeat each selection(From.columns, repeat (each J).columns))
    return _select.adding(selected.fragments, decode: selected.decode)
  }

  /// Adds one expression to the columns already selected.
  @_disfavoredOverload
  public func select<each S, each J: Table, C: QueryExpression>(
    _ selection: (From.TableColumns, repeat (each J).TableColumns) -> C
  ) -> Select<(repeat each S, C.QueryValue.QueryOutput), From, Joins>
  where Columns == (repeat each S), Joins == (repeat each J), C.QueryValue: QueryRepresentable {
    let selected = selectedColumns(selection(From.columns, repeat (each J).columns))
    return _select.adding(selected.fragments, decode: selected.decode)
  }

}

/// Reads the columns of `first`, then those of `second`, as one row.
func concatenating<each S, each T>(
  _ first: @escaping @Sendable (inout QueryRowDecoder) throws -> (repeat each S),
  _ second: @escaping @Sendable (inout QueryRowDecoder) throws -> (repeat each T)
) -> @Sendable (inout QueryRowDecoder) throws -> (repeat each S, repeat each T) {
  { decoder in
    let head = try first(&decoder)
    let tail = try second(&decoder)
    return (repeat each head, repeat each tail)
  }
}
