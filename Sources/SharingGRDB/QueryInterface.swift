import HearthNaming

// GRDB's query interface, the part SQLiteData's migration guides show: a column named by
// its text and a request of a table's rows built from it.

/// A column named by its text, as GRDB writes it: `Column("isCompleted")`. Its value's type
/// is not known, so it compares with any value.
public struct Column: QueryExpression, Hashable, Sendable {
  public typealias QueryValue = DatabaseValue
  public let name: String

  public init(_ name: String) { self.name = name }

  public var queryFragment: QueryFragment { QueryFragment(raw: SQLNaming.quote(name)) }

  /// `"name" DESC`.
  public var desc: _OrderingTerm<DatabaseValue> { self.desc() }
  /// `"name" ASC`.
  public var asc: _OrderingTerm<DatabaseValue> { self.asc() }

  /// `"name" = value`.
  public static func == (column: Column, value: some QueryBindable) -> SQLQueryExpression<Bool> {
    SQLQueryExpression("(" + column.queryFragment + " = " + value.queryFragment + ")")
  }
}

/// The rows of a table, filtered and ordered as GRDB's `QueryInterfaceRequest` builds them.
public struct QueryInterfaceRequest<RowDecoder: Table>: Sendable {
  var filters: [QueryFragment] = []
  var orderings: [QueryFragment] = []
  var limitCount: Int?

  /// Rows where the column (or condition) is true.
  public func `where`(_ condition: some QueryExpression) -> Self {
    var copy = self
    copy.filters.append(condition.queryFragment)
    return copy
  }

  /// GRDB's other name for `where`.
  public func filter(_ condition: some QueryExpression) -> Self { self.where(condition) }

  /// Rows in the order of these columns or terms.
  public func order(_ terms: any QueryExpression...) -> Self {
    var copy = self
    copy.orderings += terms.map(\.queryFragment)
    return copy
  }

  /// At most `count` rows.
  public func limit(_ count: Int) -> Self {
    var copy = self
    copy.limitCount = count
    return copy
  }

  /// The same rows as a HearthQuery select, which runs them.
  var select: SQLQueryExpression<RowDecoder> {
    // GRDB knows no default scopes: the table's rows, as they are.
    var sql: QueryFragment = "SELECT " + RowDecoder.columns.queryFragment + " FROM "
    sql += QueryFragment(raw: SQLNaming.quote(RowDecoder.tableName))
    if !filters.isEmpty {
      sql += " WHERE " + filters.map { "(" + $0 + ")" }.joined(separator: " AND ")
    }
    if !orderings.isEmpty { sql += " ORDER BY " + orderings.joined() }
    if let limitCount { sql += " LIMIT " + QueryFragment(binding: limitCount.queryBinding) }
    return SQLQueryExpression(sql)
  }

  /// Every row.
  public func fetchAll(_ db: Database) throws -> [RowDecoder] { try select.fetchAll(db) }

  /// The first row, or nil.
  public func fetchOne(_ db: Database) throws -> RowDecoder? { try limit(1).select.fetchOne(db) }

  /// The number of rows.
  public func fetchCount(_ db: Database) throws -> Int {
    try SQLQueryExpression<Int>("SELECT count(*) FROM (" + select.query + ")").fetchOne(db) ?? 0
  }
}

extension Table {
  /// Every row, as GRDB's `Record.all()` requests them.
  public static func all() -> QueryInterfaceRequest<Self> { QueryInterfaceRequest() }

  /// Rows where the condition holds, as GRDB's `Record.filter(…)`.
  public static func filter(_ condition: some QueryExpression) -> QueryInterfaceRequest<Self> {
    all().filter(condition)
  }
}
