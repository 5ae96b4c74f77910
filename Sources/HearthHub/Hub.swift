import Foundation
import HearthDependencies
import HearthSQLite
import HearthService
import HearthTransport
import HearthWire
import Synchronization

/// The hub engine: owns the database (the only writer), answers requests on a ROUTER
/// socket, applies each client's transaction atomically in arrival order, records every
/// commit in the change feed in the same transaction, and publishes it on the bus.
///
/// `run()` blocks the calling thread until `stop()`; everything else happens on that thread
/// (the sockets and the writer connection have that one owner).
public final class Hub: Sendable {
  public let configuration: HubConfiguration
  /// A new identifier at every start: subscribers tell a restarted hub from a quiet one.
  public let instanceID = UUID().uuidString.lowercased()
  let database: DatabasePool
  /// Sync: the capture on the writer, the service when a server is set up.
  let sync: HubSync
  /// The bound on the write-ahead log (see `WALBound`).
  let walBound: WALBound
  private let lock: HubLock
  /// Other processes' locks against the writer on the `-shm` (see `SharedMemoryLocks`):
  /// looked at on the hub's thread, when asked.
  let locks: SharedMemoryLocks
  /// Rung by `stop()`, and never cleared: the loop waits on it beside its sockets and ends
  /// after the turn that hears it — at once, not at its next timer — and no flag is polled.
  let stopBell: Doorbell
  private let isReady = Atomic<Bool>(false)
  /// The last sequence number whose commit is durable (and announced).
  private let sequence: Atomic<Int64>
  /// The last sequence number committed to the file (durable or not yet).
  private let committed: Atomic<Int64>
  /// Makes the commits durable off the hub's thread (see `WALSyncer`).
  let syncer: WALSyncer
  private let groupCommits = Atomic<Int>(0)
  /// The hub's time, read from the dependencies when it is made (a test sets a `TestClock`
  /// and a fixed date with `withDependencies`): `elapsed` for its timeouts and intervals,
  /// `date` for the feed's timestamps.
  let clock: Stopwatch
  private let date: DateGenerator

  /// How many COMMITs carried several clients' transactions (group commits) since start.
  public var groupCommitCount: Int { groupCommits.load(ordering: .relaxed) }

  func countGroupCommit() { groupCommits.add(1, ordering: .relaxed) }

