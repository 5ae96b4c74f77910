import HearthNaming

// `ON CONFLICT … DO UPDATE`, spelled as the reference spells it: trailing closures after the
// rows of an insert, each form of insert with each of the four.
//
// ```swift
// Reminder.insert { ($0.remindersListID, $0.title) } values: { (1, "Groceries") }
//   onConflict: { $0.title } doUpdate: { $0.title += " (Copy)" }
// Reminder.insert { draft } onConflictDoUpdate: { $0.isCompleted = $1.isCompleted }
// Reminder.insert { draft } onConflict: { $0.id } where: { !$0.isCompleted }
//   doUpdate: { $0.isCompleted = $1.isCompleted } where: { row, _ in row.isFlagged }
// Tag.insert { $0.title } select: { List.select(\.title) } onConflict: { $0.title }
// ```
//
// In `doUpdate`, `$0` is the row already there (its columns read as they are before the
// update) and `$1` the row that was refused, SQLite's `excluded`. The `where` after
// `onConflict` names the partial unique index the conflict is over; the `where` after
// `doUpdate` (or `onConflictDoUpdate`) chooses which conflicting rows are updated. An
// `onConflict` with no `doUpdate` is `DO NOTHING`.

@dynamicMemberLookup
public struct Excluded<Root: Table>: Sendable {
  public subscript<Value>(
    dynamicMember keyPath: KeyPath<Root.TableColumns, TableColumn<Root, Value>>
  )
    -> SQLQueryExpression<Value>
  {
    let name = Root.columns[keyPath: keyPath].name
    return SQLQueryExpression(QueryFragment(raw: "\"excluded\"." + SQLNaming.quote(name)))
  }
}

extension Insert {
  /// This insert with `ON CONFLICT [(targets) [WHERE targetFilter]] DO UPDATE SET … [WHERE
  /// updateFilter]`, or `DO NOTHING` when `updates` assigns nothing.
  func upserting(
    _ targets: [String]?, targetFilter: [QueryFragment] = [],
    _ updates: (inout Updates<Into>, Excluded<Into>) -> Void,
    updateFilter: [QueryFragment] = []
  ) -> Self {
    var assignments = Updates<Into>()
    updates(&assignments, Excluded())
    var clause: QueryFragment = " ON CONFLICT"
    if let targets {
      clause += " " + columnList(targets)
      if !targetFilter.isEmpty { clause += " WHERE " + conjunction(targetFilter) }
    }
    if assignments.assignments.isEmpty {
      clause += " DO NOTHING"
    } else {
      clause += " DO UPDATE SET " + renderedAssignments(assignments.assignments)
      if !updateFilter.isEmpty { clause += " WHERE " + conjunction(updateFilter) }
    }
    var copy = self
    // SQLite cannot tell `INSERT … SELECT … ON CONFLICT` from a join's `ON` without a WHERE.
    if case .select(let columns, let query) = source {
      copy.source = .select(columns: columns, query: "SELECT * FROM (" + query + ") WHERE 1")
    }
    copy.upsert = clause
    return copy
  }

  /// `onConflictDoUpdate:where:`, on any conflict.
  func upserting(
    _ updates: (inout Updates<Into>) -> Void, updateFilter: [QueryFragment]
  ) -> Self {
    upserting(nil, { row, _ in updates(&row) }, updateFilter: updateFilter)
  }

  /// `onConflict:where:doUpdate:where:` with a `doUpdate` of the existing row alone.
  func upserting(
    _ targets: [String], targetFilter: [QueryFragment],
    _ updates: (inout Updates<Into>) -> Void, updateFilter: [QueryFragment]
  ) -> Self {
    upserting(
      targets, targetFilter: targetFilter, { row, _ in updates(&row) }, updateFilter: updateFilter)
  }
}

/// Conditions joined by `AND`.
func conjunction(_ conditions: [QueryFragment]) -> QueryFragment {
  conditions.count == 1
    ? conditions[0] : conditions.map { "(" + $0 + ")" }.joined(separator: " AND ")
}

