import HearthNaming

// `ON CONFLICT … DO UPDATE`, spelled as the reference spells it: trailing closures after the
// rows of an insert.
//
// ```swift
// Reminder.insert { ($0.remindersListID, $0.title) } values: { (1, "Groceries") }
//   onConflict: { $0.title } doUpdate: { $0.title += " (Copy)" }
// Reminder.insert { draft } onConflictDoUpdate: { $0.isCompleted = $1.isCompleted }
// ```
//
// In `doUpdate`, `$0` is the row already there (its columns read as they are before the
// update) and `$1` the row that was refused, SQLite's `excluded`.

/// The columns of the row an upsert could not insert: `"excluded"."title"`.
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
  /// This insert with `ON CONFLICT [(targets)] DO UPDATE SET …` (`DO NOTHING` when the
  /// closure assigns nothing).
  func upserting(
    _ targets: [String]?, _ updates: (inout Updates<Into>, Excluded<Into>) -> Void
  ) -> Self {
    var assignments = Updates<Into>()
    updates(&assignments, Excluded())
    var clause: QueryFragment = " ON CONFLICT"
    if let targets { clause += " " + columnList(targets) }
    if assignments.assignments.isEmpty {
      clause += " DO NOTHING"
    } else {
      clause += " DO UPDATE SET " + renderedAssignments(assignments.assignments)
    }
    var copy = self
    // SQLite cannot tell `INSERT … SELECT … ON CONFLICT` from a join's `ON` without a WHERE.
    if case .select(let columns, let query) = source {
      copy.source = .select(columns: columns, query: "SELECT * FROM (" + query + ") WHERE 1")
    }
    copy.upsert = clause
    return copy
  }
}

/// `"a" = …, "b" = …`: every assignment, in order (a column assigned twice keeps both, and
/// SQLite applies the last). What an `UPDATE` and an upsert's `DO UPDATE` set.
func renderedAssignments(_ assignments: [(String, QueryFragment)]) -> QueryFragment {
  assignments.map { QueryFragment(raw: SQLNaming.quote($0.0) + " = ") + $0.1 }.joined()
}

// The four spellings come for each form of insert: on any conflict or on given columns,
// with `$0` alone or `$0` and `$1`.
// swift-format-ignore: AmbiguousTrailingClosureOverload
extension Table {
  /// Inserts values for chosen columns; on a conflict, updates the row already there.
  public static func insert<each V: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> (repeat TableColumn<Self, each V>),
    @InsertValuesBuilder<(repeat (each V).QueryOutput)> values: () -> [(
      repeat (each V).QueryOutput
    )],
    onConflictDoUpdate updates: (inout Updates<Self>) -> Void
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, columns, values: values).upserting(nil) { row, _ in
      updates(&row)
    }
  }

  /// Inserts values for chosen columns; on a conflict, updates the row already there from
  /// the refused one (`$1`).
  public static func insert<each V: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> (repeat TableColumn<Self, each V>),
    @InsertValuesBuilder<(repeat (each V).QueryOutput)> values: () -> [(
      repeat (each V).QueryOutput
    )],
    onConflictDoUpdate updates: (inout Updates<Self>, Excluded<Self>) -> Void
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, columns, values: values).upserting(nil, updates)
  }

  /// Inserts values for chosen columns; on a conflict over `targets` (a unique index's
  /// columns), updates the row already there.
  public static func insert<each V: QueryBindable, each T: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> (repeat TableColumn<Self, each V>),
    @InsertValuesBuilder<(repeat (each V).QueryOutput)> values: () -> [(
      repeat (each V).QueryOutput
    )],
    onConflict targets: (TableColumns) -> (repeat TableColumn<Self, each T>),
    doUpdate updates: (inout Updates<Self>) -> Void = { _ in }
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, columns, values: values).upserting(
      columnNames(repeat each targets(Self.columns))
    ) { row, _ in updates(&row) }
  }

  /// Inserts values for chosen columns; on a conflict over `targets`, updates the row
  /// already there from the refused one (`$1`).
  public static func insert<each V: QueryBindable, each T: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> (repeat TableColumn<Self, each V>),
    @InsertValuesBuilder<(repeat (each V).QueryOutput)> values: () -> [(
      repeat (each V).QueryOutput
    )],
    onConflict targets: (TableColumns) -> (repeat TableColumn<Self, each T>),
    doUpdate updates: (inout Updates<Self>, Excluded<Self>) -> Void
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, columns, values: values).upserting(
      columnNames(repeat each targets(Self.columns)), updates)
  }

  /// Inserts rows; on a conflict, updates the row already there.
  public static func insert(
    or conflictResolution: ConflictResolution? = nil,
    @InsertValuesBuilder<Self> _ rows: () -> [Self],
    onConflictDoUpdate updates: (inout Updates<Self>) -> Void
  ) -> Insert<Self, Void> {
    insertRows(of: Self.self, rows(), or: conflictResolution).upserting(nil) { row, _ in
      updates(&row)
    }
  }

  /// Inserts rows; on a conflict, updates the row already there from the refused one.
  public static func insert(
    or conflictResolution: ConflictResolution? = nil,
    @InsertValuesBuilder<Self> _ rows: () -> [Self],
    onConflictDoUpdate updates: (inout Updates<Self>, Excluded<Self>) -> Void
  ) -> Insert<Self, Void> {
    insertRows(of: Self.self, rows(), or: conflictResolution).upserting(nil, updates)
  }

  /// Inserts rows; on a conflict over `targets`, updates the row already there.
  public static func insert<each T: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    @InsertValuesBuilder<Self> _ rows: () -> [Self],
    onConflict targets: (TableColumns) -> (repeat TableColumn<Self, each T>),
    doUpdate updates: (inout Updates<Self>) -> Void = { _ in }
  ) -> Insert<Self, Void> {
    insertRows(of: Self.self, rows(), or: conflictResolution).upserting(
      columnNames(repeat each targets(Self.columns))
    ) { row, _ in updates(&row) }
  }

  /// Inserts rows; on a conflict over `targets`, updates the row already there from the
  /// refused one.
  public static func insert<each T: QueryBindable>(
    or conflictResolution: ConflictResolution? = nil,
    @InsertValuesBuilder<Self> _ rows: () -> [Self],
    onConflict targets: (TableColumns) -> (repeat TableColumn<Self, each T>),
    doUpdate updates: (inout Updates<Self>, Excluded<Self>) -> Void
  ) -> Insert<Self, Void> {
    insertRows(of: Self.self, rows(), or: conflictResolution).upserting(
      columnNames(repeat each targets(Self.columns)), updates)
  }
}

// swift-format-ignore: AmbiguousTrailingClosureOverload
extension PrimaryKeyedTable {
  /// Inserts drafts; on a conflict, updates the row already there.
  public static func insert(
    or conflictResolution: ConflictResolution? = nil,
    @InsertValuesBuilder<Draft> _ drafts: () -> [Draft],
    onConflictDoUpdate updates: (inout Updates<Self>) -> Void
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, drafts).upserting(nil) { row, _ in updates(&row) }
  }

  /// Inserts drafts; on a conflict, updates the row already there from the refused one.
  public static func insert(
    or conflictResolution: ConflictResolution? = nil,
    @InsertValuesBuilder<Draft> _ drafts: () -> [Draft],
    onConflictDoUpdate updates: (inout Updates<Self>, Excluded<Self>) -> Void
  ) -> Insert<Self, Void> {
    insert(or: conflictResolution, drafts).upserting(nil, updates)
  }
}
