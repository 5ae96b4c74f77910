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
  /// Asks for `welcome.locks`: the hub then looks at the machine's lock table (at most once a
  /// second; see Protocols/README.md "The write-ahead log").
  public var locks: Bool?

  public init(id: String, plugin: String? = nil, locks: Bool? = nil) {
    self.id = id
    self.plugin = plugin
    self.locks = locks
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
  /// The hub's connections, descriptors and what its limits refused (for `hearth status`).
  public var connections: ConnectionStatus?
  /// Locks that other processes hold on the database's shared memory against the writer
  /// (for `hearth status`), when `hello` asked for them; empty when there are none.
  public var locks: [ForeignLock]?

  public init(
    id: String, hub: String, seq: Int64, wal: WALStatus? = nil, limits: HubLimits? = nil,
    connections: ConnectionStatus? = nil, locks: [ForeignLock]? = nil
  ) {
    self.id = id
    self.hub = hub
    self.seq = seq
    self.wal = wal
    self.limits = limits
    self.connections = connections
    self.locks = locks
  }
}

/// The hub's connections and descriptors, in `welcome`.
public struct ConnectionStatus: Codable, Hashable, Sendable {
  /// Descriptors the hub has open, and its soft and hard limits (`RLIMIT_NOFILE`).
  public var openFiles: Int
  public var fileLimit: Int
  public var fileHardLimit: Int
  /// The request stream's connections now, those of them still in their handshake, the
  /// requests read and not yet served (on either socket, and waiting for the writer), and
  /// the bytes of replies waiting to be read by the stream's clients.
  public var streamConnections: Int
  public var streamHandshaking: Int
  public var waitingRequests: Int
  public var replyBytes: Int
  /// The stream's bounds: connections, connections a principal, and reply bytes.
  public var maxStreamConnections: Int
  public var maxConnectionsPerPrincipal: Int
  public var replyBudget: Int
  /// Since the hub started: connections closed because the stream had its most, handshakes
  /// closed for newer ones, connections refused because their principal had its most,
  /// connections closed for replies past a budget, and failures to accept for want of
  /// descriptors.
  public var refusedConnections: Int
  public var closedHandshakes: Int
  public var refusedForPrincipal: Int
  public var closedForReplies: Int
  public var acceptFailures: Int

  public init(
    openFiles: Int, fileLimit: Int, fileHardLimit: Int, streamConnections: Int,
    streamHandshaking: Int, waitingRequests: Int, replyBytes: Int, maxStreamConnections: Int,
    maxConnectionsPerPrincipal: Int, replyBudget: Int, refusedConnections: Int,
    closedHandshakes: Int, refusedForPrincipal: Int, closedForReplies: Int, acceptFailures: Int
  ) {
    self.openFiles = openFiles
    self.fileLimit = fileLimit
    self.fileHardLimit = fileHardLimit
    self.streamConnections = streamConnections
    self.streamHandshaking = streamHandshaking
    self.waitingRequests = waitingRequests
    self.replyBytes = replyBytes
    self.maxStreamConnections = maxStreamConnections
    self.maxConnectionsPerPrincipal = maxConnectionsPerPrincipal
    self.replyBudget = replyBudget
    self.refusedConnections = refusedConnections
    self.closedHandshakes = closedHandshakes
    self.refusedForPrincipal = refusedForPrincipal
    self.closedForReplies = closedForReplies
    self.acceptFailures = acceptFailures
  }
}

/// A lock another process holds on the database's shared memory (`-shm`) that stops the
/// writer: SQLite's write or checkpoint lock, which any process that can read the file can
/// take. Read from `/proc/locks`.
public struct ForeignLock: Codable, Hashable, Sendable {
  /// The holder (nil for an open file description lock, whose holder the kernel does not
  /// name), its command and its systemd unit when it has one.
  public var pid: Int?
  public var command: String?
  public var unit: String?
  /// Which lock: `write` (byte 120) or `checkpoint` (121), and `shared` or `exclusive`.
  public var lock: String
  public var mode: String

  public init(pid: Int?, command: String?, unit: String?, lock: String, mode: String) {
    self.pid = pid
    self.command = command
    self.unit = unit
    self.lock = lock
    self.mode = mode
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

  /// What CURVE adds to a ZeroMQ frame (the command name `MESSAGE`, an 8-byte nonce, the
  /// flags and a 16-byte tag): the transport's bound on the wire is this much more than
  /// `transportMaxMessageSize`, so that a message of exactly that size goes through.
  public static let curveOverhead = 33

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
  /// Checkpoints the hub has made since it started, by connection: only `writer` ever
  /// appears (SQLite's WAL-reset bug needs a checkpoint on another connection than the one
  /// committing). Absent from hubs that do not report it.
  public var checkpointsByConnection: [String: Int]?

  public init(
    bytes: Int, limit: Int, peakBytes: Int, largestCommitBytes: Int, restarts: Int,
    incompleteRestarts: Int, restartMilliseconds: Double, slowestRestartMilliseconds: Double,
    checkpoint: CheckpointStatus?, checkpointsByConnection: [String: Int]? = nil
  ) {
    self.checkpointsByConnection = checkpointsByConnection
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

extension WireEnvelope: ScannedMessage {
  /// The `v`, `type` and `id` of any message object, every other member read over (its
  /// JSON checked, not kept); nil for anything unusual (a key twice, a number past a
  /// Double, nesting past 64 levels).
  package init?(scanning scanner: inout JSONScanner) {
    var (v, type, id): (Int?, String?, String??) = (nil, nil, nil)
    var keys = SeenKeys()
    let read = scanner.object { scanner, key in
      guard let key, keys.insert(key) else { return false }
      switch key {
      case "v": v = scanner.integer()
      case "type": type = scanner.string()
      case "id": id = scanner.nullOr { $0.string() }
      default: return scanner.skipValue(depth: 0)
      }
      return key == "v" ? v != nil : key == "type" ? type != nil : id != nil
    }
    guard read, let v, let type else { return nil }
    self.init(v: v, type: type, id: id ?? nil)
  }
}

extension HelloRequest: WireMessage {}
extension WelcomeReply: WireMessage {}
extension RegisterRequest: WireMessage {}
extension RegisteredReply: WireMessage {}
