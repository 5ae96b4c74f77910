import Foundation

/// Keeps tables the same on every device of an account, the reference's way:
///
/// ```swift
/// prepareDependencies {
///   $0.defaultDatabase = try appDatabase()
///   $0.defaultSyncEngine = try SyncEngine(
///     for: $0.defaultDatabase, tables: RemindersList.self, Reminder.self, Tag.self)
/// }
/// @Dependency(\.defaultSyncEngine) var syncEngine
/// try await syncEngine.syncChanges()
/// ```
///
/// In Hearth the hub does the work: an engine on a hub's database (a plugin's `HubDatabase`)
/// asks the hub to sync its tables — the hub checks the rules a synced table keeps and
/// refuses one that breaks them, naming the rule — and from then on the hub pushes every
/// change of them to its sync server (PostgreSQL) and applies every other device's, whether
/// or not the plugin runs. The engine's own calls ask the hub: `syncChanges()` waits for a
/// round of sync, `deleteLocalData()` drops this device's copy. On a database no hub writes
/// (a program's own file) there is nothing to sync with: the engine is not running and its
/// calls do nothing.
public final class SyncEngine: Sendable {
  public let database: any DatabaseWriter
  /// The synced tables' names.
  public let tableNames: [String]
  /// Their file columns (`table.column`).
  public let fileColumns: [String]
  /// Their columns that name another synced row without a foreign key.
  public let references: [Reference]
  private let hub: (any SyncingDatabase)?
  private let flags = Locked((running: false, synchronizing: 0))
  /// Told when the hub's account changed since it last synced (see `SyncEngineDelegate`).
  public let delegate: (any SyncEngineDelegate)?

  /// Syncs `tables` of `database` (see the type's documentation). Throws when the hub
  /// refuses a table (`DatabaseError` with the rule it breaks). `startImmediately`
  /// (default true) asks the hub now; otherwise `start()` does.
  ///
  /// `fileColumns` (`"table.column"`, Hearth's own) names TEXT columns holding the SHA-256
  /// (hex) of a file in the plugin's directory (`plugins/NAME/ab/abcdef…`): the file goes
  /// with its row to every device (stored once per content on the server), and until it
  /// comes the row names a file that is not there yet.
  ///
  /// `references` (Hearth's own) names columns that hold the key of another synced row
  /// without a foreign key to say so — an attachment's owner: such a row goes with the row
  /// it names, into a share with it (see `Reference`).
  public convenience init<each T: PrimaryKeyedTable>(
    for database: any DatabaseWriter, tables: repeat (each T).Type,
    startImmediately: Bool = true, delegate: (any SyncEngineDelegate)? = nil,
    fileColumns: [String] = [], references: [Reference] = []
  ) throws {
    var names: [String] = []
    for table in repeat each tables { names.append(table.tableName) }
    try self.init(
      for: database, tableNames: names, startImmediately: startImmediately, delegate: delegate,
      fileColumns: fileColumns, references: references)
  }

  /// Syncs the tables named `tableNames` of `database`.
  public init(
    for database: any DatabaseWriter, tableNames: [String], startImmediately: Bool = true,
    delegate: (any SyncEngineDelegate)? = nil, fileColumns: [String] = [],
    references: [Reference] = []
  ) throws {
    self.database = database
    self.tableNames = tableNames
    self.fileColumns = fileColumns
    self.references = references
    self.delegate = delegate
    hub = database as? any SyncingDatabase
    if startImmediately { try startNow() }
  }

  /// Whether the engine has asked its hub to sync its tables (and was not stopped).
  public var isRunning: Bool { flags.withLock { $0.running } }

  /// Whether a `syncChanges` (or `sendChanges`, `fetchChanges`) is under way.
  public var isSynchronizing: Bool { flags.withLock { $0.synchronizing > 0 } }

  /// Asks the hub to sync the tables (again: it is harmless); tells the delegate when the
  /// account changed.
  public func start() async throws {
    try startNow()
    try await checkAccount()
  }

  private func startNow() throws {
    guard let hub else { return }
    try hub.declareSynced(tableNames, files: fileColumns, references: references)
    flags.withLock { $0.running = true }
  }

  /// Stops this engine's calls (`syncChanges` and the rest do nothing until `start()`). The
  /// hub goes on syncing the tables: other processes and devices rely on it.
  public func stop() { flags.withLock { $0.running = false } }

  /// Waits until the hub has pushed this device's changes and pulled the others' (a round
  /// begun after the call). Throws when the server cannot be reached (the local data is
  /// safe; its changes wait for the server).
  public func syncChanges() async throws {
    try await checkAccount()
    try await run(.now)
  }

  /// As `syncChanges`: the hub pushes and pulls in one round.
  public func sendChanges() async throws { try await run(.now) }

  /// As `syncChanges`: the hub pushes and pulls in one round.
  public func fetchChanges() async throws { try await run(.now) }

