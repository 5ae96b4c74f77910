import Foundation
import HearthSQLite

/// Version 1 of the wire protocol (`Protocols/README.md` is its specification).
public enum WireProtocol {
  public static let version = 1
}

/// The fields every request and reply has; read first to dispatch on `type`.
public struct WireEnvelope: Codable, Hashable, Sendable {
  public var v: Int
  public var type: String
  public var id: String?

  public init(v: Int, type: String, id: String?) {
    self.v = v
    self.type = type
    self.id = id
  }
}

/// `hello`: who the hub is and how far its feed has come.
public struct HelloRequest: Codable, Hashable, Sendable {
  public var v = WireProtocol.version
  public var type = "hello"
  public var id: String
  public var plugin: String?

  public init(id: String, plugin: String? = nil) {
    self.id = id
    self.plugin = plugin
  }
}

public struct WelcomeReply: Codable, Hashable, Sendable {
  public var v = WireProtocol.version
  public var type = "welcome"
  public var id: String
  /// The hub instance: a new one after every start.
  public var hub: String
  /// The last committed sequence number.
  public var seq: Int64
  /// The write-ahead log and its last checkpoint (for `hearth status`).
  public var wal: WALStatus?
  /// What the hub takes: a client checks its frames against them before sending.
  public var limits: HubLimits?

  public init(
    id: String, hub: String, seq: Int64, wal: WALStatus? = nil, limits: HubLimits? = nil
  ) {
    self.id = id
    self.hub = hub
    self.seq = seq
    self.wal = wal
    self.limits = limits
  }
}

/// The hub's limits on a request, in `welcome`.
public struct HubLimits: Codable, Hashable, Sendable {
  /// The largest frame the hub reads (`max-message-size`); larger ones get `tooLarge` up to
  /// `transportMaxMessageSize`, past which the transport drops them with no reply.
  public var maxMessageSize: Int
  /// The largest frame the transport lets through (libzmq's `ZMQ_MAXMSGSIZE`, 4 ×
  /// `maxMessageSize`): a larger one is dropped with its connection, so no reply can come.
  public var transportMaxMessageSize: Int
  /// The most statements in one `transaction` message.
  public var maxStatements: Int

  /// The limits a hub checks requests against, as it announces them.
  public init(_ limits: WireRequest.Limits) {
    maxMessageSize = limits.maximumMessageSize
    transportMaxMessageSize = limits.maximumMessageSize * 4
    maxStatements = limits.maximumStatementsPerMessage
  }
}

/// The hub's write-ahead log, in `welcome`: its size against the bound the hub keeps it
/// under, and the last checkpoint.
public struct WALStatus: Codable, Hashable, Sendable {
  /// What the log holds now (frames × frame size; the file may be longer until cut back).
  public var bytes: Int
  /// The bound (`wal-limit-mb`): past it, the hub restarts the log after the next commit.
  public var limit: Int
  /// The most the log held since the hub started.
  public var peakBytes: Int
  /// The most one commit (or group commit) added to the log since the hub started.
  public var largestCommitBytes: Int
  /// RESTART checkpoints that completed, and those a reader or the checkpointer held off.
  public var restarts: Int
  public var incompleteRestarts: Int
  /// The time the writer spent in those checkpoints (the cost of the bound), in all and the
  /// longest one, in milliseconds.
  public var restartMilliseconds: Double
  public var slowestRestartMilliseconds: Double
  public var checkpoint: CheckpointStatus?

  public init(
    bytes: Int, limit: Int, peakBytes: Int, largestCommitBytes: Int, restarts: Int,
    incompleteRestarts: Int, restartMilliseconds: Double, slowestRestartMilliseconds: Double,
    checkpoint: CheckpointStatus?
  ) {
    self.bytes = bytes
    self.limit = limit
    self.peakBytes = peakBytes
    self.largestCommitBytes = largestCommitBytes
    self.restarts = restarts
    self.incompleteRestarts = incompleteRestarts
    self.restartMilliseconds = restartMilliseconds
    self.slowestRestartMilliseconds = slowestRestartMilliseconds
    self.checkpoint = checkpoint
  }
}