  /// Opens the database and creates the runtime directory. Refuses a database that is not a
  /// database, is corrupt, or is of another hub format, touching nothing; refuses to start
  /// beside another hub on the same database or the same sockets (see `HubLock`).
  public init(configuration: HubConfiguration) throws {
    self.configuration = configuration
    let dependencies = DependencyValues.current
    clock = Stopwatch(dependencies.continuousClock)
    date = dependencies.date
    try FileManager.default.createDirectory(
      atPath: (configuration.databasePath as NSString).deletingLastPathComponent,
      withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    lock = try HubLock(paths: configuration.paths)
    locks = SharedMemoryLocks(databasePath: configuration.databasePath, clock: clock)
    try HubLock.checkSocketsAreFree(in: configuration.runtimeDirectory)
    try Hub.checkExistingFile(configuration.databasePath)
    try Hub.restrictToOwner(configuration.databasePath)
    var databaseConfiguration = Configuration()
    databaseConfiguration.label = "hearthd"
    databaseConfiguration.foreignKeysEnabled = true
    let pool = try DatabasePool(
      path: configuration.databasePath, configuration: databaseConfiguration)
    database = pool
    let syncer = try WALSyncer(databasePath: configuration.databasePath)
    self.syncer = syncer
    stopBell = try Doorbell()
    let (last, pageSize, sync) = try pool.inWriterDatabase { db in
      // The change feed names the columns that updates changed, and lists the rows of a
      // table up to a bound.
      db.recordsUpdatedColumns = true
      db.maximumTrackedRowsPerTable = configuration.maximumListedRowsPerTable
      // The hub's own rows (a feed entry and an exactly-once record a transaction) are in no
      // change event: not tracking them spares the update hook's work for each.
      db.untrackedTablePrefix = HubTables.prefix
      // A COMMIT does not wait for the disk: the syncer's thread does, and nobody hears of
      // the commit before (pipelined group commit, see `WALSyncer`).
      try db.execute(sql: "PRAGMA synchronous = NORMAL")
      try HubStore.prepare(db)
      return (
        try HubTables.lastSequence(db), try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096,
        try HubSync(configuration: configuration, database: pool, syncer: syncer, db)
      )
    }
    self.sync = sync
    let walBound = WALBound(configuration: configuration, pageSize: pageSize, clock: clock)
    // Checkpoints run on the checkpointer thread and, past the bound, after a commit (see
    // `WALBound`), never inside the COMMIT that happens to cross SQLite's threshold.
    try database.inWriterDatabase { db in try walBound.install(on: db) }
    self.walBound = walBound
    sequence = Atomic(last)
    committed = Atomic(last)
  }

  /// A file that exists must be a SQLite database, of this hub's format, before the hub
  /// touches it. (This reads the schema, not every page: `hearth check` runs the full
  /// integrity check.) A file refused is left as it was found: a header that says WAL has
  /// SQLite make a `-wal` and `-shm` even for this read-only look, and those go again.
  static func checkExistingFile(_ path: String) throws {
    guard FileManager.default.fileExists(atPath: path) else { return }
    let made = ["-wal", "-shm"].map { path + $0 }.filter {
      !FileManager.default.fileExists(atPath: $0)
    }
    do {
      try checkFormat(path)
    } catch {
      for file in made { try? FileManager.default.removeItem(atPath: file) }
      throw error
    }
  }

  private static func checkFormat(_ path: String) throws {
    var configuration = Configuration()
    configuration.readonly = true
    var format: String?
    do {
      let queue = try DatabaseQueue(path: path, configuration: configuration)
      format = try queue.read { db in
        guard try db.tableExists("hearth_meta") else { return nil }
        return try String.fetchOne(db, sql: "SELECT value FROM hearth_meta WHERE key = 'format'")
      }
    } catch let error as DatabaseError
      where error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT
    {
      throw DatabaseError(
        resultCode: error.extendedResultCode,
        message: "\(path) is not a sound database (\(error.message ?? "\(error)")); the hub "
          + "refuses to start and has changed nothing. Restore a backup (hearth backup makes them)."
      )
    } catch {
      // Anything else (a WAL database whose -shm a read-only connection cannot create…) is
      // left to the real open, which reports it.
    }
    // Checked before the real open, which would turn the file to WAL mode.
    if let format, format != String(HubStore.format) {
      throw DatabaseError(
        resultCode: .SQLITE_ERROR, message: HubStore.otherFormatMessage(format))
    }
  }

  /// The database and its `-wal` and `-shm` readable and writable by their owner only
  /// (0600), whatever the umask: the file is created so (SQLite gives the `-wal` and `-shm`
  /// it creates the database file's mode), and a file a more open umask made is closed to
  /// others. Plugins read it as the same user; nobody else reads or writes it.
  static func restrictToOwner(_ path: String) throws {
    if !FileManager.default.fileExists(atPath: path) {
      let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
      guard descriptor >= 0 else {
        throw HubError("cannot create \(path): \(String(cString: strerror(errno)))")
      }
      close(descriptor)
    }
    for file in [path, path + "-wal", path + "-shm"] {
      var status = stat()
      guard stat(file, &status) == 0, status.st_mode & 0o077 != 0 else { continue }
      guard chmod(file, 0o600) == 0 else {
        throw HubError(
          "cannot make \(file) private (mode 0600): \(String(cString: strerror(errno)))")
      }
    }
  }

  /// The last committed sequence number whose commit is durable: what the hub has announced.
  public var lastSequence: Int64 { sequence.load(ordering: .relaxed) }

  /// The last sequence number committed to the file, durable or not yet: the next commit
  /// takes the one after it.
  var committedSequence: Int64 { committed.load(ordering: .relaxed) }

  /// Whether the sockets are bound and requests are served.
  public var ready: Bool { isReady.load(ordering: .relaxed) }

  /// Asks `run()` to finish: in-flight work is completed or rolled back, then it returns.
  public func stop() {
    stopBell.ring()
  }

  /// The write-ahead log: its size, bound and last checkpoint.
  public var walStatus: WALStatus { walBound.status }

  /// Serves until `stop()`, its services a group of their own (hearthd runs `services`
  /// in its one group instead). `onReady` runs once the sockets are bound. A hub runs once:
  /// when this returns, the next hub may start on the database.
  public func run(onReady: @escaping @Sendable () -> Void = {}) throws {
    defer { lock.release() }
    let group = ServiceGroup(
      try services(onReady: onReady), signals: [], logger: Logger(label: "hearthd"))
    do {
      try group.run()
    } catch let failure as ServiceFailure {
      throw failure.error
    }
  }

  /// Every thread the hub needs, as services of one group, in the order they stop (each
  /// once the one before it has ended, `ServiceGroup`):
  ///
  /// 1. the sync service, whose writes in flight go through the loop and finish there;
  /// 2. the request loop (`stop()`), which answers or refuses what it holds;
  /// 3. the checkpointer, on the writer's connection between the loop's commits;
  /// 4. the WAL syncer, which makes the loop's last commits durable before it ends;
  /// 5. the ZAP handler, which admits the loop's clients while they may connect.
  ///
  /// When any of them ends or fails, the group stops them all, the loop included.
  public func services(onReady: @escaping @Sendable () -> Void = {}) throws -> [any Service] {
    let context = BusContext()
    let zap = try ZAPService(context, keyring: configuration.paths.keyring)
    let loop = RequestLoop(hub: self, context: context, zap: zap, onReady: onReady)
    let inOrder: [(any Service)?] = [sync.helper, loop, checkpointer(), syncer, zap]
    return inOrder.compactMap { $0 }
  }

  /// The request loop as a service: binds the sockets once the ZAP handler listens, serves
  /// until `stop()`, then answers or refuses what waits and truncates the log.
  private struct RequestLoop: Service {
    let hub: Hub
    let context: BusContext
    let zap: ZAPService
    let onReady: @Sendable () -> Void
    var name: String { "hub" }

    func run() throws { try hub.serve(context, zap: zap, onReady: onReady) }
    func stop() { hub.stop() }
  }

  private func serve(
    _ context: BusContext, zap: ZAPService, onReady: () -> Void
  ) throws {
    // Whatever ends the loop, the sync service's writes waiting for it are refused.
    defer { sync.jobs.close() }
    try FileManager.default.createDirectory(
      atPath: configuration.runtimeDirectory, withIntermediateDirectories: true,
      attributes: [.posixPermissions: 0o700])
    chmod(configuration.runtimeDirectory, 0o700)
    let keys = try curveKeys()
    try zap.waitUntilBound()
    let (router, publisher) = try bindSockets(context, keys: keys)
    // A clean stop leaves no socket files behind (the lock is held until the group ends, so
    // no other hub has bound these paths meanwhile).
    defer {
      for path in ["hub.sock", "bus.sock"] { unlink(configuration.runtimeDirectory + "/" + path) }
    }
    try publishPublicKey(keys.publicKey)
    var requests = true
    while true {
      let more = try prune(requests: requests)
      guard more.feed || more.requests else { break }
      requests = more.requests
    }

    let streams = try RequestStreams(
      path: configuration.paths.requestStreamPath, keys: keys,
      limit: HubLimits(configuration.limits).transportMaxMessageSize,
      limits: StreamLimits(
        descriptors: OpenFiles.now().soft, replyBudget: configuration.replyMemoryBudget),
      clock: clock)
    defer { streams.close() }
    var session = HubSession(hub: self, router: router, streams: streams, publisher: publisher)
    isReady.store(true, ordering: .relaxed)
    onReady()
    defer { isReady.store(false, ordering: .relaxed) }
    // Each turn waits for a request, a bell (the syncer's, the sync jobs', `stop()`'s) or
    // 50 ms at most: the timers (heartbeats, expiry, pruning) are looked at every turn.
    while try session.serveOnce(waitingAtMost: .milliseconds(50)) {}
    try session.finish()
    try database.checkpoint(.truncate)
  }

  /// The hub's CURVE keys: the configuration's when it has them, else the keyring's
  /// `hub.key` (made at the first start).
  private func curveKeys() throws -> CurveKeyPair {
    if let secret = configuration.curveSecretKey {
      guard let keys = CurveKeyPair(secretKey: secret),
        configuration.curvePublicKey.map({ $0 == keys.publicKey }) ?? true
      else { throw HubError("curveSecretKey is not a CURVE secret key (Z85) of curvePublicKey") }
      return keys
    }
    return try configuration.paths.keyring.hubKeys()
  }

  /// The request socket (ROUTER) and the bus (PUB) on their ipc endpoints and the extra tcp
  /// ones. Every request connection is CURVE, admitted by the ZAP handler under its domain
  /// (`ipc`: any key, anonymous when it is no plugin's; `tcp`: issued keys only); the bus is
  /// open to any subscriber on ipc and CURVE with issued keys over tcp.
  private func bindSockets(_ context: BusContext, keys: CurveKeyPair) throws -> (
    router: BusSocket, publisher: BusSocket
  ) {
    let router = try BusSocket(context, .router)
    // libzmq drops messages far beyond the limit before they reach memory; those within get
    // a typed `tooLarge` reply. It checks the frame as it travels, which CURVE makes 33
    // bytes longer than the message (its command name, nonce, flags and tag).
    try router.setMaximumMessageSize(
      HubLimits(configuration.limits).transportMaxMessageSize + HubLimits.curveOverhead)
    // What libzmq holds per connection: requests read and not yet received (past it, it
    // stops reading that connection), and replies the client has not read (past it, they are
    // dropped: a client that does not read its replies gets no more). An honest client has
    // a request or two in flight.
    try router.setReceiveHighWaterMark(64)
    try router.setSendHighWaterMark(16)
    try router.setHeartbeat(interval: .seconds(1), timeout: .seconds(5))
    // A client that connects and never finishes the handshake holds a descriptor: it is let
    // go after two seconds, not libzmq's thirty (an honest one finishes in milliseconds).
    try router.setHandshakeDeadline(.seconds(2))
    let publisher = try BusSocket(context, .pub)
    try publisher.setSendHighWaterMark(configuration.busHighWaterMark)
    // What a killed hub left (a live hub's sockets answer: `init` refused to start then).
    for path in ["hub.sock", "bus.sock"] {
      unlink(configuration.runtimeDirectory + "/" + path)
    }
    try router.makeCurveServer(keys)
    try router.setZAPDomain(Identities.ipcDomain)
    try router.bind(configuration.requestEndpoint)
    try publisher.bind(configuration.busEndpoint)
    if !(configuration.extraRequestEndpoints + configuration.extraBusEndpoints).isEmpty {
      try router.setZAPDomain(Identities.tcpDomain)
      try publisher.makeCurveServer(keys)
      try publisher.setZAPDomain(Identities.tcpDomain)
      for endpoint in configuration.extraRequestEndpoints { try router.bind(endpoint) }
      for endpoint in configuration.extraBusEndpoints { try publisher.bind(endpoint) }
    }
    return (router, publisher)
  }

  /// Writes the hub's public key to `<runtime>/hub.pub`, whole (a new file renamed over the
  /// old), for the clients of the ipc sockets.
  private func publishPublicKey(_ key: String) throws {
    let path = configuration.paths.hubPublicKeyPath
    let temporary = path + ".tmp"
    guard FileManager.default.createFile(atPath: temporary, contents: Data((key + "\n").utf8)),
      rename(temporary, path) == 0
    else { throw HubError("cannot write the hub's public key to \(path)") }
  }

  /// Copies the WAL into the database file every `checkpointInterval`, and often while the
  /// log nears its bound, from a thread of its own but on the writer's connection, between
  /// two of its commits: no checkpoint ever runs beside a commit on another connection,
  /// which SQLite's WAL-reset bug needs (see `WALBound`). Nil when the interval is zero.
  private func checkpointer() -> (any Service)? {
    guard configuration.checkpointInterval > .zero else { return nil }
    return Checkpointer(
      walBound: walBound, interval: configuration.checkpointInterval, database: database)
  }

  private final class Checkpointer: Service {
    let name = "hearthd.checkpoint"
    let walBound: WALBound
    let interval: Duration
    let database: DatabasePool
    private let stopping = Atomic<Bool>(false)

    init(walBound: WALBound, interval: Duration, database: DatabasePool) {
      (self.walBound, self.interval, self.database) = (walBound, interval, database)
    }

    func run() {
      while !stopping.load(ordering: .acquiring) {
        walBound.passiveTurn(database, interval: interval)
      }
    }

    /// Wakes the turn that waits: the loop sees `stopping` at once.
    func stop() {
      stopping.store(true, ordering: .releasing)
      walBound.wakeUp()
    }
  }

  /// Prunes the change feed by age and by the slowest registered cursor, and the old
  /// exactly-once records while `requests` is true: one batch of `pruneBatch` rows each;
  /// returns which have more due. After each batch the WAL bound is checked, as after any
  /// commit.
  func prune(requests: Bool = true) throws -> (feed: Bool, requests: Bool) {
    try database.inWriterDatabase { db in
      let more = try HubStore.prune(
        olderThan: configuration.feedRetention, keepingRecent: configuration.feedKeepRecent,
        last: committedSequence, batch: configuration.pruneBatch, requests: requests,
        at: millisecondsNow(), db)
      walBound.checkpointIfNeeded(db)
      return more
    }
  }

  /// A commit took the next sequence number.
  func advanceCommittedSequence() { committed.add(1, ordering: .relaxed) }

  /// The commit of sequence number `seq` is durable.
  func markDurable(_ seq: Int64) { sequence.store(seq, ordering: .relaxed) }

  /// Now, in milliseconds since 1970 (the feed's `at`).
  func millisecondsNow() -> Int64 { Int64(date().timeIntervalSince1970 * 1000) }
}

/// A failure of the hub itself (configuration, start-up), with what to do.
public struct HubError: Error, CustomStringConvertible, Sendable {
  public var description: String
  public init(_ description: String) { self.description = description }
}
