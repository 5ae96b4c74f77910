import HearthSQLite

/// A whole SQL statement whose rows decode into `QueryValue`: a select, an insert, update or
/// delete (with `returning` rows), or `#sql` text.
///
/// ```swift
/// static func searching(_ text: String) -> some Statement<Reminder> {
///   Reminder.where { $0.title.contains(text) }
/// }
/// ```
///
/// A statement is also an expression, so it can be a subquery: `(SELECT …)`. Statements are
/// values (SQL and how to read its rows), so they cross to other tasks: `@FetchAll` observes
/// them from the database's queue.
public protocol Statement<QueryValue>: QueryExpression, Sendable {
  /// The statement's SQL, without surrounding parentheses.
  var query: QueryFragment { get }

  /// Reads one result row.
  func _decodeRow(_ decoder: inout QueryRowDecoder) throws -> QueryValue
}

extension Statement {
  /// The statement in parentheses, as a subquery; one that is no statement (`none`) stands
  /// as a select of no rows.
  public var queryFragment: QueryFragment {
    let query = self.query
    return query.isEmpty ? "(SELECT NULL WHERE 0)" : "(" + query + ")"
  }

  /// Runs the statement; rows, if any, are discarded.
  public func execute(_ db: Database) throws {
    let query = self.query
    guard !query.isEmpty else { return }
    try db.execute(sql: query.sql, arguments: StatementArguments(query.bindings))
  }

  /// Every row, decoded.
  @inlinable
  public func fetchAll(_ db: Database) throws -> [QueryValue] {
    let query = self.query
    let rows = try Row.fetchCursor(
      db, sql: runnableSQL(query.sql), arguments: StatementArguments(query.bindings))
    var values: [QueryValue] = []
    if rows.isLive {
      // One live row serves every step: no new `Row` per row.
      var decoder = QueryRowDecoder(row: rows.row)
      while try rows.step() {
        decoder.index = 0
        values.append(try _decodeRow(&decoder))
      }
    } else {
      while try rows.step() {
        var decoder = QueryRowDecoder(row: rows.row)
        values.append(try _decodeRow(&decoder))
      }
    }
    return values
  }

  /// The first row, decoded, or nil when there is none.
  @inlinable
  public func fetchOne(_ db: Database) throws -> QueryValue? {
    let cursor = try fetchCursor(db)
    let value = try cursor.next()
    // An insert, update or delete with RETURNING does all of its work (see `finishWrites`).
    try cursor.rows.finishWrites()
    return value
  }

  /// A cursor that decodes rows one at a time.
  @inlinable
  public func fetchCursor(_ db: Database) throws -> QueryCursor<QueryValue> {
    let query = self.query
    return try QueryCursor(
      rows: Row.fetchCursor(
        db, sql: runnableSQL(query.sql), arguments: StatementArguments(query.bindings)),
      decode: _decodeRow)
  }
}

/// The SQL to run: a statement that renders to nothing (an insert of no rows) runs as a
/// select of no rows.
@usableFromInline func runnableSQL(_ sql: String) -> String {
  sql.isEmpty ? "SELECT NULL WHERE 0" : sql
}

/// Decodes the rows of a statement one at a time. Valid inside the closure that made it.
public final class QueryCursor<Element> {
  @usableFromInline let rows: RowCursor
  @usableFromInline let decode: (inout QueryRowDecoder) throws -> Element

  @usableFromInline
  init(rows: RowCursor, decode: @escaping (inout QueryRowDecoder) throws -> Element) {
    self.rows = rows
    self.decode = decode
  }

  /// The next decoded row, or nil at the end.
  @inlinable
  public func next() throws -> Element? {
    guard let row = try rows.next() else { return nil }
    var decoder = QueryRowDecoder(row: row)
    return try decode(&decoder)
  }
}

extension SQLQueryExpression where QueryValue == Void {
  /// Runs SQL that returns nothing: `try #sql("CREATE TABLE …").execute(db)`. The text may
  /// hold several statements; interpolated values bind in order across them.
  public func execute(_ db: Database) throws {
    try db.execute(sql: queryFragment.sql, arguments: StatementArguments(queryFragment.bindings))
  }
}

extension SQLQueryExpression: Statement {
  public var query: QueryFragment { queryFragment }

  /// `#sql` rows decode through the declared type, checked at run time.
  public func _decodeRow(_ decoder: inout QueryRowDecoder) throws -> QueryValue {
    if let decodeTuple { return try decodeTuple(&decoder) }
    if QueryValue.self == Void.self { return () as! QueryValue }
    guard let type = QueryValue.self as? any QueryDecodable.Type else {
      throw QueryDecodingError(
        type: "\(QueryValue.self)", value: "a row",
        reason: "the type of a #sql statement must be QueryDecodable to fetch it")
    }
    return try type.init(decoder: &decoder) as! QueryValue
  }
}

/// The SQL of each selected expression, and the decoder of the rows they make: what
/// `select { … }` and `returning { … }` share.
func selectedColumns<each C: QueryExpression>(_ columns: repeat each C) -> (
  fragments: [QueryFragment],
  decode: @Sendable (inout QueryRowDecoder) throws -> (repeat (each C).QueryValue.QueryOutput)
) where repeat (each C).QueryValue: QueryRepresentable {
  (
    queryFragments(repeat each columns),
    { decoder in (repeat try decoder.decode((each C).QueryValue.self)) }
  )
}

extension Database {
  /// Runs SQL written with its values interpolated, each bound as a parameter (GRDB's
  /// `execute(literal:)`): `try db.execute(literal: "INSERT INTO notes (date) VALUES (\(now))")`.
  public func execute(literal sql: QueryFragment) throws {
    try execute(sql: sql.sql, arguments: StatementArguments(sql.bindings))
  }
}