/// One checkpoint of the hub's log.
public struct CheckpointStatus: Codable, Hashable, Sendable {
  /// `passive` (the checkpointer thread) or `restart` (the writer, past the bound).
  public var mode: String
  /// When it ended, in milliseconds since 1970.
  public var at: Int64
  /// False when a reader (or another checkpoint) kept it from finishing.
  public var complete: Bool
  public var walFrames: Int
  public var checkpointedFrames: Int
  /// How long it took.
  public var milliseconds: Double

  public init(
    mode: String, at: Int64, complete: Bool, walFrames: Int, checkpointedFrames: Int,
    milliseconds: Double
  ) {
    self.mode = mode
    self.at = at
    self.complete = complete
    self.walFrames = walFrames
    self.checkpointedFrames = checkpointedFrames
    self.milliseconds = milliseconds
  }
}

/// `register`: a plugin's name, version, the tables it owns and its ordered migrations.
public struct RegisterRequest: Codable, Hashable, Sendable {
  public struct Migration: Codable, Hashable, Sendable {
    public var id: String
    public var sql: String
    public init(id: String, sql: String) {
      self.id = id
      self.sql = sql
    }
  }

  public var v = WireProtocol.version
  public var type = "register"
  public var id: String
  public var plugin: String
  public var version: String
  public var tables: [String]
  public var migrations: [Migration]

  public init(
    id: String, plugin: String, version: String, tables: [String], migrations: [Migration]
  ) {
    self.id = id
    self.plugin = plugin
    self.version = version
    self.tables = tables
    self.migrations = migrations
  }
}

public struct RegisteredReply: Codable, Hashable, Sendable {
  public var v = WireProtocol.version
  public var type = "registered"
  public var id: String
  public var plugin: String
  /// The migrations applied by this registration (already applied ones are skipped).
  public var applied: [String]
  public var seq: Int64

  public init(id: String, plugin: String, applied: [String], seq: Int64) {
    self.id = id
    self.plugin = plugin
    self.applied = applied
    self.seq = seq
  }
}

/// One statement of a transaction.
public struct WireStatement: Codable, Hashable, Sendable {
  public var sql: String
  public var args: [WireValue]?
  /// Whether the client wants the rows back (a SELECT, or RETURNING).
  public var rows: Bool?

  public init(sql: String, args: [WireValue]? = nil, rows: Bool? = nil) {
    self.sql = sql
    self.args = args
    self.rows = rows
  }

  /// At least as many bytes as the statement takes in a message (JSON's escapes counted at
  /// their longest): what a client adds up to keep its messages under the hub's size limit
  /// without encoding twice.
  public var encodedSizeBound: Int {
    var bytes = 32 + WireStatement.jsonStringBound(sql)
    for argument in args ?? [] {
      switch argument.value.storage {
      case .null: bytes += 5
      case .integer, .double: bytes += 40
      case .text(let text): bytes += 12 + WireStatement.jsonStringBound(text)
      case .blob(let data): bytes += 12 + (data.count + 2) / 3 * 4
      }
    }
    return bytes
  }

  private static func jsonStringBound(_ text: String) -> Int {
    var bytes = 2
    for byte in text.utf8 {
      bytes += byte < 0x20 ? 6 : (byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") ? 2 : 1)
    }
    return bytes
  }
}

/// `transaction`: statements of the transaction whose request id is `id`. The first message
/// with an id begins it; `end` (`"commit"` or `"rollback"`) ends it; messages without `end`
/// keep it open and get `results`. A transaction that begins and ends in one message may
/// share a COMMIT with others (group commit) without sharing their failures.
public struct TransactionRequest: Codable, Hashable, Sendable {
  public var v = WireProtocol.version
  public var type = "transaction"
  public var id: String
  public var plugin: String
  public var statements: [WireStatement]
  /// The 0-based index of this message within its transaction: a continuation (part > 0)
  /// of a transaction the hub does not hold is refused with `unknownTransaction`.
  public var part: Int?
  public var end: String?

  public init(
    id: String, plugin: String, statements: [WireStatement], part: Int = 0, end: String? = nil
  ) {
    self.id = id
    self.plugin = plugin
    self.statements = statements
    self.part = part
    self.end = end
  }
}

/// What one statement gave back.
public struct WireResult: Codable, Hashable, Sendable {
  public var columns: [String]
  public var rows: [[WireValue]]
  public var changes: Int
  public var lastRowID: Int64

