import CSQLite

#if canImport(Glibc)
  import Glibc
#endif

// The C callbacks SQLite calls on this connection: the authorizer (what a statement reads
// and writes, learned while it is prepared), the pre-update hook (which rows change), the
// commit and rollback hooks (when the changes become real or vanish), and tracing.

extension Database {
  private var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

  private static func from(_ context: UnsafeMutableRawPointer?) -> Database {
    Unmanaged<Database>.fromOpaque(context!).takeUnretainedValue()
  }

  func installHooks() {
    sqlite3_set_authorizer(
      sqliteConnection,
      { context, action, first, second, _, source in
        Database.from(context).authorize(
          action: action, first: first.map { String(cString: $0) },
          second: second.map { String(cString: $0) }, source: source.map { String(cString: $0) })
      }, context)
    sqlite3_preupdate_hook(
      sqliteConnection,
      { context, connection, operation, _, table, oldKey, newKey in
        guard let table else { return }
        let database = Database.from(context)
        guard !database.isUntracked(table) else { return }
        let name = String(cString: table)
        database.recordChange(operation: operation, table: name, oldKey: oldKey, newKey: newKey)
        if database.recordsUpdatedColumns, let connection {
          if operation == SQLITE_UPDATE {
            database.changeTracker.recordUpdatedColumns(
              Database.changedColumns(connection), table: name, rowID: newKey)
          }
          database.recordPrimaryKey(
            connection, operation: operation, table: name, oldKey: oldKey, newKey: newKey)
        }
      }, context)
    sqlite3_commit_hook(
      sqliteConnection,
      { context in
        Database.from(context).changeTracker.commitHookFired = true
        return 0
      }, context)
    sqlite3_rollback_hook(
      sqliteConnection, { context in Database.from(context).changeTracker.reset() }, context)
  }

  func removeHooks() {
    sqlite3_set_authorizer(sqliteConnection, nil, nil)
    sqlite3_preupdate_hook(sqliteConnection, nil, nil)
    sqlite3_commit_hook(sqliteConnection, nil, nil)
    sqlite3_rollback_hook(sqliteConnection, nil, nil)
    sqlite3_trace_v2(sqliteConnection, 0, nil, nil)
    sqlite3_wal_hook(sqliteConnection, nil, nil)
  }

  /// Calls `hook` after each COMMIT that wrote the write-ahead log, with the number of
  /// frames (pages) the log then holds; nil removes it.
  ///
  /// SQLite's automatic checkpoint uses the same hook, so setting one turns it off on this
  /// connection (as `PRAGMA wal_autocheckpoint = 0` does): the caller checkpoints. The hub
  /// uses it to keep its WAL under a bound.
  public func setWALCommitHook(_ hook: ((_ frames: Int) -> Void)?) {
    guard remote == nil else { return }
    walCommitHook = hook
    guard hook != nil else {
      sqlite3_wal_hook(sqliteConnection, nil, nil)
      return
    }
    sqlite3_wal_hook(
      sqliteConnection,
      { context, _, _, frames in
        Database.from(context).walCommitHook?(Int(frames))
        return SQLITE_OK
      }, context)
  }

