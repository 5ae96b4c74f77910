import Foundation
import HearthData
import HearthTransport
import HearthWire
import Synchronization

/// The database of a feature process: reads go straight to the hub's file through
/// read-only connections; each `write { db in … }` is one transaction carried to the hub;
/// observation follows the hub's change bus. It is all a plugin writes:
///
/// ```swift
/// prepareDependencies {
///   $0.defaultDatabase = try! HubDatabase(
///     PluginRegistration(name: "facts", version: "1.0", tables: ["facts"], migrator: migrator))
/// }
/// ```
///
/// A write closure may run more than once: when the hub restarts in the middle of it, the
/// transaction is gone, and the closure runs again (with the same request id, so that a
/// transaction whose COMMIT did happen is never applied twice).
public final class HubDatabase: DatabaseWriter {
  public let registration: PluginRegistration
  public let paths: HubPaths
  /// How this process reaches the hub.
  public let transport: HubTransport
  public let configuration: Configuration
  public var path: String { paths.databasePath }
  /// Attempts of one write when the hub is away or lost the transaction.
  public let maximumAttempts: Int
  /// How long a write waits for a hub that does not answer (down, restarting) before it
  /// throws `hubCode == .unavailable`: 1 s by default, so that a command says at once that
  /// the hub is not running; a process that should ride out a restart waits longer.
  public let hubWait: Duration

  private let context = BusContext()
  let connection: HubConnection
  private let cursorReporter: CursorReporter
  /// The read-only connections and the bus listener, made on first use.
  private let opened = Locked<Opened?>(nil)
  /// Observers added before the database could be opened: attached once it is.
  private let waitingObservers = Locked<[(UUID, @Sendable (DatabaseChanges) -> Void)]>([])
  private let removedObservers = Locked(Set<UUID>())
  /// One hub transaction at a time per process (a transaction holds the hub's writer).
  private let writeLock = NSLock()

  private struct Opened: Sendable {
    var readers: DatabasePool
    var listener: BusListener
  }

  /// Makes the plugin's database without touching anything yet: on first use it opens the
  /// hub's file read-only and follows the bus, after registering with the hub (applying the
  /// plugin's pending migrations there) unless the file already holds this registration —
  /// so reads work while the hub is down. The hub is reached over `transport`, by default
  /// the environment's (`HubTransport.fromEnvironment`): the ipc sockets of `paths` unless
  /// tcp endpoints and the hub's key are set.
  public init(
    _ registration: PluginRegistration, paths: HubPaths = .fromEnvironment(),
    transport: HubTransport? = nil, requestTimeout: Duration = .seconds(5),
    maximumAttempts: Int = 20, hubWait: Duration = .seconds(1)
  ) throws {
    self.registration = registration
    self.maximumAttempts = maximumAttempts
    self.hubWait = hubWait
    self.paths = paths
    let transport = try transport ?? .fromEnvironment(paths, plugin: registration.name)
    self.transport = transport
    var configuration = Configuration()
    configuration.readonly = true
    configuration.label = "\(registration.name).readers"
    self.configuration = configuration
    connection = try HubConnection(context: context, transport: transport, timeout: requestTimeout)
    cursorReporter = CursorReporter(connection: connection, plugin: registration.name)
  }

  deinit { opened.withLock { $0?.listener.stop() } }

  /// Registers the plugin with the hub now (its migrations applied, its tables claimed),
  /// unless the hub's file already holds this registration; opens the database. Any read or
  /// write does this first; call it to find out at start-up whether the hub takes the
  /// plugin.
  public func prepare() throws { _ = try open() }

  private func open() throws -> Opened {
    try opened.withLock { opened in
      if let opened { return opened }
      let sequence = try sequenceIfRegistered() ?? register()
      let readers = try DatabasePool(path: paths.databasePath, configuration: configuration)
      let listener = try BusListener(
        context: context, transport: transport, reader: readers, lastSequence: sequence,
        onAdvance: cursorReporter.advanced(to:))
      let made = Opened(readers: readers, listener: listener)
      opened = made
      let removed = removedObservers.withLock { $0 }
      for (id, observer) in waitingObservers.withLock({ $0 }) where !removed.contains(id) {
        listener.addObserver(id: id, observer)
      }
      waitingObservers.withLock { $0.removeAll() }
      return made
    }
  }

  /// The hub's sequence number when its file holds this registration already (the same
  /// version, every table claimed, every migration applied); nil when the plugin must
  /// register.
  private func sequenceIfRegistered() throws -> Int64? {
    guard FileManager.default.fileExists(atPath: paths.databasePath) else { return nil }
    return try DatabaseQueue(path: paths.databasePath, configuration: configuration).read { db in
      guard try db.tableExists(HubTables.plugins),
        let plugin = try HubTables.registeredPlugins(db).first(where: {
          $0.name == registration.name
        }),
        plugin.version == registration.version,
        Set(registration.tables.map { $0.lowercased() })
          .isSubset(of: plugin.tables.map { $0.lowercased() }),
        Set(registration.migrations.map(\.id))
          .isSubset(of: try HubTables.appliedMigrations(of: registration.name, db))
      else { return nil }
      return try HubTables.lastSequence(db)
    }
  }

