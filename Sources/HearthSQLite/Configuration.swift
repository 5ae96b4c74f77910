/// How `DatabaseQueue` and `DatabasePool` open and set up their connections.
///
/// ```swift
/// var configuration = Configuration()
/// configuration.foreignKeysEnabled = true
/// configuration.prepareDatabase { db in
///   db.trace(options: .profile) { print($0.expandedDescription) }
/// }
/// let dbPool = try DatabasePool(path: path, configuration: configuration)
/// ```
public struct Configuration: Sendable {
  /// Enforce foreign keys (`PRAGMA foreign_keys`). Default true.
  public var foreignKeysEnabled = true

  /// Open read-only: writes fail with `SQLITE_READONLY`, and a `DatabasePool` opens no
  /// writer connection (a feature process reading the hub's file uses this).
  public var readonly = false

  /// How long a connection waits for a lock held by another connection before failing with
  /// `SQLITE_BUSY`, in seconds. `nil` fails at once. Default 5 seconds.
  public var busyTimeout: Double? = 5

  /// The most reader connections a `DatabasePool` opens. Default 5.
  public var maximumReaderCount = 5

  /// The journal mode a `DatabasePool` sets up (`.wal`, always) or a `DatabaseQueue` on a
  /// file asks for (`.default` leaves the file's mode as it is).
  public var journalMode: JournalMode = .default

  /// Keep the `-wal` and `-shm` files when the last connection closes, so that read-only
  /// connections can always open a WAL database. Default true.
  public var persistentWriteAheadLog = true

  /// SQLite's defensive mode: no writes to the schema table, no corrupting pragmas.
  /// Default true.
  public var defensive = true

  /// A name for logs and thread names.
  public var label: String?

  /// The kind of transaction `write` opens. Default `.immediate`: a write never fails with
  /// `SQLITE_BUSY` halfway through.
  public var defaultTransactionKind: TransactionKind = .immediate

  var preparations: [@Sendable (Database) throws -> Void] = []

  public init() {}

  /// Adds set-up run on every new connection, after the configuration's own.
  public mutating func prepareDatabase(_ prepare: @escaping @Sendable (Database) throws -> Void) {
    preparations.append(prepare)
  }

  /// SQLite journal modes.
  public enum JournalMode: String, Sendable {
    /// Leave the file as it is (rollback journal for a new file).
    case `default`
    /// Write-ahead logging: readers never block the writer nor each other.
    case wal = "WAL"
  }
}