  public init(columns: [String], rows: [[WireValue]], changes: Int, lastRowID: Int64) {
    self.columns = columns
    self.rows = rows
    self.changes = changes
    self.lastRowID = lastRowID
  }
}

/// The results of the statements of a `transaction` message that did not end it.
public struct ResultsReply: Codable, Hashable, Sendable {
  public var v = WireProtocol.version
  public var type = "results"
  public var id: String
  public var results: [WireResult]

  public init(id: String, results: [WireResult]) {
    self.id = id
    self.results = results
  }
}

/// The end of a transaction: committed at `seq` (0 when it changed nothing or rolled back).
/// A retried request id gets the first reply again, with `duplicate: true`.
public struct CommittedReply: Codable, Hashable, Sendable {
  public var v = WireProtocol.version
  public var type = "committed"
  public var id: String
  public var seq: Int64
  public var results: [WireResult]
  public var duplicate: Bool?
  public var rolledBack: Bool?

  public init(
    id: String, seq: Int64, results: [WireResult], duplicate: Bool? = nil,
    rolledBack: Bool? = nil
  ) {
    self.id = id
    self.seq = seq
    self.results = results
    self.duplicate = duplicate
    self.rolledBack = rolledBack
  }
}

/// `changes`: the committed changes after `since`, in order, from the durable feed.
public struct ChangesRequest: Codable, Hashable, Sendable {
  public var v = WireProtocol.version
  public var type = "changes"
  public var id: String
  public var since: Int64
  /// How many commits at most, 1 to 10,000; 1,000 when absent.
  public var limit: Int?

  /// What `limit` may be, and what it is when absent.
  public static let limits = 1...10_000
  public static let defaultLimit = 1_000

  public init(id: String, since: Int64, limit: Int? = nil) {
    self.id = id
    self.since = since
    self.limit = limit
  }
}

/// A plugin's cursor: the last sequence number it has processed. The hub keeps the feed
/// until every registered cursor has passed it (or it is older than the retention).
public struct CursorRequest: Codable, Hashable, Sendable {
  public var v = WireProtocol.version
  public var type = "cursor"
  public var id: String
  public var plugin: String
  public var seq: Int64

  public init(id: String, plugin: String, seq: Int64) {
    self.id = id
    self.plugin = plugin
    self.seq = seq
  }
}

/// `sync`: a plugin asks the hub to sync tables it owns (with the server, and every hub of
/// the account); any client asks for the sync state, a round of sync now (`action`
/// `now`: answered once a round begun after the request has pushed and pulled), a
/// `resync` (everything pushed and pulled again, nothing deleted), `acceptAccount` (after
/// the account changed: this hub's rows kept for the new one) or, as a plugin,
/// `deleteLocalData` (the synced tables emptied here, not on the server, and pulled again;
/// after an account change, from the new account).
public struct SyncRequest: Codable, Hashable, Sendable {
  public enum Action: String, Codable, Hashable, Sendable {
    case status, now, resync, deleteLocalData, acceptAccount
  }

  public var v = WireProtocol.version
  public var type = "sync"
  public var id: String
  public var plugin: String?
  public var tables: [String]
  public var action: Action

  public init(
    id: String, plugin: String? = nil, tables: [String] = [], action: Action = .status
  ) {
    self.id = id
    self.plugin = plugin
    self.tables = tables
    self.action = action
  }

  private enum CodingKeys: String, CodingKey { case v, type, id, plugin, tables, action }

  /// `tables` may be left out (none).
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    v = try container.decode(Int.self, forKey: .v)
    type = try container.decode(String.self, forKey: .type)
    id = try container.decode(String.self, forKey: .id)
    plugin = try container.decodeIfPresent(String.self, forKey: .plugin)
    tables = try container.decodeIfPresent([String].self, forKey: .tables) ?? []
    action = try container.decodeIfPresent(Action.self, forKey: .action) ?? .status
  }
}

