import CSQLite
import Foundation

/// One SQLite connection.
///
/// A `Database` is not thread-safe and deliberately not `Sendable`: code reaches it only
/// inside `read { db in … }` / `write { db in … }` of a `DatabaseQueue` or `DatabasePool`,
/// which own it and serialize every access.
///
/// ```swift
/// try dbQueue.write { db in
///   try db.execute(sql: "INSERT INTO players (name, score) VALUES (?, ?)", arguments: ["Arthur", 100])
///   let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM players")
/// }
/// ```
public final class Database {
  /// The raw connection handle. Only HearthSQLite's own files touch it. Nil exactly when
  /// `remote` is set: every public entry point checks `remote` first, and the paths that
  /// use this handle are unreachable for a remote database.
  let sqliteConnection: OpaquePointer!
  /// Set for a database whose statements run elsewhere (see `RemoteStatementExecutor`).
  let remote: (any RemoteStatementExecutor)?
  /// For a remote database: what the last statement reported.
  var remoteResult = StatementResult()
  /// The configuration the connection was opened with.
  public let configuration: Configuration
  /// The file path, or `":memory:"`.
  public let path: String
  /// A short name for logs and errors (`"writer"`, `"reader.2"`).
  public let description: String

  var statementCache = StatementCache()
  /// Set while a statement is being prepared: the authorizer writes what it sees here.
  var preparingAccess: StatementAccess?
  /// The tables read by statements run inside `recordingReadTables` (a stack, for nesting).
  var readRecorders: [Set<String>] = []
  let changeTracker = ChangeTracker()
  var traceHandler: ((TraceEvent) -> Void)?
  var transactionObservers: [(id: TransactionObserverID, onCommit: (DatabaseChanges) -> Void)] = []
  var nextObserverID = 0
  var savepointCounter = 0
  /// The access policy of `setAuthorizer(_:scope:)`.
  var authorizer: ((DatabaseAction) -> Bool)?
  /// The cache partition of the current authorizer: a statement is reused only under the
  /// policy it was prepared (and authorized) under.
  var authorizerScope = ""

  func cacheKey(_ sql: String) -> StatementCache.Key {
    StatementCache.Key(scope: authorizerScope, sql: sql)
  }
  /// Whether the authorizer's last call was a DROP TABLE (see `authorize`).
  var previousActionWasDrop = false

  /// Whether `DatabaseChanges` name the columns that updates changed
  /// (`TableChanges.updatedColumns`). Off by default: it compares every column of each
  /// updated row before and after. The hub turns it on for its change feed.
  public var recordsUpdatedColumns = false {
    didSet { changeTracker.tracksColumns = recordsUpdatedColumns }
  }

  /// The most changed rows of one table a transaction's `DatabaseChanges` list; past it that
  /// table is reported changed with its rows unknown (`rowIDsAreKnown == false`), and the
  /// memory of its rows is freed at once. Nil (the default): every row is listed. The hub
  /// sets it, so that an import of a million rows costs neither a million-entry set nor a
  /// feed entry of that size.
  public var maximumTrackedRowsPerTable: Int? {
    get { changeTracker.maximumRowsPerTable }
    set { changeTracker.maximumRowsPerTable = newValue }
  }

  /// Tables whose names begin with this prefix (compared byte for byte, so case-sensitively)
  /// are not tracked: their changes are in no `DatabaseChanges` and wake no observer. Nil
  /// (the default): every table is. The hub sets `hearth_` on its writer, whose own
  /// bookkeeping rows (two a transaction) no change event reports.
  public var untrackedTablePrefix: String? {
    didSet {
      // Up to a zero byte, which no table name holds: the hook compares a C string.
      untrackedPrefixBytes = untrackedTablePrefix.map { Array($0.utf8.prefix { $0 != 0 }) } ?? []
    }
  }
  /// `untrackedTablePrefix` as bytes without a zero, for the update hook.
  private(set) var untrackedPrefixBytes: [UInt8] = []

