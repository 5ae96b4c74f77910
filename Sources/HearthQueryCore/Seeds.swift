/// Rows to insert, as the statements that insert them: consecutive rows of one table (or
/// drafts of one table) become one multi-row `INSERT`.
///
/// ```swift
/// try db.seed {
///   RemindersList(id: 1, title: "Personal")
///   Reminder(id: 1, remindersListID: 1, title: "Groceries")
///   Reminder.Draft(remindersListID: 1, title: "Haircut")
/// }
/// // or, statement by statement:
/// for insert in Seeds({ … }) { try insert.execute(db) }
/// ```
public struct Seeds: Sequence {
  let seeds: [any Table]

  public init(@SeedsBuilder _ build: () -> [any Table]) {
    seeds = build()
  }

  public func makeIterator() -> Iterator { Iterator(seeds: seeds[...]) }

  /// The inserts, one per run of rows of one type.
  public struct Iterator: IteratorProtocol {
    var seeds: ArraySlice<any Table>

    public mutating func next() -> SQLQueryExpression<Void>? {
      guard let first = seeds.first else { return nil }
      if let draft = type(of: first) as? any _TableDraft.Type,
        let row = draft._rowType as? any PrimaryKeyedTable.Type,
        let drafts = Self.insertDrafts(of: row, from: &seeds)
      {
        return drafts
      }
      let table: any Table.Type = type(of: first)
      return Self.insertRows(of: table, from: &seeds)
    }

    private static func batch<T: Table>(of _: T.Type, from seeds: inout ArraySlice<any Table>)
      -> [T]
    {
      let batch = seeds.prefix { $0 is T }.compactMap { $0 as? T }
      seeds.removeFirst(batch.count)
      return batch
    }

    private static func insertRows<T: Table>(
      of type: T.Type, from seeds: inout ArraySlice<any Table>
    ) -> SQLQueryExpression<Void> {
      let rows = batch(of: type, from: &seeds)
      return SQLQueryExpression(T.insert { rows }.query)
    }

    private static func insertDrafts<T: PrimaryKeyedTable>(
      of _: T.Type, from seeds: inout ArraySlice<any Table>
    ) -> SQLQueryExpression<Void>? {
      guard let first = seeds.first, type(of: first) == T.Draft.self else { return nil }
      let drafts = batch(of: T.Draft.self, from: &seeds)
      return SQLQueryExpression(T.insert { drafts }.query)
    }
  }
}

/// Builds the rows of `Seeds`: rows and drafts of any tables, `if`, `for`.
@resultBuilder
public enum SeedsBuilder {
  public static func buildExpression(_ row: some Table) -> [any Table] { [row] }
  public static func buildExpression(_ rows: [any Table]) -> [any Table] { rows }
  public static func buildBlock(_ components: [any Table]...) -> [any Table] {
    components.flatMap { $0 }
  }
  public static func buildPartialBlock(first: [any Table]) -> [any Table] { first }
  public static func buildPartialBlock(accumulated: [any Table], next: [any Table]) -> [any Table] {
    accumulated + next
  }
  public static func buildArray(_ components: [[any Table]]) -> [any Table] {
    components.flatMap { $0 }
  }
  public static func buildOptional(_ component: [any Table]?) -> [any Table] { component ?? [] }
  public static func buildEither(first component: [any Table]) -> [any Table] { component }
  public static func buildEither(second component: [any Table]) -> [any Table] { component }
  public static func buildLimitedAvailability(_ component: [any Table]) -> [any Table] {
    component
  }
}

extension _TableDraft {
  /// The table this draft is of, for code that holds only the draft's type.
  static var _rowType: any Table.Type { _Row.self }
}

/// The reference's name for a table's draft type.
public typealias TableDraft = _TableDraft
