/// Runs the statements of a `Database` that is not a connection of this process: the seam
/// through which a feature process's `write { db in … }` is carried to the hub.
///
/// User code never sees the difference: `db.execute(sql:)`, the fetch methods, the query
/// builder and savepoints work the same on a `Database` made with
/// `Database(executor:configuration:)`. Statements run in order inside one transaction the
/// executor's other side holds open; `needsRows == false` lets an executor pipeline a
/// statement and report its error with a later one (the transaction fails as a whole anyway).
public protocol RemoteStatementExecutor: AnyObject {
  func execute(sql: String, arguments: StatementArguments, needsRows: Bool) throws
    -> StatementResult
}

/// What one statement gave back: its rows and the facts SQLite reports after it.
public struct StatementResult: Hashable, Sendable {
  public var columnNames: [String]
  public var rows: [[DatabaseValue]]
  /// Rows changed by the statement (`sqlite3_changes`).
  public var changesCount: Int
  /// The last inserted rowid of the connection after the statement.
  public var lastInsertedRowID: Int64

  public init(
    columnNames: [String] = [], rows: [[DatabaseValue]] = [], changesCount: Int = 0,
    lastInsertedRowID: Int64 = 0
  ) {
    self.columnNames = columnNames
    self.rows = rows
    self.changesCount = changesCount
    self.lastInsertedRowID = lastInsertedRowID
  }
}
