import Dispatch
import Foundation

/// A WAL database with one writer connection and a pool of readers: reads run in parallel
/// with each other and with the writer, each seeing one consistent snapshot.
///
/// ```swift
/// let dbPool = try DatabasePool(path: "/var/lib/app/db.sqlite")
/// try dbPool.write { db in try db.execute(sql: "INSERT INTO players (name) VALUES ('Arthur')") }
/// let count = try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM players") }
/// ```
///
/// With `configuration.readonly`, the pool opens no writer: every `write` fails with
/// `SQLITE_READONLY`, and the file must exist. A feature process opens the hub's database so.
public final class DatabasePool: DatabaseWriter {
  public let configuration: Configuration
  public let path: String
  private let writer: SerializedConnection?
  private let readers: ReaderPool

  public init(path: String, configuration: Configuration = Configuration()) throws {
    self.configuration = configuration
    self.path = path
    let label = configuration.label ?? "hearth.pool"
    if configuration.readonly {
      guard FileManager.default.fileExists(atPath: path) else {
        throw DatabaseError(
          resultCode: .SQLITE_CANTOPEN, message: "cannot open \(path) read-only: no such file")
      }
      writer = nil
    } else {
      writer = try SerializedConnection(label: "\(label).writer") {
        let db = try Database(
          path: path, configuration: configuration, readonly: false, description: "writer")
        try db.enableWriteAheadLog(persistent: configuration.persistentWriteAheadLog)
        return db
      }
    }
    readers = ReaderPool(maximumCount: max(1, configuration.maximumReaderCount)) { index in
      try SerializedConnection(label: "\(label).reader.\(index)") {
        let db = try Database(
          path: path, configuration: configuration, readonly: true,
          description: "reader.\(index)")
        guard try String.fetchOne(db, sql: "PRAGMA journal_mode")?.lowercased() == "wal" else {
          throw DatabaseError(
            resultCode: .SQLITE_ERROR,
            message: "\(path) is not in WAL mode; a DatabasePool needs WAL")
        }
        return db
      }
    }
    // Fail now, not at the first read, when readers cannot open the file.
    try read { _ in }
  }

  public func read<T>(_ value: (Database) throws -> T) throws -> T {
    let reader = try readers.borrow()
    defer { readers.giveBack(reader) }
    return try reader.sync { try $0.readTransaction(value) }
  }

  public func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws
    -> T
  {
    // Waiting for a free reader blocks, so it happens on a dispatch thread, not a task's.
    try await withCheckedThrowingContinuation { continuation in
      DispatchQueue.global().async {
        continuation.resume(with: Result { try self.read(value) })
      }
    }
  }

  public func write<T>(_ updates: (Database) throws -> T) throws -> T {
    try writerConnection().sync { try $0.writeTransaction(updates) }
  }

  public func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T)
    async throws -> T
  {
    try await writerConnection().async { try $0.writeTransaction(updates) }
  }

  public func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
    try writerConnection().sync { try $0.withoutTransaction(updates) }
  }

  /// The `async` form of `writeWithoutTransaction`.
  public func writeWithoutTransaction<T: Sendable>(
    _ updates: @escaping @Sendable (Database) throws -> T
  ) async throws -> T {
    try await writerConnection().async { try $0.withoutTransaction(updates) }
  }

  public func observeCommits(_ onCommit: @escaping @Sendable (DatabaseChanges) -> Void)
    -> TransactionObservation
  {
    // A read-only pool sees no commits of its own: the observation is empty.
    guard let writer else { return TransactionObservation {} }
    return writer.observeCommits(onCommit)
  }

  /// Runs `body` on the writer connection as it is: no transaction opened, none checked, so
  /// a transaction may stay open from one call to the next. For the hub, which drives
  /// transactions across messages itself; everyone else uses `write`.
  public func inWriterDatabase<T>(_ body: (Database) throws -> T) throws -> T {
    try writerConnection().sync(body)
  }

  /// Copies the WAL into the database file, on the writer (see `Database.checkpoint`).
  @discardableResult
  public func checkpoint(_ mode: CheckpointMode = .passive) throws -> CheckpointResult {
    try writeWithoutTransaction { db in try db.checkpoint(mode) }
  }

  /// The number of reader connections opened so far.
  public var readerCount: Int { readers.openedCount }

  private func writerConnection() throws -> SerializedConnection {
    guard let writer else {
      throw DatabaseError(
        resultCode: .SQLITE_READONLY, message: "\(path) was opened read-only: writes are refused")
    }
    return writer
  }
}

/// SQLite's checkpoint modes.
public enum CheckpointMode: String, Sendable {
  case passive = "PASSIVE"
  case full = "FULL"
  case restart = "RESTART"
  case truncate = "TRUNCATE"
}

/// Reader connections, opened on demand up to a maximum, lent out one borrower at a time.
final class ReaderPool: Sendable {
  private struct State {
    var idle: [SerializedConnection] = []
    var opened = 0
  }

  private let state = Locked(State())
  private let available: DispatchSemaphore
  private let open: @Sendable (Int) throws -> SerializedConnection

  init(maximumCount: Int, open: @escaping @Sendable (Int) throws -> SerializedConnection) {
    available = DispatchSemaphore(value: maximumCount)
    self.open = open
  }

  var openedCount: Int { state.withLock { $0.opened } }

  func borrow() throws -> SerializedConnection {
    available.wait()
    let (reader, index): (SerializedConnection?, Int) = state.withLock { state in
      if let reader = state.idle.popLast() { return (reader, 0) }
      state.opened += 1
      return (nil, state.opened)
    }
    if let reader { return reader }
    do {
      return try open(index)
    } catch {
      state.withLock { $0.opened -= 1 }
      available.signal()
      throw error
    }
  }

  func giveBack(_ reader: SerializedConnection) {
    state.withLock { $0.idle.append(reader) }
    available.signal()
  }
}