// swift-format-ignore: AmbiguousTrailingClosureOverload
extension Table {
  /// Inserts rows, with the `where` of an update on conflict but no update: there is nothing
  /// for it to choose, so the insert is the rows alone (as the reference renders it). A
  /// filter that is empty (`where: { if condition { $0.isFlagged } }`) is the usual case.
  public static func insert(
    or conflictResolution: ConflictResolution? = nil,
    @InsertValuesBuilder<Self> _ rows: () -> [Self],
    @PredicateBuilder where updateFilter: (TableColumns) -> [QueryFragment]
  ) -> Insert<Self, Void> {
    insertRows(of: Self.self, rows(), or: conflictResolution)
  }

  /// Inserts rows; on any conflict, updates the row already there (`$0`), where
  /// `where` holds.
  public static func insert(
    or conflictResolution: ConflictResolution? = nil,
    @InsertValuesBuilder<Self> _ rows: () -> [Self],
    onConflictDoUpdate updates: (inout Updates<Self>) -> Void,
    @PredicateBuilder where updateFilter: (TableColumns) -> [QueryFragment] = { _ in [] }
  ) -> Insert<Self, Void> {
    insertRows(of: Self.self, rows(), or: conflictResolution).upserting(
      updates, updateFilter: updateFilter(Self.columns))
  }

  /// Inserts rows; on any conflict, updates the row already there (`$0`) from the
  /// refused one (`$1`), where `where` holds.
  public static func insert(
    or conflictResolution: ConflictResolution? = nil,
    @InsertValuesBuilder<Self> _ rows: () -> [Self],
    onConflictDoUpdate updates: (inout Updates<Self>, Excluded<Self>) -> Void,
    @PredicateBuilder where updateFilter: (TableColumns, Excluded<Self>) -> [QueryFragment] = {
      _, _ in []
    }
  ) -> Insert<Self, Void> {
    insertRows(of: Self.self, rows(), or: conflictResolution).upserting(
      nil, updates, updateFilter: updateFilter(Self.columns, Excluded()))
  }