/// The reply to `sync`: what the hub syncs, and how far it has come.
public struct SyncingReply: Codable, Hashable, Sendable {
  public var v = WireProtocol.version
  public var type = "syncing"
  public var id: String
  /// Every synced table, sorted.
  public var tables: [String]
  /// The server, without its password; nil when none is set up (changes are kept for it).
  public var server: String?
  public var zone: String
  /// This hub's id in the times it stamps.
  public var hub: String
  /// Rows with changes the server has not taken yet.
  public var pending: Int
  /// Pulled records waiting to be applied (a parent not here yet, a table not synced).
  public var held: Int
  /// The server's sequence number pulled up to, and the last one pushed.
  public var pulled: Int64
  public var pushed: Int64?
  public var lastError: String?
  /// `old → new` when the account changed since this hub last synced, or
  /// `zone deleted on the server: <account>` (`zoneDeletedPrefix`): nothing is pushed or
  /// pulled until `acceptAccount` or `deleteLocalData`.
  public var accountChange: String?
  public static let zoneDeletedPrefix = "zone deleted on the server: "

  public init(
    id: String, tables: [String], server: String?, zone: String, hub: String, pending: Int,
    held: Int, pulled: Int64, pushed: Int64?, lastError: String?, accountChange: String? = nil
  ) {
    self.id = id
    self.tables = tables
    self.server = server
    self.zone = zone
    self.hub = hub
    self.pending = pending
    self.held = held
    self.pulled = pulled
    self.pushed = pushed
    self.lastError = lastError
    self.accountChange = accountChange
  }
}

/// The reply to `cursor`: the cursor as stored and the feed's horizon.
public struct CursorSavedReply: Codable, Hashable, Sendable {
  public var v = WireProtocol.version
  public var type = "cursorSaved"
  public var id: String
  public var plugin: String
  public var seq: Int64
  /// The oldest sequence number the feed still holds.
  public var horizon: Int64

  public init(id: String, plugin: String, seq: Int64, horizon: Int64) {
    self.id = id
    self.plugin = plugin
    self.seq = seq
    self.horizon = horizon
  }
}

/// One commit of the feed: published on the bus (topic `commit`) and returned by `changes`.
public struct CommitEvent: Codable, Hashable, Sendable {
  public var v = WireProtocol.version
  public var type = "commit"
  public var hub: String
  public var seq: Int64
  public var plugin: String
  public var request: String
  /// Milliseconds since 1970.
  public var at: Int64
  /// Each changed table's rows, in the form the SQLite layer reports them (`TableChanges`
  /// is the one change record: the hub records it, the bus carries it, a plugin's observers
  /// receive it).
  public var tables: [String: TableChanges]
  public var schemaChanged: Bool?

  public init(
    hub: String, seq: Int64, plugin: String, request: String, at: Int64,
    changes: DatabaseChanges
  ) {
    self.hub = hub
    self.seq = seq
    self.plugin = plugin
    self.request = request
    self.at = at
    self.tables = changes.tables
    self.schemaChanged = changes.isSchemaChanged ? true : nil
  }

  /// The commit as the observers of a local database see it.
  public var changes: DatabaseChanges {
    DatabaseChanges(tables: tables, isSchemaChanged: schemaChanged == true)
  }
}

public struct ChangesReply: Codable, Hashable, Sendable {
  public var v = WireProtocol.version
  public var type = "changes"
  public var id: String
  public var commits: [CommitEvent]
  /// The last committed sequence number now.
  public var seq: Int64
  /// The oldest sequence number the feed still holds; a subscriber whose cursor is older
  /// must re-read what it observes.
  public var horizon: Int64

  public init(id: String, commits: [CommitEvent], seq: Int64, horizon: Int64) {
    self.id = id
    self.commits = commits
    self.seq = seq
    self.horizon = horizon
  }
}

/// On the bus every second (topic `heartbeat`): a quiet hub from a dead or restarted one.
public struct HeartbeatEvent: Codable, Hashable, Sendable {
  public var v = WireProtocol.version
  public var type = "heartbeat"
  public var hub: String
  public var seq: Int64
  public var at: Int64

  public init(hub: String, seq: Int64, at: Int64) {
    self.hub = hub
    self.seq = seq
    self.at = at
  }
}