  /// See `setWALCommitHook(_:)`.
  var walCommitHook: ((Int) -> Void)?

  /// Opens a connection. `DatabaseQueue` and `DatabasePool` call this; most code uses them.
  init(path: String, configuration: Configuration, readonly: Bool, description: String) throws {
    var handle: OpaquePointer?
    var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
    flags |= readonly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
    let code = sqlite3_open_v2(path, &handle, flags, nil)
    guard code == SQLITE_OK, let handle else {
      let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      if let handle { sqlite3_close_v2(handle) }
      throw DatabaseError(
        resultCode: ResultCode(rawValue: code), message: "cannot open \(path): \(message)")
    }
    self.sqliteConnection = handle
    remote = nil
    self.configuration = configuration
    self.path = path
    self.description = description
    sqlite3_extended_result_codes(handle, 1)
    installHooks()
    do {
      try setUp(readonly: readonly)
    } catch {
      removeHooks()
      sqlite3_close_v2(handle)
      throw error
    }
  }

  /// A database whose statements `executor` runs elsewhere: what a feature process's
  /// `write` closure receives, its statements carried to the hub.
  public init(
    executor: any RemoteStatementExecutor, configuration: Configuration = Configuration(),
    description: String = "remote"
  ) {
    sqliteConnection = nil
    remote = executor
    self.configuration = configuration
    path = "remote"
    self.description = description
  }

  deinit {
    guard remote == nil else { return }
    statementCache.removeAll()
    removeHooks()
    sqlite3_close_v2(sqliteConnection)
  }

  private func setUp(readonly: Bool) throws {
    applyBusyTimeout()
    if configuration.defensive { hearth_sqlite3_enable_defensive(sqliteConnection) }
    // `uuid()` and the others, on every connection (a schema may name them).
    registerBuiltInFunctions()
    // Checks that the file is a database now, rather than at the first query.
    _ = try Int.fetchOne(self, sql: "SELECT COUNT(*) FROM sqlite_master")
    try execute(sql: "PRAGMA foreign_keys = \(configuration.foreignKeysEnabled ? "ON" : "OFF")")
    if readonly {
      try execute(sql: "PRAGMA query_only = ON")
      // A reader never checkpoints, not even as the last connection to close: SQLite's
      // WAL-reset race (3.7.0 to 3.51.2) needs a checkpoint on one connection while another
      // commits, so in a hub's file only the writer's connection checkpoints
      // (docs/sqlite-layer.md, "Who checkpoints").
      hearth_sqlite3_no_checkpoint_on_close(sqliteConnection)
    }
    for prepare in configuration.preparations { try prepare(self) }
  }

  /// Sets SQLite's busy handler to wait the configuration's `busyTimeout` (none when nil).
  func applyBusyTimeout() {
    guard let timeout = configuration.busyTimeout else {
      sqlite3_busy_handler(sqliteConnection, nil, nil)
      return
    }
    sqlite3_busy_timeout(sqliteConnection, Int32(min(timeout * 1000, Double(Int32.max))))
  }

  /// SQLite's message for the last error on this connection.
  var lastErrorMessage: String { String(cString: sqlite3_errmsg(sqliteConnection)) }

  func error(code: Int32, sql: String?, arguments: StatementArguments? = nil) -> DatabaseError {
    let extended = sqlite3_extended_errcode(sqliteConnection)
    let resolved = (extended & 0xFF) == (code & 0xFF) ? extended : code
    return DatabaseError(
      resultCode: ResultCode(rawValue: resolved), message: lastErrorMessage, sql: sql,
      arguments: arguments)
  }

  // MARK: - Facts about the connection

  /// The rowid of the last successful INSERT on this connection.
  public var lastInsertedRowID: Int64 {
    remote == nil ? sqlite3_last_insert_rowid(sqliteConnection) : remoteResult.lastInsertedRowID
  }