  private func authorize(action: Int32, first: String?, second: String?, source: String?) -> Int32 {
    if isReadingOwnSchema { return SQLITE_OK }
    if let authorizer,
      !authorizer(DatabaseAction(code: action, first: first, second: second, source: source))
    {
      return SQLITE_DENY
    }
    let isInternal = first?.hasPrefix("sqlite_") ?? true
    if preparingAccess != nil {
      switch action {
      case SQLITE_READ:
        if let first, !isInternal { preparingAccess!.readTables.insert(first) }
      case SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE:
        if let first, !isInternal { preparingAccess!.writtenTables.insert(first) }
      case SQLITE_CREATE_INDEX...SQLITE_CREATE_VIEW, SQLITE_DROP_INDEX...SQLITE_DROP_VIEW,
        SQLITE_ALTER_TABLE, SQLITE_CREATE_VTABLE, SQLITE_DROP_VTABLE:
        preparingAccess!.changesSchema = true
      case SQLITE_SAVEPOINT:
        if let first, let second {
          switch first {
          case "BEGIN": preparingAccess!.savepoint = .begin(second)
          case "RELEASE": preparingAccess!.savepoint = .release(second)
          case "ROLLBACK": preparingAccess!.savepoint = .rollback(second)
          default: break
          }
        }
      default:
        break
      }
    }
    // SQLite skips the pre-update hook when `DELETE FROM t` empties a table by truncation;
    // ignoring the DELETE action turns that optimization off (rows are still deleted).
    // DROP TABLE and DROP VIEW ask for DELETE right after their own action, and ignoring
    // that one would silently skip the drop: it is let through. (This also holds when SQLite
    // re-prepares a statement during a step, outside `preparingAccess`.)
    let followsDrop = previousActionWasDrop
    previousActionWasDrop =
      action == SQLITE_DROP_TABLE || action == SQLITE_DROP_TEMP_TABLE
      || action == SQLITE_DROP_VTABLE || action == SQLITE_DROP_VIEW
      || action == SQLITE_DROP_TEMP_VIEW
    if action == SQLITE_DELETE, !isInternal, !followsDrop { return SQLITE_IGNORE }
    return SQLITE_OK
  }

  /// The indexes of the columns whose values the update being hooked changes.
  private static func changedColumns(_ connection: OpaquePointer) -> [Int32] {
    var changed: [Int32] = []
    for index in 0..<sqlite3_preupdate_count(connection) {
      var old: OpaquePointer?
      var new: OpaquePointer?
      guard sqlite3_preupdate_old(connection, index, &old) == SQLITE_OK,
        sqlite3_preupdate_new(connection, index, &new) == SQLITE_OK
      else { continue }
      if !isSame(old, new) { changed.append(index) }
    }
    return changed
  }

  /// Whether two values are the same in storage class and content (1 and 1.0 differ).
  private static func isSame(_ left: OpaquePointer?, _ right: OpaquePointer?) -> Bool {
    let type = sqlite3_value_type(left)
    guard type == sqlite3_value_type(right) else { return false }
    switch type {
    case SQLITE_NULL:
      return true
    case SQLITE_INTEGER:
      return sqlite3_value_int64(left) == sqlite3_value_int64(right)
    case SQLITE_FLOAT:
      return sqlite3_value_double(left).bitPattern == sqlite3_value_double(right).bitPattern
    default:
      let count = sqlite3_value_bytes(left)
      guard count == sqlite3_value_bytes(right) else { return false }
      guard count > 0 else { return true }
      return memcmp(sqlite3_value_blob(left), sqlite3_value_blob(right), Int(count)) == 0
    }
  }

  /// Whether `table` (a C string) begins with `untrackedTablePrefix`. (A shorter name
  /// differs at its terminating zero, which no prefix byte is: nothing past it is read.)
  func isUntracked(_ table: UnsafePointer<CChar>) -> Bool {
    guard !untrackedPrefixBytes.isEmpty else { return false }
    for (index, byte) in untrackedPrefixBytes.enumerated()
    where UInt8(bitPattern: table[index]) != byte {
      return false
    }
    return true
  }

  private func recordChange(operation: Int32, table: String, oldKey: Int64, newKey: Int64) {
    switch operation {
    case SQLITE_INSERT:
      changeTracker.record(.insert, table: table, rowID: newKey)
    case SQLITE_DELETE:
      changeTracker.record(.delete, table: table, rowID: oldKey)
    case SQLITE_UPDATE where oldKey != newKey:
      changeTracker.record(.delete, table: table, rowID: oldKey)
      changeTracker.record(.insert, table: table, rowID: newKey)
    case SQLITE_UPDATE:
      changeTracker.record(.update, table: table, rowID: newKey)
    default:
      break
    }
  }

  // MARK: - Tracing