/// A refusal. `code` says what kind; SQLite failures carry SQLite's codes.
public struct ErrorReply: Codable, Hashable, Sendable, Error, CustomStringConvertible {
  public struct Code: RawRepresentable, Codable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Not JSON, or not an object with `v`, `type` and `id`.
    public static let malformed = Code(rawValue: "malformed")
    /// A protocol version this hub does not speak.
    public static let unsupportedVersion = Code(rawValue: "unsupportedVersion")
    public static let unknownType = Code(rawValue: "unknownType")
    /// The message is larger than the hub's limit.
    public static let tooLarge = Code(rawValue: "tooLarge")
    public static let tooManyStatements = Code(rawValue: "tooManyStatements")
    /// The plugin has not registered.
    public static let notRegistered = Code(rawValue: "notRegistered")
    /// The statement does something the plugin may not do (another plugin's table, DDL
    /// outside a migration, ATTACH…). Nothing of the transaction stays.
    public static let unauthorized = Code(rawValue: "unauthorized")
    /// SQLite refused the statement; `sqlite` has its codes.
    public static let sqlite = Code(rawValue: "sqlite")
    /// A continuation of a transaction the hub does not have (it restarted, or the
    /// transaction timed out): run the whole transaction again, with the same id.
    public static let unknownTransaction = Code(rawValue: "unknownTransaction")
    /// Another client's transaction holds the writer and the queue is full: retry later.
    public static let busy = Code(rawValue: "busy")
    /// The client went silent inside its transaction; it was rolled back.
    public static let timeout = Code(rawValue: "timeout")
    public static let migrationFailed = Code(rawValue: "migrationFailed")
    /// A table asked to be synced breaks a rule of synced tables (the message names it).
    public static let notSyncable = Code(rawValue: "notSyncable")
    /// No round of sync could finish: no server is set up, or it cannot be reached (the
    /// message has the last error). Local writes go on; their changes wait.
    public static let syncFailed = Code(rawValue: "syncFailed")
    public static let `internal` = Code(rawValue: "internal")

    public init(from decoder: any Decoder) throws {
      rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      try container.encode(rawValue)
    }
  }

  public struct SQLiteCodes: Codable, Hashable, Sendable {
    public var code: Int32
    public var extended: Int32
    public init(code: Int32, extended: Int32) {
      self.code = code
      self.extended = extended
    }
  }

  public var v = WireProtocol.version
  public var type = "error"
  public var id: String?
  public var code: Code
  public var message: String
  /// The index of the failing statement in its message, when one failed.
  public var statement: Int?
  public var sqlite: SQLiteCodes?

  public init(
    id: String?, code: Code, message: String, statement: Int? = nil, sqlite: SQLiteCodes? = nil
  ) {
    self.id = id
    self.code = code
    self.message = message
    self.statement = statement
    self.sqlite = sqlite
  }

  public var description: String {
    var text = "hub error \(code.rawValue): \(message)"
    if let statement { text += " (statement \(statement))" }
    return text
  }
}

/// JSON in and out, the same way on both sides: sorted keys, no escaped slashes.
public enum WireCoding {
  public static func encode(_ value: some Encodable) throws -> Data {
    // The messages of a long transaction, without the generic coders (`TransactionCodec`).
    if let transaction = value as? TransactionRequest {
      return try TransactionCodec.encode(transaction)
    }
    if let results = value as? ResultsReply { return try TransactionCodec.encode(results) }
    // What every commit writes: the event and the writer's reply.
    if let event = value as? CommitEvent { return try TransactionCodec.encode(event) }
    if let reply = value as? CommittedReply { return try TransactionCodec.encode(reply) }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return try encoder.encode(value)
  }

  public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
    if type == ResultsReply.self, let results = TransactionCodec.decodeResults(data) {
      return results as! T  // T is ResultsReply: checked just above
    }
    if type == CommittedReply.self, let reply = TransactionCodec.decodeCommitted(data) {
      return reply as! T  // T is CommittedReply: checked just above
    }
    return try JSONDecoder().decode(type, from: data)
  }
}

extension StatementResult {
  public init(_ wire: WireResult) {
    self.init(
      columnNames: wire.columns, rows: wire.rows.map { $0.map(\.value) },
      changesCount: wire.changes, lastInsertedRowID: wire.lastRowID)
  }
}

extension WireResult {
  public init(_ result: StatementResult) {
    self.init(
      columns: result.columnNames, rows: result.rows.map { $0.map(WireValue.init) },
      changes: result.changesCount, lastRowID: result.lastInsertedRowID)
  }
}