  /// Pushes every row again and pulls everything again, deleting nothing: for a server that
  /// lost records, or any doubt.
  public func resync() async throws { try await run(.resync) }

  /// Deletes this device's copy of the synced tables (not the server's); the next round
  /// pulls the server's again — after an account change, the new account's. (What the
  /// reference does when the account goes away.)
  public func deleteLocalData() async throws { try await run(.deleteLocalData) }

  /// After an account change: keeps this device's rows, for the new account (they are
  /// pushed to it, and its rows pulled here; nothing is deleted).
  public func acceptAccount() async throws { try await run(.acceptAccount) }

  /// Stops pushing and pulling (for every plugin of the hub, across restarts) until
  /// `resume()`: local writes go on, and their changes wait. For a metered connection, or
  /// a person who wants to work offline.
  public func pause() async throws { try await run(.pause) }

  /// Syncs again after `pause()`.
  public func resume() async throws { try await run(.resume) }

  /// When the hub waits on an account change: the delegate decides (it calls
  /// `deleteLocalData()` or `acceptAccount()`); without one, `SyncEngineError.accountChanged`
  /// — nothing of this device is deleted, or pushed to another account, without a word.
  private func checkAccount() async throws {
    guard isRunning, let change = try state()?.accountChange else { return }
    guard let delegate else { throw SyncEngineError.accountChanged(change.description) }
    await delegate.syncEngine(self, accountChanged: change)
  }

  /// The hub's sync state; nil on a database no hub writes.
  public func state() throws -> State? {
    try hub?.sync(tables: [], action: .status)
  }

  private func run(_ action: Action) async throws {
    guard let hub, isRunning else { return }
    flags.withLock { $0.synchronizing += 1 }
    defer { flags.withLock { $0.synchronizing -= 1 } }
    let tables = tableNames
    try await withCheckedThrowingContinuation {
      (continuation: CheckedContinuation<Void, any Error>) in
      DispatchQueue.global().async {
        continuation.resume(with: Result { _ = try hub.sync(tables: tables, action: action) })
      }
    }
  }

  /// Asks the hub for a sharing action, off the caller's thread (it waits for the server).
  func ask(_ request: ShareRequest) async throws -> ShareReply {
    guard let hub, isRunning else { throw SyncEngineError.notRunning }
    flags.withLock { $0.synchronizing += 1 }
    defer { flags.withLock { $0.synchronizing -= 1 } }
    return try await withCheckedThrowingContinuation {
      (continuation: CheckedContinuation<ShareReply, any Error>) in
      DispatchQueue.global().async {
        continuation.resume(with: Result { try hub.share(request) })
      }
    }
  }

  /// A column of a synced table (`table.column`) that holds the primary key of another
  /// synced row, with no foreign key to say so: of one table, or of the table the same row
  /// names in another column. The row it names is the row's parent for sharing, as a
  /// foreign key's is: an attachment of a shared reminder is shared with it, its file too.
  ///
  /// ```swift
  /// SyncEngine(for: database, tables: Attachment.self, references: [
  ///   .column("attachments.ownerID", referencesTableNamedIn: "ownerTable")
  /// ])
  /// ```
  public struct Reference: Hashable, Sendable {
    public var table: String
    public var column: String
    /// The table of the rows it names; nil when the row names it (`tableColumn`).
    public var parent: String?
    /// The row's column holding the name of the table of the row it names.
    public var tableColumn: String?

    /// `column` (`table.column`) holds a primary key of table `parent`.
    public static func column(_ column: String, references parent: String) -> Reference {
      let (table, name) = split(column)
      return Reference(table: table, column: name, parent: parent)
    }

    /// `column` (`table.column`) holds a primary key of the table whose name the same
    /// row's `tableColumn` holds.
    public static func column(_ column: String, referencesTableNamedIn tableColumn: String)
      -> Reference
    {
      let (table, name) = split(column)
      return Reference(table: table, column: name, tableColumn: tableColumn)
    }

    private static func split(_ column: String) -> (String, String) {
      guard let dot = column.firstIndex(of: ".") else { return ("", column) }
      return (String(column[..<dot]), String(column[column.index(after: dot)...]))
    }
  }

  /// What an engine asks its hub for.
  public enum Action: String, Hashable, Sendable {
    case status, now, resync, deleteLocalData, acceptAccount, pause, resume
  }

  /// How the account changed: another server or zone than the one this hub synced with
  /// (`old → new`).
  public enum AccountChange: Hashable, Sendable, CustomStringConvertible {
    case switchAccounts(String)
    /// The zone this device synced was deleted on the server (the reference's zone
    /// `.deleted`/`.purged`; here nothing local is deleted before the delegate says so).
    case zoneDeleted(String)

    public var description: String {
      switch self {
      case .switchAccounts(let change): change
      case .zoneDeleted(let account): "zone deleted on the server: \(account)"
      }
    }
  }