  /// Inserts rows; on a conflict over `targets` (a unique index's columns, and the
  /// `where` of a partial one), updates the row already there, or does nothing.
  public static func insert<each T: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    @InsertValuesBuilder<Self> _ rows: () -> [Self],
    onConflict targets: (TableColumns) -> (repeat TableColumn<Self, each T>),
    @PredicateBuilder where targetFilter: (TableColumns) -> [QueryFragment] = { _ in [] },
    doUpdate updates: (inout Updates<Self>) -> Void = { _ in },
    @PredicateBuilder where updateFilter: (TableColumns) -> [QueryFragment] = { _ in [] }
  ) -> Insert<Self, Void> {
    insertRows(of: Self.self, rows(), or: conflictResolution).upserting(
      columnNames(repeat each targets(Self.columns)), targetFilter: targetFilter(Self.columns),
      updates, updateFilter: updateFilter(Self.columns))
  }

  /// Inserts rows; on a conflict over `targets`, updates the row already there from the
  /// refused one (`$1`).
  public static func insert<each T: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    @InsertValuesBuilder<Self> _ rows: () -> [Self],
    onConflict targets: (TableColumns) -> (repeat TableColumn<Self, each T>),
    @PredicateBuilder where targetFilter: (TableColumns) -> [QueryFragment] = { _ in [] },
    doUpdate updates: (inout Updates<Self>, Excluded<Self>) -> Void,
    @PredicateBuilder where updateFilter: (TableColumns, Excluded<Self>) -> [QueryFragment] = {
      _, _ in []
    }
  ) -> Insert<Self, Void> {
    insertRows(of: Self.self, rows(), or: conflictResolution).upserting(
      columnNames(repeat each targets(Self.columns)), targetFilter: targetFilter(Self.columns),
      updates, updateFilter: updateFilter(Self.columns, Excluded()))
  }

  /// Inserts whole rows naming every column (`insert { $0 } values: { … }`); on any conflict, updates the row already there (`$0`), where
  /// `where` holds.
  public static func insert(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> TableColumns,
    @InsertValuesBuilder<Self> values: () -> [Self],
    onConflictDoUpdate updates: (inout Updates<Self>) -> Void,
    @PredicateBuilder where updateFilter: (TableColumns) -> [QueryFragment] = { _ in [] }
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, columns, values: values).upserting(
      updates, updateFilter: updateFilter(Self.columns))
  }

  /// Inserts whole rows naming every column (`insert { $0 } values: { … }`); on any conflict, updates the row already there (`$0`) from the
  /// refused one (`$1`), where `where` holds.
  public static func insert(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> TableColumns,
    @InsertValuesBuilder<Self> values: () -> [Self],
    onConflictDoUpdate updates: (inout Updates<Self>, Excluded<Self>) -> Void,
    @PredicateBuilder where updateFilter: (TableColumns, Excluded<Self>) -> [QueryFragment] = {
      _, _ in []
    }
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, columns, values: values).upserting(
      nil, updates, updateFilter: updateFilter(Self.columns, Excluded()))
  }

  /// Inserts whole rows naming every column (`insert { $0 } values: { … }`); on a conflict over `targets` (a unique index's columns, and the
  /// `where` of a partial one), updates the row already there, or does nothing.
  public static func insert<each T: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> TableColumns,
    @InsertValuesBuilder<Self> values: () -> [Self],
    onConflict targets: (TableColumns) -> (repeat TableColumn<Self, each T>),
    @PredicateBuilder where targetFilter: (TableColumns) -> [QueryFragment] = { _ in [] },
    doUpdate updates: (inout Updates<Self>) -> Void = { _ in },
    @PredicateBuilder where updateFilter: (TableColumns) -> [QueryFragment] = { _ in [] }
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, columns, values: values).upserting(
      columnNames(repeat each targets(Self.columns)), targetFilter: targetFilter(Self.columns),
      updates, updateFilter: updateFilter(Self.columns))
  }

  /// Inserts whole rows naming every column (`insert { $0 } values: { … }`); on a conflict over `targets`, updates the row already there from the
  /// refused one (`$1`).
  public static func insert<each T: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> TableColumns,
    @InsertValuesBuilder<Self> values: () -> [Self],
    onConflict targets: (TableColumns) -> (repeat TableColumn<Self, each T>),
    @PredicateBuilder where targetFilter: (TableColumns) -> [QueryFragment] = { _ in [] },
    doUpdate updates: (inout Updates<Self>, Excluded<Self>) -> Void,
    @PredicateBuilder where updateFilter: (TableColumns, Excluded<Self>) -> [QueryFragment] = {
      _, _ in []
    }
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, columns, values: values).upserting(
      columnNames(repeat each targets(Self.columns)), targetFilter: targetFilter(Self.columns),
      updates, updateFilter: updateFilter(Self.columns, Excluded()))
  }

  /// Inserts values for chosen columns; on any conflict, updates the row already there (`$0`), where
  /// `where` holds.
  public static func insert<each V: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> (repeat TableColumn<Self, each V>),
    @InsertColumnValuesBuilder<repeat each V> values: () -> [[QueryFragment]],
    onConflictDoUpdate updates: (inout Updates<Self>) -> Void,
    @PredicateBuilder where updateFilter: (TableColumns) -> [QueryFragment] = { _ in [] }
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, columns, values: values).upserting(
      updates, updateFilter: updateFilter(Self.columns))
  }

  /// Inserts values for chosen columns; on any conflict, updates the row already there (`$0`) from the
  /// refused one (`$1`), where `where` holds.
  public static func insert<each V: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> (repeat TableColumn<Self, each V>),
    @InsertColumnValuesBuilder<repeat each V> values: () -> [[QueryFragment]],
    onConflictDoUpdate updates: (inout Updates<Self>, Excluded<Self>) -> Void,
    @PredicateBuilder where updateFilter: (TableColumns, Excluded<Self>) -> [QueryFragment] = {
      _, _ in []
    }
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, columns, values: values).upserting(
      nil, updates, updateFilter: updateFilter(Self.columns, Excluded()))
  }

  /// Inserts values for chosen columns; on a conflict over `targets` (a unique index's columns, and the
  /// `where` of a partial one), updates the row already there, or does nothing.
  public static func insert<each V: QueryBindable, each T: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> (repeat TableColumn<Self, each V>),
    @InsertColumnValuesBuilder<repeat each V> values: () -> [[QueryFragment]],
    onConflict targets: (TableColumns) -> (repeat TableColumn<Self, each T>),
    @PredicateBuilder where targetFilter: (TableColumns) -> [QueryFragment] = { _ in [] },
    doUpdate updates: (inout Updates<Self>) -> Void = { _ in },
    @PredicateBuilder where updateFilter: (TableColumns) -> [QueryFragment] = { _ in [] }
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, columns, values: values).upserting(
      columnNames(repeat each targets(Self.columns)), targetFilter: targetFilter(Self.columns),
      updates, updateFilter: updateFilter(Self.columns))
  }

  /// Inserts values for chosen columns; on a conflict over `targets`, updates the row already there from the
  /// refused one (`$1`).
  public static func insert<each V: QueryBindable, each T: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> (repeat TableColumn<Self, each V>),
    @InsertColumnValuesBuilder<repeat each V> values: () -> [[QueryFragment]],
    onConflict targets: (TableColumns) -> (repeat TableColumn<Self, each T>),
    @PredicateBuilder where targetFilter: (TableColumns) -> [QueryFragment] = { _ in [] },
    doUpdate updates: (inout Updates<Self>, Excluded<Self>) -> Void,
    @PredicateBuilder where updateFilter: (TableColumns, Excluded<Self>) -> [QueryFragment] = {
      _, _ in []
    }
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, columns, values: values).upserting(
      columnNames(repeat each targets(Self.columns)), targetFilter: targetFilter(Self.columns),
      updates, updateFilter: updateFilter(Self.columns, Excluded()))
  }

  /// Inserts the rows of a select into chosen columns; on any conflict, updates the row already there (`$0`), where
  /// `where` holds.
  public static func insert<each V: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> (repeat TableColumn<Self, each V>),
    select: () -> some Statement,
    onConflictDoUpdate updates: (inout Updates<Self>) -> Void,
    @PredicateBuilder where updateFilter: (TableColumns) -> [QueryFragment] = { _ in [] }
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, columns, select: select).upserting(
      updates, updateFilter: updateFilter(Self.columns))
  }

  /// Inserts the rows of a select into chosen columns; on any conflict, updates the row already there (`$0`) from the
  /// refused one (`$1`), where `where` holds.
  public static func insert<each V: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> (repeat TableColumn<Self, each V>),
    select: () -> some Statement,
    onConflictDoUpdate updates: (inout Updates<Self>, Excluded<Self>) -> Void,
    @PredicateBuilder where updateFilter: (TableColumns, Excluded<Self>) -> [QueryFragment] = {
      _, _ in []
    }
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, columns, select: select).upserting(
      nil, updates, updateFilter: updateFilter(Self.columns, Excluded()))
  }

  /// Inserts the rows of a select into chosen columns; on a conflict over `targets` (a unique index's columns, and the
  /// `where` of a partial one), updates the row already there, or does nothing.
  public static func insert<each V: QueryBindable, each T: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> (repeat TableColumn<Self, each V>),
    select: () -> some Statement,
    onConflict targets: (TableColumns) -> (repeat TableColumn<Self, each T>),
    @PredicateBuilder where targetFilter: (TableColumns) -> [QueryFragment] = { _ in [] },
    doUpdate updates: (inout Updates<Self>) -> Void = { _ in },
    @PredicateBuilder where updateFilter: (TableColumns) -> [QueryFragment] = { _ in [] }
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, columns, select: select).upserting(
      columnNames(repeat each targets(Self.columns)), targetFilter: targetFilter(Self.columns),
      updates, updateFilter: updateFilter(Self.columns))
  }

  /// Inserts the rows of a select into chosen columns; on a conflict over `targets`, updates the row already there from the
  /// refused one (`$1`).
  public static func insert<each V: QueryBindable, each T: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> (repeat TableColumn<Self, each V>),
    select: () -> some Statement,
    onConflict targets: (TableColumns) -> (repeat TableColumn<Self, each T>),
    @PredicateBuilder where targetFilter: (TableColumns) -> [QueryFragment] = { _ in [] },
    doUpdate updates: (inout Updates<Self>, Excluded<Self>) -> Void,
    @PredicateBuilder where updateFilter: (TableColumns, Excluded<Self>) -> [QueryFragment] = {
      _, _ in []
    }
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, columns, select: select).upserting(
      columnNames(repeat each targets(Self.columns)), targetFilter: targetFilter(Self.columns),
      updates, updateFilter: updateFilter(Self.columns, Excluded()))
  }

  /// Inserts the whole rows of a select (`insert { $0 } select: { … }`); on any conflict, updates the row already there (`$0`), where
  /// `where` holds.
  public static func insert(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> TableColumns,
    select: () -> some Statement,
    onConflictDoUpdate updates: (inout Updates<Self>) -> Void,
    @PredicateBuilder where updateFilter: (TableColumns) -> [QueryFragment] = { _ in [] }
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, columns, select: select).upserting(
      updates, updateFilter: updateFilter(Self.columns))
  }

  /// Inserts the whole rows of a select (`insert { $0 } select: { … }`); on any conflict, updates the row already there (`$0`) from the
  /// refused one (`$1`), where `where` holds.
  public static func insert(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> TableColumns,
    select: () -> some Statement,
    onConflictDoUpdate updates: (inout Updates<Self>, Excluded<Self>) -> Void,
    @PredicateBuilder where updateFilter: (TableColumns, Excluded<Self>) -> [QueryFragment] = {
      _, _ in []
    }
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, columns, select: select).upserting(
      nil, updates, updateFilter: updateFilter(Self.columns, Excluded()))
  }

  /// Inserts the whole rows of a select (`insert { $0 } select: { … }`); on a conflict over `targets` (a unique index's columns, and the
  /// `where` of a partial one), updates the row already there, or does nothing.
  public static func insert<each T: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> TableColumns,
    select: () -> some Statement,
    onConflict targets: (TableColumns) -> (repeat TableColumn<Self, each T>),
    @PredicateBuilder where targetFilter: (TableColumns) -> [QueryFragment] = { _ in [] },
    doUpdate updates: (inout Updates<Self>) -> Void = { _ in },
    @PredicateBuilder where updateFilter: (TableColumns) -> [QueryFragment] = { _ in [] }
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, columns, select: select).upserting(
      columnNames(repeat each targets(Self.columns)), targetFilter: targetFilter(Self.columns),
      updates, updateFilter: updateFilter(Self.columns))
  }

  /// Inserts the whole rows of a select (`insert { $0 } select: { … }`); on a conflict over `targets`, updates the row already there from the
  /// refused one (`$1`).
  public static func insert<each T: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> TableColumns,
    select: () -> some Statement,
    onConflict targets: (TableColumns) -> (repeat TableColumn<Self, each T>),
    @PredicateBuilder where targetFilter: (TableColumns) -> [QueryFragment] = { _ in [] },
    doUpdate updates: (inout Updates<Self>, Excluded<Self>) -> Void,
    @PredicateBuilder where updateFilter: (TableColumns, Excluded<Self>) -> [QueryFragment] = {
      _, _ in []
    }
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, columns, select: select).upserting(
      columnNames(repeat each targets(Self.columns)), targetFilter: targetFilter(Self.columns),
      updates, updateFilter: updateFilter(Self.columns, Excluded()))
  }

}

