import CSQLite
import Foundation

/// One connection, serialized: every `read` and `write` runs in turn.
///
/// `DatabaseQueue()` is an in-memory database, handy for tests and previews.
///
/// ```swift
/// let dbQueue = try DatabaseQueue(path: "/tmp/db.sqlite")
/// try dbQueue.write { db in
///   try db.execute(sql: "CREATE TABLE players (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
/// }
/// ```
public final class DatabaseQueue: DatabaseWriter {
  public let configuration: Configuration
  public let path: String
  private let connection: SerializedConnection

  /// Opens (or creates) the database at `path`.
  public init(path: String, configuration: Configuration = Configuration()) throws {
    self.configuration = configuration
    self.path = path
    connection = try SerializedConnection(label: configuration.label ?? "hearth.queue") {
      let db = try Database(
        path: path, configuration: configuration, readonly: configuration.readonly,
        description: configuration.label ?? "queue")
      if configuration.journalMode == .wal, !configuration.readonly {
        try db.enableWriteAheadLog(persistent: configuration.persistentWriteAheadLog)
      }
      return db
    }
  }

  /// Opens a private in-memory database.
  public convenience init(configuration: Configuration = Configuration()) throws {
    try self.init(path: ":memory:", configuration: configuration)
  }

  public func read<T>(_ value: (Database) throws -> T) throws -> T {
    try connection.sync { try $0.readTransaction(value) }
  }

  public func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws
    -> T
  {
    try await connection.async { try $0.readTransaction(value) }
  }

  public func write<T>(_ updates: (Database) throws -> T) throws -> T {
    try connection.sync { try $0.writeTransaction(updates) }
  }

  public func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T)
    async throws -> T
  {
    try await connection.async { try $0.writeTransaction(updates) }
  }

  public func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
    try connection.sync { try $0.withoutTransaction(updates) }
  }

  /// The `async` form of `writeWithoutTransaction`.
  public func writeWithoutTransaction<T: Sendable>(
    _ updates: @escaping @Sendable (Database) throws -> T
  ) async throws -> T {
    try await connection.async { try $0.withoutTransaction(updates) }
  }

  /// Runs `block` with the connection as it is: no transaction opened, none checked.
  public func inDatabase<T>(_ block: (Database) throws -> T) rethrows -> T {
    try connection.sync(block)
  }

  public func observeCommits(_ onCommit: @escaping @Sendable (DatabaseChanges) -> Void)
    -> TransactionObservation
  {
    connection.observeCommits(onCommit)
  }
}

extension SerializedConnection {
  func observeCommits(_ onCommit: @escaping @Sendable (DatabaseChanges) -> Void)
    -> TransactionObservation
  {
    let id = sync { $0.addTransactionObserver(onCommit) }
    return TransactionObservation { [weak self] in
      self?.schedule { $0.removeTransactionObserver(id) }
    }
  }
}

extension Database {
  /// Switches the file to WAL and checks that SQLite agreed.
  func enableWriteAheadLog(persistent: Bool) throws {
    let mode = try String.fetchOne(self, sql: "PRAGMA journal_mode = WAL")
    guard mode?.lowercased() == "wal" else {
      throw DatabaseError(
        resultCode: .SQLITE_ERROR,
        message: "could not switch \(path) to WAL (journal mode is \(mode ?? "unknown"))")
    }
    if persistent { hearth_sqlite3_persist_wal(sqliteConnection, 1) }
  }
}
