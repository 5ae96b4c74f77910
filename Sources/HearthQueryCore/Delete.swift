/// A `DELETE` of `From`'s rows, returning `Returning` rows (`Void` without `returning`).
///
/// ```swift
/// try Item.where { $0.id.in(ids) }.delete().execute(db)
/// try Item.delete(item).execute(db)
/// ```
public struct Delete<From: Table, Returning>: Statement, Sendable {
  public typealias QueryValue = Returning

  var wheres: [QueryFragment]
  var returningColumns: [QueryFragment] = []
  let decode: @Sendable (inout QueryRowDecoder) throws -> Returning

  public func _decodeRow(_ decoder: inout QueryRowDecoder) throws -> Returning {
    try decode(&decoder)
  }

  /// The statement; a delete of `none` is no statement (it deletes nothing).
  public var query: QueryFragment {
    guard !wheres.contains(.noRows) else { return QueryFragment() }
    var sql: QueryFragment = "DELETE FROM " + From.tableReference
    if !wheres.isEmpty { sql += " WHERE " + wheres.joinedWithAnd() }
    if !returningColumns.isEmpty { sql += " RETURNING " + returningColumns.joined() }
    return sql
  }

  /// Adds a condition on the rows to delete.
  public func `where`(_ predicate: (From.TableColumns) -> some QueryExpression<Bool>) -> Self {
    var copy = self
    copy.wheres.append(predicate(From.columns).queryFragment)
    return copy
  }

  /// Rows of the deleted values.
  public func returning<each C: QueryExpression>(
    _ selection: (From.TableColumns) -> (repeat each C)
  )
    -> Delete<From, (repeat (each C).QueryValue.QueryOutput)>
  where repeat (each C).QueryValue: QueryRepresentable {
    let selected = returningClause(of: From.self) {
      selectedColumns(repeat each selection(From.columns))
    }
    return Delete<From, (repeat (each C).QueryValue.QueryOutput)>(
      wheres: wheres, returningColumns: selected.fragments, decode: selected.decode)
  }
}

extension Delete where Returning == Void {
  init(wheres: [QueryFragment]) {
    self.init(wheres: wheres, decode: { _ in })
  }
}

/// A delete from `From` with no `returning`, as the reference names it.
public typealias DeleteOf<From: Table> = Delete<From, Void>

extension Delete where From: PrimaryKeyedTable {
  /// The row with this primary key, among the rows this deletes: `Reminder.delete().find(2)`.
  public func find(_ id: some QueryExpression<From.TableColumns.PrimaryKey>) -> Self {
    var copy = self
    copy.wheres.append(From.keyCondition(id))
    return copy
  }

  /// The rows with these primary keys, among the rows this deletes.
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

extension PrimaryKeyedTable {
  /// `("t"."id" = ?)`, or `(("t"."a", "t"."b") = (?, ?))`: the row with this primary key.
  static func keyCondition(_ id: some QueryExpression<TableColumns.PrimaryKey>) -> QueryFragment {
    let key = columns.primaryKey
    return "(" + key._rowValue + " = " + key._parenthesized(id.queryFragment) + ")"
  }

  /// `("t"."id" IN (?, ?))`: the rows with these primary keys.
  static func keyCondition(_ ids: some Sequence<TableColumns.PrimaryKey>) -> QueryFragment {
    let key = columns.primaryKey
    let values = ids.map { key._rowValue(of: key._keyBindings(of: $0)) }
    return "(" + key._rowValue + " IN (" + values.joined() + "))"
  }

  /// `("t"."id" IN (SELECT …))`: the rows whose primary key a subquery selects.
  static func keyCondition(_ ids: some Statement<TableColumns.PrimaryKey>) -> QueryFragment {
    "(" + columns.primaryKey._rowValue + " IN " + ids.queryFragment + ")"
  }

  /// The row with the primary key of this value: `Metadata.find(MetadataID(…))` of a key
  /// made of a group.
  static func keyCondition(value id: TableColumns.PrimaryKey) -> QueryFragment {
    let key = columns.primaryKey
    return "(" + key._rowValue + " = " + key._rowValue(of: key._keyBindings(of: id)) + ")"
  }
}
