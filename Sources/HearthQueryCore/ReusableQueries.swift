// A table's static helpers (`static let incomplete = Self.where { … }`, `static let
// withReminderCount = group(by: \.id).join(…).select { … }`) reach on from any query of the
// table, and from its `Draft`, as the reference's do: each adds its clauses to the query it
// follows.
//
// ```swift
// Reminder.where(\.isFlagged).incomplete               // both conditions
// RemindersList.limit(1).select(\.title).withReminderCount
// // SELECT "remindersLists"."title", count("reminders"."id") FROM "remindersLists"
// //   JOIN "reminders" ON … GROUP BY "remindersLists"."id" LIMIT 1
// Reminder.Draft.incomplete.select(\.id)
// ```

extension Where {
  /// A helper's conditions added to these: `Reminder.where(\.isFlagged).incomplete`.
  public subscript(dynamicMember keyPath: KeyPath<From.Type, Where<From>>) -> Where<From> {
    adding(From.self[keyPath: keyPath].predicates)
  }

  /// A helper select of the table with these conditions added.
  public subscript<Columns, Joins>(
    dynamicMember keyPath: KeyPath<From.Type, Select<Columns, From, Joins>>
  ) -> Select<Columns, From, Joins> {
    let helper = From.self[keyPath: keyPath]
    var clauses = helper.clauses
    clauses.wheres = predicates + clauses.wheres
    return Select(clauses: clauses, decode: helper.decode)
  }
}

extension Select {
  /// A helper's conditions added to this select's: `Reminder.select(\.id).incomplete`.
  public subscript(dynamicMember keyPath: KeyPath<From.Type, Where<From>>) -> Self {
    var clauses = clauses
    clauses.wheres += From.self[keyPath: keyPath].predicates
    return Select(clauses: clauses, decode: decode)
  }

  /// A helper select's clauses added to this one's, its columns after these:
  /// `RemindersList.select(\.title).withReminderCount`.
  public subscript<each C, Helper>(
    dynamicMember keyPath: KeyPath<From.Type, Select<Helper, From, ()>>
  ) -> Select<(repeat each C, Helper), From, Joins> where Columns == (repeat each C) {
    let helper = From.self[keyPath: keyPath]
    return Select<(repeat each C, Helper), From, Joins>(
      clauses: clauses.merged(with: helper.clauses, wholeRows: From.columns.queryFragment),
      decode: concatenating(decode, { (try helper.decode(&$0)) }))
  }

  /// A helper select with a join: its clauses, the join among them, added to this one's.
  public subscript<each C, Helper, each J, Joined: Table>(
    dynamicMember keyPath: KeyPath<From.Type, Select<Helper, From, Joined>>
  ) -> Select<(repeat each C, Helper), From, (repeat each J, Joined)>
  where Columns == (repeat each C), Joins == (repeat each J) {
    let helper = From.self[keyPath: keyPath]
    return Select<(repeat each C, Helper), From, (repeat each J, Joined)>(
      clauses: clauses.merged(with: helper.clauses, wholeRows: From.columns.queryFragment),
      decode: concatenating(decode, { (try helper.decode(&$0)) }))
  }
}

extension SelectClauses {
  /// These clauses and then `other`'s: columns, joins, conditions, groups and orders in turn;
  /// `other`'s limit and offset where it has them. Where these select whole rows and `other`
  /// chooses columns, the whole rows (`wholeRows`, this select's tables' columns) come first.
  func merged(with other: SelectClauses, wholeRows: QueryFragment) -> SelectClauses {
    var merged = self
    merged.distinct = distinct || other.distinct
    if columns.isEmpty && !other.columns.isEmpty {
      merged.columns = [wholeRows] + joinedTableColumns
    }
    merged.columns += other.columns
    merged.joins += other.joins
    merged.joinedTableColumns += other.joinedTableColumns
    merged.wheres += other.wheres
    merged.groups += other.groups
    merged.havings += other.havings
    merged.orders += other.orders
    merged.limit = other.limit ?? limit
    merged.offset = other.offset ?? offset
    return merged
  }
}

extension _TableDraft {
  /// A helper of the table the draft is of, as a query of drafts: `Reminder.Draft.incomplete`.
  public static subscript(dynamicMember keyPath: KeyPath<_Row.Type, Where<_Row>>) -> Where<Self> {
    let helper = _Row.self[keyPath: keyPath]
    return Where(predicates: helper.predicates, isUnscoped: helper.isUnscoped)
  }
}

extension Where where From: _TableDraft, From._Row: PrimaryKeyedTable {
  /// The draft with this primary key, among the drafts this matches:
  /// `Reminder.Draft.unscoped.find(2)`.
  public func find(_ id: some QueryExpression<From._Row.TableColumns.PrimaryKey>) -> Self {
    adding([From._Row.keyCondition(id)])
  }

  /// The drafts with these primary keys, among the drafts this matches.
  public func find(_ ids: some Sequence<From._Row.TableColumns.PrimaryKey>) -> Self {
    adding([From._Row.keyCondition(ids)])
  }
}

extension _TableDraft where _Row: PrimaryKeyedTable {
  /// The draft with this primary key: `Reminder.Draft.find(1)`.
  public static func find(_ id: some QueryExpression<_Row.TableColumns.PrimaryKey>)
    -> Where<Self>
  {
    Where<Self>().find(id)
  }

  /// The drafts with these primary keys.
  public static func find(_ ids: some Sequence<_Row.TableColumns.PrimaryKey>) -> Where<Self> {
    Where<Self>().find(ids)
  }
}

extension TableDefinition where QueryValue: _TableDraft {
  /// A column or computed expression of the table the draft is of:
  /// `Reminder.Draft.select(\.isHighPriority)`.
  public subscript<Member>(dynamicMember keyPath: KeyPath<QueryValue._Row.TableColumns, Member>)
    -> Member
  {
    QueryValue._Row.columns[keyPath: keyPath]
  }
}

extension Select {
  /// This select, as the reference names a select made from any statement of it.
  public func asSelect() -> Self { self }

  /// This select unchanged: `Row.all.all` is `Row.all`, as in the reference.
  public var all: Self { self }

  /// This select of every column of every table again, whatever columns it had chosen:
  /// `SELECT "reminders".*, "remindersLists".* …` in effect.
  public func selectStar<each J: Table>() -> Select<(From, repeat each J), From, Joins>
  where Joins == (repeat each J) {
    var clauses = clauses
    clauses.columns = []
    return Select<(From, repeat each J), From, Joins>(clauses: clauses) { decoder in
      (try From(decoder: &decoder), repeat try (each J)(decoder: &decoder))
    }
  }
}