  /// Registers with the hub, waiting up to `hubWait` for one that does not answer; returns
  /// the sequence number it answered with.
  private func register() throws -> Int64 {
    let start = ContinuousClock.now
    var attempt = 0
    while true {
      attempt += 1
      let id = RequestID.make()
      do {
        return try connection.request(
          RegisterRequest(
            id: id, plugin: registration.name, version: registration.version,
            tables: registration.tables, migrations: registration.migrations),
          id: id, as: RegisteredReply.self
        ).seq
      } catch let error as ErrorReply {
        throw DatabaseError(error)
      } catch let error as DatabaseError
        where error.hubCode == .unavailable && ContinuousClock.now - start < hubWait
      {
        // Registering twice is harmless: a retry applies what the first did not.
        Thread.sleep(forTimeInterval: min(0.05 * Double(attempt), 1))
      }
    }
  }

  // MARK: - DatabaseReader

  public func read<T>(_ value: (Database) throws -> T) throws -> T {
    try open().readers.read(value)
  }

  public func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws
    -> T
  {
    try await open().readers.read(value)
  }

  public func observeCommits(_ onCommit: @escaping @Sendable (DatabaseChanges) -> Void)
    -> TransactionObservation
  {
    let id = UUID()
    if let opened = try? open() {
      opened.listener.addObserver(id: id, onCommit)
    } else {
      // The hub is down and the plugin not registered yet: it follows once it can.
      waitingObservers.withLock { $0.append((id, onCommit)) }
    }
    return TransactionObservation { [opened, removedObservers] in
      removedObservers.withLock { _ = $0.insert(id) }
      opened.withLock { $0?.listener.removeObserver(id) }
    }
  }

  /// The last sequence number this process has seen on the bus (0 before it is opened).
  public var lastSequence: Int64 { opened.withLock { $0?.listener.lastSequence } ?? 0 }

  // MARK: - DatabaseWriter

  public func write<T>(_ updates: (Database) throws -> T) throws -> T {
    _ = try open()
    writeLock.lock()
    defer { writeLock.unlock() }
    return try carry(updates)
  }

  public func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws
    -> T
  {
    try await withCheckedThrowingContinuation { continuation in
      DispatchQueue.global().async {
        continuation.resume(with: Result { try self.write(updates) })
      }
    }
  }

  /// Like `write`: a hub transaction is always one transaction.
  public func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
    try write(updates)
  }

  /// The sequence number of the last commit this process made.
  public private(set) var lastCommittedSequence: Int64 {
    get { committedSequence.load(ordering: .relaxed) }
    set { committedSequence.store(newValue, ordering: .relaxed) }
  }
  private let committedSequence = Atomic<Int64>(0)

  /// The refusals after which a write runs again: the hub lost the transaction, was busy, or
  /// did not answer.
  static let retriedCodes: Set<ErrorReply.Code> = [
    .unknownTransaction, .timeout, .busy, .unavailable,
  ]

  private func carry<T>(_ updates: (Database) throws -> T) throws -> T {
    let requestID = RequestID.make()
    var attempt = 0
    /// The value of an attempt whose COMMIT was sent but not acknowledged.
    var unacknowledged: T?
    /// When the hub first did not answer this write.
    var firstUnavailable: ContinuousClock.Instant?
    while true {
      attempt += 1
      let transaction = HubTransaction(
        connection: connection, id: requestID, plugin: registration.name)
      let db = Database(
        executor: transaction, configuration: configuration, description: registration.name)
      do {
        let value = try updates(db)
        unacknowledged = value
        let committed = try transaction.commit()
        lastCommittedSequence = committed.seq
        return value
      } catch let done as HubTransaction.AlreadyCommitted {
        // An earlier attempt committed; its reply was lost. Its value is the result.
        lastCommittedSequence = done.reply.seq
        if let unacknowledged { return unacknowledged }
        throw DatabaseError(
          resultCode: .SQLITE_ERROR,
          message: "transaction \(requestID) was already committed at sequence \(done.reply.seq)")
      } catch let error as DatabaseError
        where error.hubCode.map(Self.retriedCodes.contains) == true && attempt < maximumAttempts
      {
        if error.hubCode == .unavailable {
          // Nobody answers: wait for a restarting hub only as long as `hubWait` allows
          // (a command line says "the hub is not running" at once, a loader waits longer).
          let since = firstUnavailable ?? .now
          firstUnavailable = since
          guard ContinuousClock.now - since < hubWait else { throw error }
          // The hub may have the transaction open (a lost reply) or not (it restarted): drop
          // it and run the closure again; a COMMIT that did land is answered from the
          // exactly-once record instead of being applied again.
          transaction.rollback()
        }
        // Back off: 50 ms more each time, at most 1 s.
        Thread.sleep(forTimeInterval: min(0.05 * Double(attempt), 1))
        continue
      } catch {
        transaction.rollback()
        throw error
      }
    }
  }
}