  /// The hub's sync state.
  public struct State: Hashable, Sendable {
    /// Every table the hub syncs.
    public var tables: [String]
    /// The server (its password left out); nil when none is set up.
    public var server: String?
    public var zone: String
    /// Rows whose changes the server has not taken yet.
    public var pending: Int
    /// Records pulled that wait to be applied.
    public var held: Int
    /// The server's sequence number pulled up to.
    public var pulled: Int64
    public var lastError: String?
    /// `old → new` while the hub waits on an account change.
    public var accountChange: AccountChange?
    /// `pending` by table (tables with none left out): what a UI shows as "3 reminders
    /// not synced yet".
    public var pendingByTable: [String: Int] = [:]
    /// Whether the person paused sync (`pause()`): nothing is pushed or pulled.
    public var isPaused = false
    /// The hub's wall clock minus the server's, as last measured; nil before the first.
    public var clockSkew: Duration?
    /// Whether the hub has sent every change and applied every record it pulled.
    public var isUpToDate: Bool { pending == 0 && held == 0 && lastError == nil && !isPaused }

    public init(
      tables: [String], server: String?, zone: String, pending: Int, held: Int, pulled: Int64,
      lastError: String?, accountChange: AccountChange? = nil
    ) {
      self.tables = tables
      self.server = server
      self.zone = zone
      self.pending = pending
      self.held = held
      self.pulled = pulled
      self.lastError = lastError
      self.accountChange = accountChange
    }
  }
}

/// Told of what the app decides, the reference's way.
public protocol SyncEngineDelegate: AnyObject, Sendable {
  /// The hub's account changed: call `syncEngine.deleteLocalData()` to drop this device's
  /// rows for the new account's, or `syncEngine.acceptAccount()` to keep them for it.
  func syncEngine(_ syncEngine: SyncEngine, accountChanged change: SyncEngine.AccountChange)
    async
}

/// A sync engine's refusal.
public enum SyncEngineError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The account changed (`old → new`) and no delegate decided what becomes of the rows.
  case accountChanged(String)
  /// Sharing needs a running engine on a hub's database (the reference's
  /// `syncEngineNotRunning`).
  case notRunning

  public var description: String {
    switch self {
    case .notRunning:
      "the sync engine is not running on a hub's database: nothing can be shared"
    case .accountChanged(let change):
      "the sync account changed (\(change)): call deleteLocalData() to take the new account's "
        + "rows, or acceptAccount() to keep this device's for it"
    }
  }
}

/// A database a hub writes, which can ask its hub to sync (HearthPlugin's `HubDatabase`).
public protocol SyncingDatabase: DatabaseWriter {
  /// Asks the hub to sync `tables` and to run `action`; its sync state.
  func sync(tables: [String], action: SyncEngine.Action) throws -> SyncEngine.State
  /// Asks the hub to sync `tables`, unless it does already.
  func declareSynced(_ tables: [String]) throws
  /// Asks the hub to sync `tables`, their file columns `files` and their `references`,
  /// unless it does already.
  func declareSynced(
    _ tables: [String], files: [String], references: [SyncEngine.Reference]) throws
  /// Asks the hub for a sharing action; waits for the server's answer.
  func share(_ request: SyncEngine.ShareRequest) throws -> SyncEngine.ShareReply
}

extension SyncingDatabase {
  public func declareSynced(_ tables: [String]) throws {
    _ = try sync(tables: tables, action: .status)
  }

  public func declareSynced(
    _ tables: [String], files: [String], references: [SyncEngine.Reference]
  ) throws {
    try declareSynced(tables)
  }
}

private enum DefaultSyncEngineKey: DependencyKey {
  static var liveValue: SyncEngine {
    DependencyValues.current.errorReporter(
      DefaultSyncEngineNotSet(), message: nil, file: #fileID, line: #line)
    return try! SyncEngine(for: try! DatabaseQueue(), tableNames: [])
  }
  static var testValue: SyncEngine { try! SyncEngine(for: try! DatabaseQueue(), tableNames: []) }
}

/// `defaultSyncEngine` was read before a program set it.
struct DefaultSyncEngineNotSet: Error, CustomStringConvertible {
  var description: String {
    "no default sync engine was set: one that syncs nothing is used. Set one at start-up with "
      + "prepareDependencies { $0.defaultSyncEngine = try SyncEngine(for: …, tables: …) }"
  }
}

extension DependencyValues {
  /// The sync engine of the program (`@Dependency(\.defaultSyncEngine)`).
  public var defaultSyncEngine: SyncEngine {
    get { self[DefaultSyncEngineKey.self] }
    set { self[DefaultSyncEngineKey.self] = newValue }
  }
}

extension Database {
  /// The reference attaches its sync metadata database here
  /// (`configuration.prepareDatabase { db in try db.attachMetadatabase() }`); in Hearth the
  /// hub keeps sync's metadata in its own database file (`hearth_sync_rows`), which every
  /// connection to it reads, so there is nothing to attach.
  public func attachMetadatabase(containerIdentifier: String? = nil) throws {}
}