  /// Calls `handler` for each statement this connection runs (`.statement`) and/or with
  /// each statement's duration once it ends (`.profile`). Replaces any previous handler;
  /// `nil` stops tracing.
  ///
  /// ```swift
  /// db.trace(options: .profile) { print($0.expandedDescription) }
  /// ```
  public func trace(options: TracingOptions = .statement, _ handler: ((TraceEvent) -> Void)?) {
    traceHandler = handler
    // A remote database reports each statement as it sends it.
    guard remote == nil else { return }
    guard handler != nil, !options.isEmpty else {
      sqlite3_trace_v2(sqliteConnection, 0, nil, nil)
      return
    }
    var mask: UInt32 = 0
    if options.contains(.statement) { mask |= UInt32(SQLITE_TRACE_STMT) }
    if options.contains(.profile) { mask |= UInt32(SQLITE_TRACE_PROFILE) }
    sqlite3_trace_v2(
      sqliteConnection, mask,
      { mask, context, statement, detail in
        let database = Database.from(context)
        guard let handler = database.traceHandler, let statement else { return 0 }
        let handle = OpaquePointer(statement)
        let expanded = sqlite3_expanded_sql(handle)
        defer { sqlite3_free(expanded) }
        let sql = sqlite3_sql(handle).map { String(cString: $0) } ?? ""
        let expandedSQL = expanded.map { String(cString: $0) } ?? sql
        if mask == UInt32(SQLITE_TRACE_STMT) {
          // Inside a trigger, SQLite passes the trigger's name as "-- TRIGGER name".
          let text = detail.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? sql
          let isTrigger = text.hasPrefix("--")
          handler(
            TraceEvent(
              kind: .statement, description: isTrigger ? text : sql,
              expandedDescription: isTrigger ? text : expandedSQL, duration: nil))
        } else if mask == UInt32(SQLITE_TRACE_PROFILE) {
          let nanoseconds = detail?.load(as: Int64.self) ?? 0
          handler(
            TraceEvent(
              kind: .profile, description: sql, expandedDescription: expandedSQL,
              duration: Double(nanoseconds) / 1e9))
        }
        return 0
      }, context)
  }
}

/// Which events `Database.trace(options:_:)` reports.
public struct TracingOptions: OptionSet, Sendable {
  public let rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }

  /// Each statement as it starts (and each statement of a trigger).
  public static let statement = TracingOptions(rawValue: 1)
  /// Each statement as it ends, with its duration.
  public static let profile = TracingOptions(rawValue: 2)
}

/// One traced event.
public struct TraceEvent: Sendable, CustomStringConvertible {
  public enum Kind: Sendable {
    case statement
    case profile
  }

  public var kind: Kind
  /// The SQL as written, with `?` for its parameters.
  public var description: String
  /// The SQL with its bound values in place (`… WHERE "id" = 42`).
  public var expandedDescription: String
  /// For `.profile` events, how long the statement ran, in seconds.
  public var duration: Double?
}

/// One action SQLite asks its authorizer about while it prepares a statement (and the
/// statements of the triggers it fires).
public struct DatabaseAction: Hashable, Sendable, CustomStringConvertible {
  /// SQLite's action code (`SQLITE_INSERT`, `SQLITE_CREATE_TABLE`, …).
  public var code: Int32
  /// The first detail: a table, index or trigger name, a pragma, a function, `BEGIN`…
  public var first: String?
  /// The second detail: a column, the table of an index or trigger, a pragma's value…
  public var second: String?
  /// The innermost trigger or view the action is part of; nil for the statement's own.
  public var source: String?

  public init(code: Int32, first: String?, second: String?, source: String? = nil) {
    self.code = code
    self.first = first
    self.second = second
    self.source = source
  }

  public enum Kind: Hashable, Sendable {
    case read, insert, update, delete, select, function, pragma, transaction, savepoint
    case attach, detach, recursive, analyze, reindex
    /// CREATE/DROP/ALTER of a table, index, trigger, view or virtual table.
    case schema(temporary: Bool)
    case other
  }