// swift-format-ignore: AmbiguousTrailingClosureOverload
extension PrimaryKeyedTable {
  /// Inserts drafts, with the `where` of an update on conflict but no update: the insert
  /// is the drafts alone, as for rows.
  public static func insert(
    or conflictResolution: ConflictResolution? = nil,
    @InsertValuesBuilder<Draft> _ drafts: () -> [Draft],
    @PredicateBuilder where updateFilter: (TableColumns) -> [QueryFragment]
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, drafts)
  }

  /// Inserts drafts; on any conflict, updates the row already there (`$0`), where
  /// `where` holds.
  public static func insert(
    or conflictResolution: ConflictResolution? = nil,
    @InsertValuesBuilder<Draft> _ drafts: () -> [Draft],
    onConflictDoUpdate updates: (inout Updates<Self>) -> Void,
    @PredicateBuilder where updateFilter: (TableColumns) -> [QueryFragment] = { _ in [] }
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, drafts).upserting(
      updates, updateFilter: updateFilter(Self.columns))
  }

  /// Inserts drafts; on any conflict, updates the row already there (`$0`) from the
  /// refused one (`$1`), where `where` holds.
  public static func insert(
    or conflictResolution: ConflictResolution? = nil,
    @InsertValuesBuilder<Draft> _ drafts: () -> [Draft],
    onConflictDoUpdate updates: (inout Updates<Self>, Excluded<Self>) -> Void,
    @PredicateBuilder where updateFilter: (TableColumns, Excluded<Self>) -> [QueryFragment] = {
      _, _ in []
    }
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, drafts).upserting(
      nil, updates, updateFilter: updateFilter(Self.columns, Excluded()))
  }

  /// Inserts drafts; on a conflict over `targets` (a unique index's columns, and the
  /// `where` of a partial one), updates the row already there, or does nothing.
  public static func insert<each T: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    @InsertValuesBuilder<Draft> _ drafts: () -> [Draft],
    onConflict targets: (TableColumns) -> (repeat TableColumn<Self, each T>),
    @PredicateBuilder where targetFilter: (TableColumns) -> [QueryFragment] = { _ in [] },
    doUpdate updates: (inout Updates<Self>) -> Void = { _ in },
    @PredicateBuilder where updateFilter: (TableColumns) -> [QueryFragment] = { _ in [] }
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, drafts).upserting(
      columnNames(repeat each targets(Self.columns)), targetFilter: targetFilter(Self.columns),
      updates, updateFilter: updateFilter(Self.columns))
  }

  /// Inserts drafts; on a conflict over `targets`, updates the row already there from the
  /// refused one (`$1`).
  public static func insert<each T: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    @InsertValuesBuilder<Draft> _ drafts: () -> [Draft],
    onConflict targets: (TableColumns) -> (repeat TableColumn<Self, each T>),
    @PredicateBuilder where targetFilter: (TableColumns) -> [QueryFragment] = { _ in [] },
    doUpdate updates: (inout Updates<Self>, Excluded<Self>) -> Void,
    @PredicateBuilder where updateFilter: (TableColumns, Excluded<Self>) -> [QueryFragment] = {
      _, _ in []
    }
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, drafts).upserting(
      columnNames(repeat each targets(Self.columns)), targetFilter: targetFilter(Self.columns),
      updates, updateFilter: updateFilter(Self.columns, Excluded()))
  }

}

func renderedAssignments(_ assignments: [(String, QueryFragment)]) -> QueryFragment {
  assignments.map { QueryFragment(raw: SQLNaming.quote($0.0) + " = ") + $0.1 }.joined()
}
