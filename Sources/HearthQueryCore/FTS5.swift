import HearthNaming

/// A `@Table` over an FTS5 virtual table: its `rowid` and its text columns.
///
/// ```swift
/// @Table
/// struct ReminderText: FTS5 {
///   let rowid: Int
///   let title: String
///   let notes: String
///   let tags: String
/// }
/// ReminderText.where { $0.match("milk") }.order(by: \.rank)
///   .select { ($0.rowid, $0.title.highlight("<b>", "</b>")) }
/// ```
///
/// The virtual table is created in a migration
/// (`CREATE VIRTUAL TABLE "reminderTexts" USING fts5("title", "notes", "tags")`) and kept in
/// step with its source by triggers.
public protocol FTS5: Table {}

/// An FTS5 table under an alias is one still: its auxiliary functions name the table itself.
extension TableAlias: FTS5 where Base: FTS5 {}

extension TableDefinition where QueryValue: FTS5 {
  /// `"table" MATCH pattern`: rows matching an FTS5 query (`milk`, `"oat milk"`, `mil*`,
  /// `title:milk`, `milk NOT eggs`).
  public func match(_ pattern: some QueryExpression<String>) -> SQLQueryExpression<Bool> {
    SQLQueryExpression(
      "(" + QueryFragment(raw: SQLNaming.quote(QueryValue.tableName)) + " MATCH "
        + pattern.queryFragment + ")")
  }

  /// FTS5's `rank` column: lower is a better match (bm25 with equal weights); NULL in a
  /// query without `match`.
  public var rank: SQLQueryExpression<Double?> {
    SQLQueryExpression(QueryFragment(raw: SQLNaming.quote(QueryValue.tableName) + ".\"rank\""))
  }

  /// `bm25(table, weights…)` with weights named by column (`bm25([\.title: 10, \.notes:
  /// 2])`), each other column weighing 1. The weights are matched to the virtual table's
  /// columns by name, in SQLite, whatever order the Swift type declares them in.
  public func bm25(_ weights: KeyValuePairs<PartialKeyPath<Self>, Double>) -> SQLQueryExpression<
    Double
  > {
    let table = QueryValue.tableName
    guard !weights.isEmpty else {
      return SQLQueryExpression(QueryFragment(raw: "bm25(" + SQLNaming.quote(table) + ")"))
    }
    var byName = QueryFragment(raw: "CASE \"name\"")
    for (keyPath, weight) in weights {
      guard let column = self[keyPath: keyPath] as? any TableColumnExpression else {
        preconditionFailure("\(keyPath) is not a column of \(QueryValue.self)")
      }
      byName +=
        " WHEN " + QueryFragment(binding: column.name.queryBinding) + " THEN "
        + QueryFragment(binding: weight.queryBinding)
    }
    byName += " ELSE 1 END"
    // The virtual table's columns: every column but the rowid.
    let count = Self.allColumns.filter { $0.name != "rowid" }.count
    let perColumn = (0..<count).map { offset in
      "(SELECT " + byName + " FROM pragma_table_info(" + QueryFragment(binding: table.queryBinding)
        + QueryFragment(raw: ") WHERE \"cid\" = \(offset))")
    }
    return SQLQueryExpression(
      QueryFragment(raw: "bm25(" + SQLNaming.quote(table) + ", ") + perColumn.joined() + ")")
  }

  /// `bm25(table, weights…)`: the relevance with a weight per column (lower is better).
  public func bm25(_ weights: Double...) -> SQLQueryExpression<Double> {
    SQLQueryExpression(bm25Call(QueryValue.self, weights))
  }
}

extension TableColumn where Root: FTS5, Value == String {
  /// `column MATCH pattern`: matches in this column only.
  public func match(_ pattern: some QueryExpression<String>) -> SQLQueryExpression<Bool> {
    SQLQueryExpression("(" + queryFragment + " MATCH " + pattern.queryFragment + ")")
  }

  /// `highlight(…)`: the column's text with each matched phrase between `open` and `close`.
  public func highlight(_ open: String, _ close: String) -> SQLQueryExpression<String> {
    auxiliary("highlight", [open.queryFragment, close.queryFragment])
  }

  /// `snippet(…)`: a short passage of the column around the matches, at most `tokens` long,
  /// with `ellipsis` where text was cut.
  public func snippet(
    _ open: String, _ close: String, _ ellipsis: String = "…", _ tokens: Int = 10
  ) -> SQLQueryExpression<String> {
    auxiliary(
      "snippet",
      [open.queryFragment, close.queryFragment, ellipsis.queryFragment, tokens.queryFragment])
  }

  /// An FTS5 auxiliary function of this column: it takes the table and the column's index
  /// in the virtual table, found by name in SQLite (the Swift type may declare its columns
  /// in another order).
  private func auxiliary(_ function: String, _ arguments: [QueryFragment])
    -> SQLQueryExpression<String>
  {
    let index =
      "(SELECT \"cid\" FROM pragma_table_info("
      + QueryFragment(binding: Root.tableName.queryBinding)
      + ") WHERE \"name\" = " + QueryFragment(binding: name.queryBinding) + ")"
    let all = [QueryFragment(raw: SQLNaming.quote(Root.tableName)), index] + arguments
    return SQLQueryExpression(QueryFragment(raw: function + "(") + all.joined() + ")")
  }
}

// The FTS5 table on the optional side of an outer join: its ranking and its columns'
// auxiliary functions, NULL where the join found no row.
extension _OptionalColumns where Wrapped: FTS5 {
  /// FTS5's `rank` column of the joined table.
  public var rank: SQLQueryExpression<Double?> {
    SQLQueryExpression(expression: Wrapped.columns.rank)
  }

  /// `bm25(table, weights…)` of the joined table.
  public func bm25(_ weights: Double...) -> SQLQueryExpression<Double?> {
    SQLQueryExpression(bm25Call(Wrapped.self, weights))
  }

  /// A text column of the joined table, with `highlight` and `snippet`.
  public subscript(
    dynamicMember keyPath: KeyPath<Wrapped.TableColumns, TableColumn<Wrapped, String>>
  ) -> _OptionalTextColumn<Wrapped> {
    _OptionalTextColumn(column: Wrapped.columns[keyPath: keyPath])
  }
}

/// A text column of an FTS5 table on the optional side of an outer join: optional text,
/// with the table's auxiliary functions.
public struct _OptionalTextColumn<Root: FTS5>: QueryExpression, Sendable {
  public typealias QueryValue = String?
  let column: TableColumn<Root, String>

  public var queryFragment: QueryFragment { column.queryFragment }

  /// `highlight(…)` of the column: NULL where the join found no row.
  public func highlight(_ open: String, _ close: String) -> SQLQueryExpression<String?> {
    SQLQueryExpression(expression: column.highlight(open, close))
  }

  /// `snippet(…)` of the column: NULL where the join found no row.
  public func snippet(
    _ open: String, _ close: String, _ ellipsis: String = "…", _ tokens: Int = 10
  ) -> SQLQueryExpression<String?> {
    SQLQueryExpression(expression: column.snippet(open, close, ellipsis, tokens))
  }
}

/// `bm25("table", weights…)`.
private func bm25Call(_ table: (some FTS5).Type, _ weights: [Double]) -> QueryFragment {
  let arguments =
    [QueryFragment(raw: SQLNaming.quote(table.tableName))]
    + weights.map { QueryFragment(binding: $0.queryBinding) }
  return QueryFragment(raw: "bm25(") + arguments.joined() + ")"
}
