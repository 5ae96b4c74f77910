import Foundation

/// Something that gives read access to a database: `DatabaseQueue`, `DatabasePool`, and
/// later the hub's remote database. Code that only reads should ask for `any DatabaseReader`.
///
/// ```swift
/// let names = try reader.read { db in try String.fetchAll(db, sql: "SELECT name FROM players") }
/// ```
public protocol DatabaseReader: AnyObject, Sendable {
  /// The configuration connections were opened with.
  var configuration: Configuration { get }

  /// The database file, or `":memory:"`.
  var path: String { get }

  /// Runs `value` in a read-only transaction (one consistent snapshot), blocking the caller.
  func read<T>(_ value: (Database) throws -> T) throws -> T

  /// Runs `value` in a read-only transaction without blocking the caller's thread.
  func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T

  /// Calls `onCommit` after each transaction that changed something commits, until the
  /// returned observation is cancelled or released. A writer reports its own commits (on its
  /// queue, right after COMMIT); a read-only pool sees none; the hub's remote database
  /// reports the commits of the change bus.
  func observeCommits(_ onCommit: @escaping @Sendable (DatabaseChanges) -> Void)
    -> TransactionObservation
}

/// Something that also writes: `DatabaseQueue`, `DatabasePool`, and later the hub's remote
/// database. Code that writes asks for `any DatabaseWriter`.
///
/// ```swift
/// try writer.write { db in
///   try db.execute(sql: "INSERT INTO players (name) VALUES (?)", arguments: ["Arthur"])
/// }
/// ```
public protocol DatabaseWriter: DatabaseReader {
  /// Runs `updates` in one transaction (by default IMMEDIATE): all of it commits when it
  /// returns, none of it when it throws.
  func write<T>(_ updates: (Database) throws -> T) throws -> T

  /// The `async` form of `write`.
  func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T

  /// Runs `updates` on the writer connection outside any transaction (for `VACUUM`, pragmas,
  /// or explicit transactions). A transaction left open is rolled back and reported.
  func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T
}

/// Keeps a commit observer registered; `cancel()` or releasing it removes the observer.
public final class TransactionObservation: Sendable {
  private let onCancel: @Sendable () -> Void

  public init(onCancel: @escaping @Sendable () -> Void) { self.onCancel = onCancel }

  deinit { onCancel() }

  public func cancel() { onCancel() }
}

extension Database {
  /// A read-only transaction: one snapshot from the first statement to the last.
  func readTransaction<T>(_ block: (Database) throws -> T) throws -> T {
    let wasQueryOnly = try Bool.fetchOne(self, sql: "PRAGMA query_only") ?? false
    if !wasQueryOnly { try execute(sql: "PRAGMA query_only = ON") }
    defer { if !wasQueryOnly { try? execute(sql: "PRAGMA query_only = OFF") } }
    var result: T?
    var attempts = 0
    while true {
      var started = false
      do {
        try inTransaction(.deferred) {
          // Reading the schema table starts the snapshot now, not at the block's first read.
          _ = try Int.fetchOne(self, sql: "SELECT rootpage FROM sqlite_master LIMIT 1")
          started = true
          result = try block(self)
          return .commit
        }
        return result!
      } catch let error as DatabaseError
        where !started && error.extendedResultCode == .SQLITE_READONLY_RECOVERY
        && attempts < Self.snapshotAttempts
      {
        // A reader that may not write the `-shm` (a plugin in its sandbox, where the file is
        // read-only) cannot rebuild the WAL index itself: when it reads the index while the
        // writer is changing it, SQLite says so instead of waiting. The writer is done in
        // microseconds; the snapshot is tried again, before the block has run.
        attempts += 1
        usleep(useconds_t(min(attempts, 20) * 50))
      }
    }
  }

  /// How many times a snapshot is tried when a read-only WAL index is being changed (about
  /// half a second in all).
  static let snapshotAttempts = 500

  /// A write transaction of the configured kind.
  func writeTransaction<T>(_ block: (Database) throws -> T) throws -> T {
    var result: T?
    try inTransaction(configuration.defaultTransactionKind) {
      result = try block(self)
      return .commit
    }
    return result!
  }

  /// Runs `block` outside a transaction, and rolls back one it leaves open.
  func withoutTransaction<T>(_ block: (Database) throws -> T) throws -> T {
    let result = try block(self)
    if isInsideTransaction {
      try rollback()
      throw DatabaseError(
        resultCode: .SQLITE_MISUSE,
        message: "a transaction was left open by writeWithoutTransaction; it was rolled back")
    }
    return result
  }
}