  public var kind: Kind {
    switch code {
    case SQLITE_READ: .read
    case SQLITE_INSERT: .insert
    case SQLITE_UPDATE: .update
    case SQLITE_DELETE: .delete
    case SQLITE_SELECT: .select
    case SQLITE_FUNCTION: .function
    case SQLITE_PRAGMA: .pragma
    case SQLITE_TRANSACTION: .transaction
    case SQLITE_SAVEPOINT: .savepoint
    case SQLITE_ATTACH: .attach
    case SQLITE_DETACH: .detach
    case SQLITE_RECURSIVE: .recursive
    case SQLITE_ANALYZE: .analyze
    case SQLITE_REINDEX: .reindex
    case SQLITE_CREATE_TEMP_INDEX, SQLITE_CREATE_TEMP_TABLE, SQLITE_CREATE_TEMP_TRIGGER,
      SQLITE_CREATE_TEMP_VIEW, SQLITE_DROP_TEMP_INDEX, SQLITE_DROP_TEMP_TABLE,
      SQLITE_DROP_TEMP_TRIGGER, SQLITE_DROP_TEMP_VIEW:
      .schema(temporary: true)
    case SQLITE_CREATE_INDEX, SQLITE_CREATE_TABLE, SQLITE_CREATE_TRIGGER, SQLITE_CREATE_VIEW,
      SQLITE_DROP_INDEX, SQLITE_DROP_TABLE, SQLITE_DROP_TRIGGER, SQLITE_DROP_VIEW,
      SQLITE_ALTER_TABLE, SQLITE_CREATE_VTABLE, SQLITE_DROP_VTABLE:
      .schema(temporary: false)
    default: .other
    }
  }

  /// Whether this creates a trigger (`first` is its name).
  public var isTriggerCreation: Bool {
    code == SQLITE_CREATE_TRIGGER || code == SQLITE_CREATE_TEMP_TRIGGER
  }

  /// The table a schema action concerns: the table created, dropped or altered, or the
  /// table an index or trigger belongs to.
  public var schemaTable: String? {
    switch code {
    case SQLITE_CREATE_INDEX, SQLITE_CREATE_TEMP_INDEX, SQLITE_DROP_INDEX, SQLITE_DROP_TEMP_INDEX,
      SQLITE_CREATE_TRIGGER, SQLITE_CREATE_TEMP_TRIGGER, SQLITE_DROP_TRIGGER,
      SQLITE_DROP_TEMP_TRIGGER:
      second
    case SQLITE_ALTER_TABLE:
      second
    default:
      first
    }
  }

  public var description: String {
    "action \(code) (\(first ?? "-"), \(second ?? "-"))"
  }
}

extension Database {
  /// Decides, before SQLite's own rules, whether statements prepared from now on may do
  /// each action; a refused action makes the statement fail with `SQLITE_AUTH` before it
  /// runs. `nil` allows everything.
  ///
  /// Statements are authorized when prepared, so a cached statement must never outlive its
  /// policy: with a `scope` (a name that identifies the policy exactly), statements are
  /// cached apart per scope and reused whenever that scope comes back; without one, setting
  /// a policy empties the cache. (Going back to `nil` keeps the unscoped cache: a statement
  /// allowed under a policy is allowed without one.)
  public func setAuthorizer(_ authorizer: ((DatabaseAction) -> Bool)?, scope: String? = nil) {
    self.authorizer = authorizer
    if let scope, authorizer != nil {
      authorizerScope = scope
    } else {
      authorizerScope = ""
      if authorizer != nil { statementCache.removeAll() }
    }
  }

  /// The changes the open transaction has made so far (what `DatabaseChanges` will report
  /// at COMMIT if nothing more happens), for code that records them in the same
  /// transaction. Empty outside a transaction.
  public var pendingChanges: DatabaseChanges {
    changes(from: changeTracker.merged())
  }

  /// The changes made since `SAVEPOINT name` (the innermost savepoint of that name), for
  /// code that records several units of work of one transaction apart.
  public func pendingChanges(inSavepoint name: String) -> DatabaseChanges {
    let layers = changeTracker.layers
    guard
      let start = layers.lastIndex(where: { $0.savepointName?.lowercased() == name.lowercased() })
    else { return DatabaseChanges() }
    return changes(from: changeTracker.merged(from: start))
  }
}
