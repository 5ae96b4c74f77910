import Foundation
import HearthData
import HearthWire
import HearthZMQ
import Synchronization

/// What a plugin tells the hub about itself when it starts.
public struct PluginRegistration: Sendable {
  public var name: String
  public var version: String
  /// The tables the plugin owns: the only ones it may write.
  public var tables: [String]
  public var migrations: [RegisterRequest.Migration]

  public init(
    name: String, version: String, tables: [String], migrations: [RegisterRequest.Migration]
  ) {
    self.name = name
    self.version = version
    self.tables = tables
    self.migrations = migrations
  }

  /// Migrations written as for a local database, with a `DatabaseMigrator`: each migration
  /// is run once against a recorder and its statements are sent to the hub, which applies
  /// the pending ones. A migration must only execute statements (its reads see nothing).
  public init(name: String, version: String, tables: [String], migrator: DatabaseMigrator) throws {
    var migrations: [RegisterRequest.Migration] = []
    try migrator.forEachMigration { identifier, migrate in
      let recorder = StatementRecorder()
      try migrate(Database(executor: recorder, description: "migration \(identifier)"))
      migrations.append(.init(id: identifier, sql: recorder.script))
    }
    self.init(name: name, version: version, tables: tables, migrations: migrations)
  }
}

private let sharedConnection = Locked<HubDatabase?>(nil)

/// Records statements instead of running them.
private final class StatementRecorder: RemoteStatementExecutor {
  var statements: [String] = []

  var script: String {
    statements.map { $0.hasSuffix(";") ? $0 : $0 + ";" }.joined(separator: "\n")
  }

  func execute(sql: String, arguments: StatementArguments, needsRows: Bool) throws
    -> StatementResult
  {
    guard arguments.isEmpty else {
      throw DatabaseError(
        resultCode: .SQLITE_MISUSE,
        message: "a migration sent to the hub cannot bind values; write them in the SQL", sql: sql)
    }
    statements.append(sql)
    return StatementResult()
  }
}

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
  public var configuration: Configuration { readers.configuration }
  public var path: String { paths.databasePath }
  /// The hub instance and the last sequence number the registration saw.
  public let registeredSequence: Int64

  private let context = BusContext()
  private let connection: HubConnection
  private let readers: DatabasePool
  private let listener: BusListener
  private let cursorReporter: CursorReporter
  /// One hub transaction at a time per process (a transaction holds the hub's writer).
  private let writeLock = NSLock()
  /// Attempts of one write when the hub is away or lost the transaction.
  public let maximumAttempts: Int

  /// Registers with the hub (applying the plugin's pending migrations there), opens the
  /// database read-only and starts following the bus. The hub is reached over `transport`,
  /// by default the environment's (`HubTransport.fromEnvironment`): the ipc sockets of
  /// `paths` unless tcp endpoints and the hub's key are set.
  public init(
    _ registration: PluginRegistration, paths: HubPaths = .fromEnvironment(),
    transport: HubTransport? = nil, requestTimeout: Duration = .seconds(5),
    maximumAttempts: Int = 20
  ) throws {
    self.registration = registration
    self.maximumAttempts = maximumAttempts
    self.paths = paths
    let transport = try transport ?? .fromEnvironment(paths)
    self.transport = transport
    connection = try HubConnection(context: context, transport: transport, timeout: requestTimeout)
    var registered: RegisteredReply?
    var lastError: (any Error)?
    for _ in 0..<3 where registered == nil {
      do {
        let id = UUID().uuidString.lowercased()
        registered = try connection.request(
          RegisterRequest(
            id: id, plugin: registration.name, version: registration.version,
            tables: registration.tables, migrations: registration.migrations),
          id: id, as: RegisteredReply.self)
      } catch let error as DatabaseError where error.hubCode == .unavailable {
        lastError = error
      } catch let error as ErrorReply {
        throw DatabaseError(error)
      }
    }
    guard let registered else {
      throw lastError
        ?? DatabaseError.hubUnavailable(
          endpoint: transport.requestEndpoint, timeout: requestTimeout)
    }
    registeredSequence = registered.seq
    var readerConfiguration = Configuration()
    readerConfiguration.readonly = true
    readerConfiguration.label = "\(registration.name).readers"
    readers = try DatabasePool(path: paths.databasePath, configuration: readerConfiguration)
    let cursorReporter = CursorReporter(connection: connection, plugin: registration.name)
    self.cursorReporter = cursorReporter
    listener = try BusListener(
      context: context, transport: transport, reader: readers, lastSequence: registered.seq,
      onAdvance: cursorReporter.advanced(to:))
  }

  deinit { listener.stop() }

  /// The process's connection to the hub, made (registering the plugin) on the first call
  /// and the same one after: a feature's command runs many queries over one connection.
  /// A process is one plugin: `registration` is only read on the first call.
  public static func shared(_ registration: @autoclosure () throws -> PluginRegistration) throws
    -> HubDatabase
  {
    try sharedConnection.withLock { connection in
      if let connection { return connection }
      let made = try HubDatabase(registration())
      connection = made
      return made
    }
  }

  // MARK: - DatabaseReader

  public func read<T>(_ value: (Database) throws -> T) throws -> T { try readers.read(value) }

  public func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws
    -> T
  {
    try await readers.read(value)
  }

  public func observeCommits(_ onCommit: @escaping @Sendable (DatabaseChanges) -> Void)
    -> TransactionObservation
  {
    let id = listener.addObserver(onCommit)
    return TransactionObservation { [listener] in listener.removeObserver(id) }
  }

  /// The last sequence number this process has seen on the bus.
  public var lastSequence: Int64 { listener.lastSequence }

  // MARK: - DatabaseWriter

  public func write<T>(_ updates: (Database) throws -> T) throws -> T {
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
    let requestID = UUID().uuidString.lowercased()
    var attempt = 0
    /// The value of an attempt whose COMMIT was sent but not acknowledged.
    var unacknowledged: T?
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
          // The hub may have the transaction open (a lost reply) or not (it restarted): drop
          // it and run the closure again; a COMMIT that did land is answered from the
          // exactly-once record instead of being applied again.
          transaction.rollback()
        } else {
          Thread.sleep(forTimeInterval: min(0.05 * Double(attempt), 1))
        }
        continue
      } catch {
        transaction.rollback()
        throw error
      }
    }
  }
}
