// The reference's names for types its users meet in signatures (what an aggregate, `??` or
// a group column returns), for code that spells them out: each is the Hearth type that plays
// the part.

/// What an aggregate function gives: `$0.id.count()`, `$0.title.groupConcat()`.
public typealias AggregateFunctionExpression<QueryValue> = SQLQueryExpression<QueryValue>

/// What `??` gives: `coalesce(a, b)`.
public typealias CoalesceFunction<QueryValue> = SQLQueryExpression<QueryValue>

/// The columns of an optional group (`let parent: ParentID?`) or of an enum group's case
/// whose value is a group of its own (`$0.kind.image`), all NULL when absent.
public typealias OptionalColumnGroup<Root: Table, Values: _ColumnGroup> = _CaseColumnGroup<
  Root, Values
>

/// The column that stores one case of an enum group (`$0.kind.note`): NULL when the row is
/// of another case.
public typealias CaseColumn<Root: Table, Payload: QueryBindable> = TableColumn<Root, Payload?>

/// An expression of a whole row's columns, as `@Table` writes them for each table.
public typealias TableExpression = TableDefinition