  /// Rows changed by the last INSERT, UPDATE or DELETE.
  public var changesCount: Int {
    remote == nil ? Int(sqlite3_changes64(sqliteConnection)) : remoteResult.changesCount
  }

  /// Rows changed since the connection opened (for a remote database, by the last statement).
  public var totalChangesCount: Int {
    remote == nil ? Int(sqlite3_total_changes64(sqliteConnection)) : remoteResult.changesCount
  }

  /// Whether a transaction is open. A remote database lives inside one.
  public var isInsideTransaction: Bool {
    remote == nil ? sqlite3_get_autocommit(sqliteConnection) == 0 : true
  }

  /// Whether the connection refuses writes (opened read-only, or `PRAGMA query_only`).
  public var isReadOnly: Bool {
    guard remote == nil else { return false }
    return sqlite3_db_readonly(sqliteConnection, "main") == 1
      || ((try? Bool.fetchOne(self, sql: "PRAGMA query_only")) ?? false) == true
  }

  /// Stops the statement running on this connection; it fails with `SQLITE_INTERRUPT`.
  /// The one method that may be called from another thread. (No effect on a remote
  /// database.)
  public func interrupt() {
    if remote == nil { sqlite3_interrupt(sqliteConnection) }
  }

  // MARK: - Statements

  /// Prepares one statement, not cached.
  ///
  /// Throws when `sql` holds anything but one statement (trailing spaces and comments aside).
  public func makeStatement(sql: String) throws -> PreparedStatement {
    try checkLocal(sql: sql)
    var rest = Substring(sql)
    guard let statement = try prepareNext(&rest, fullSQL: sql) else {
      throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "no statement in SQL", sql: sql)
    }
    if try prepareNext(&rest, fullSQL: sql) != nil {
      throw DatabaseError(
        resultCode: .SQLITE_MISUSE,
        message: "several statements in SQL; use execute(sql:) to run them all", sql: sql)
    }
    return statement
  }

  /// A prepared statement from this connection's cache, prepared on first use.
  public func cachedStatement(sql: String) throws -> PreparedStatement {
    try checkLocal(sql: sql)
    let key = cacheKey(sql)
    if let statement = statementCache[key], !statement.isBusy { return statement }
    let statement = try makeStatement(sql: sql)
    if statementCache[key] == nil {
      if statementCache.count >= 512 { statementCache.removeAll() }
      statementCache[key] = statement
    }
    return statement
  }

  /// Prepares the first statement of `rest` and removes its text from `rest`; nil when
  /// `rest` holds no more statements.
  func prepareNext(_ rest: inout Substring, fullSQL: String) throws -> PreparedStatement? {
    var utf8 = Array(rest.utf8)
    utf8.append(0)
    return try utf8.withUnsafeBufferPointer { buffer -> PreparedStatement? in
      let start = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
      var handle: OpaquePointer?
      var tail: UnsafePointer<CChar>?
      preparingAccess = StatementAccess()
      defer { preparingAccess = nil }
      let code = sqlite3_prepare_v3(sqliteConnection, start, Int32(buffer.count), 0, &handle, &tail)
      guard code == SQLITE_OK else {
        throw error(code: code, sql: String(rest).trimmingCharacters(in: .whitespacesAndNewlines))
      }
      let consumed = tail.map { $0 - start } ?? (buffer.count - 1)
      let text = String(decoding: buffer[0..<consumed], as: UTF8.self)
      rest = Substring(String(decoding: buffer[consumed..<(buffer.count - 1)], as: UTF8.self))
      guard let handle else {
        // Only spaces or comments: keep going unless the input is exhausted.
        return rest.isEmpty ? nil : try prepareNext(&rest, fullSQL: fullSQL)
      }
      return PreparedStatement(
        database: self, sqliteStatement: handle,
        sql: text.trimmingCharacters(in: .whitespacesAndNewlines), access: preparingAccess!)
    }
  }

  /// Runs every statement of `sql`, binding `arguments` in order across them.
  ///
  /// ```swift
  /// try db.execute(sql: """
  ///   CREATE TABLE players (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
  ///   INSERT INTO players (name) VALUES (?);
  ///   """, arguments: ["Arthur"])
  /// ```
  public func execute(sql: String, arguments: StatementArguments = StatementArguments()) throws {
    if remote != nil {
      _ = try runRemote(sql: sql, arguments: arguments, needsRows: false)
      return
    }
    // The common case, one statement: go through the cache.
    if let cached = statementCache[cacheKey(sql)], !cached.isBusy {
      try cached.setArguments(arguments)
      try run(cached) { _ in }
      return
    }
    var rest = Substring(sql)
    var position = 0
    var first = true
    while let statement = try prepareNext(&rest, fullSQL: sql) {
      let isLast = rest.allSatisfy(\.isWhitespace)
      if first && isLast && statementCache.count < 512 { statementCache[cacheKey(sql)] = statement }
      first = false
      try statement.bind(arguments, consumingFrom: &position)
      // Check the count before the last statement runs, not after.
      if isLast { try checkAllConsumed(arguments, position: position, sql: sql) }
      try run(statement) { _ in }
    }
    try checkAllConsumed(arguments, position: position, sql: sql)
  }

  private func checkAllConsumed(_ arguments: StatementArguments, position: Int, sql: String) throws
  {
    guard position == arguments.values.count else {
      throw DatabaseError(
        resultCode: .SQLITE_MISUSE,
        message: "wrong number of statement arguments: \(arguments.values.count) given, "
          + "\(position) used",
        sql: sql, arguments: arguments)
    }
  }

  // MARK: - Remote statements

  /// Refuses what only a local connection can do.
  func checkLocal(sql: String? = nil) throws {
    guard remote == nil else {
      throw DatabaseError(
        resultCode: .SQLITE_MISUSE,
        message: "prepared statements are not available in a transaction carried to the hub; "
          + "use execute(sql:arguments:), the fetch methods or the query builder", sql: sql)
    }
  }

  /// A cursor over the rows of `sql`: a live statement here, or the rows a remote
  /// executor returned.
  func rowCursor(sql: String, arguments: StatementArguments) throws -> RowCursor {
    guard remote != nil else {
      return try RowCursor(statement: cachedStatement(sql: sql), arguments: arguments)
    }
    let result = try runRemote(sql: sql, arguments: arguments, needsRows: true)
    return RowCursor(columnNames: result.columnNames, rows: result.rows, sql: sql)
  }

  private func runRemote(sql: String, arguments: StatementArguments, needsRows: Bool) throws
    -> StatementResult
  {
    if let traceHandler {
      traceHandler(
        TraceEvent(
          kind: .statement, description: sql,
          expandedDescription: arguments.isEmpty ? sql : "\(sql) -- \(arguments)", duration: nil))
    }
    try arguments.checkBindable()
    let result = try remote!.execute(sql: sql, arguments: arguments, needsRows: needsRows)
    remoteResult = result
    return result
  }

  /// WITHOUT ROWID tables of the main schema (their hook rowids mean nothing); cached until
  /// the schema changes.
  var withoutRowIDTables: Set<String>?
  /// Column names by table, in the order of the pre-update hook's column indexes; cached
  /// until the schema changes.
  var columnNames: [String: [String]] = [:]
  /// The pre-update hook's indexes of each table's primary-key columns, in key order; empty
  /// when the rowid is the key. Cached until the schema changes.
  var primaryKeyColumns: [String: [Int32]] = [:]
  /// Set while the connection reads its own schema from inside a hook: the authorizer lets
  /// that read through unrecorded.
  var isReadingOwnSchema = false
}
