import CPostgreSQL
import Foundation
import HearthSupport

/// One connection to a PostgreSQL server, through libpq.
///
/// Like a SQLite connection, not thread-safe and deliberately not `Sendable`: one thread
/// owns it. Values travel as text (PostgreSQL's text format); `nil` is SQL NULL.
///
/// ```swift
/// let server = try PostgresConnection("host=/tmp/pg port=5432 dbname=hearth")
/// try server.execute("CREATE TABLE notes (id text PRIMARY KEY, body text)")
/// try server.execute("INSERT INTO notes VALUES ($1, $2)", ["a1", "hello"])
/// let rows = try server.execute("SELECT body FROM notes WHERE id = $1", ["a1"]).rows
/// ```
public final class PostgresConnection {
  private let handle: OpaquePointer
  /// The connection string it was opened with (for error messages; no password is kept
  /// in it by Hearth, which authenticates over a unix socket).
  public let conninfo: String

  /// Connects now; throws `PostgresError` when the server refuses or is not there.
  public init(_ conninfo: String) throws {
    self.conninfo = conninfo
    guard let handle = PQconnectdb(conninfo) else {
      throw PostgresError(sqlState: nil, message: "libpq could not allocate a connection")
    }
    self.handle = handle
    guard PQstatus(handle) == CONNECTION_OK else {
      // `deinit` runs for an object whose initializer throws once every property is set:
      // it closes the handle.
      let message = Self.errorText(handle)
      throw PostgresError(sqlState: nil, message: "cannot connect (\(conninfo)): \(message)")
    }
    // The server's notices and warnings go to the log with their priority, not to standard
    // error (where the journal would take them as plain lines).
    PQsetNoticeProcessor(
      handle,
      { _, message in
        guard let message else { return }
        let text = String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
        let logger = Logger(label: "postgresql")
        if text.hasPrefix("WARNING") { logger.warning(text) } else { logger.info(text) }
      }, nil)
  }

  deinit { PQfinish(handle) }

  /// Whether the connection is still good (false once the server went away).
  public var isConnected: Bool { PQstatus(handle) == CONNECTION_OK }

  /// The socket, for polling beside other work (readable: a notification or a reply came).
  public var socket: Int32 { PQsocket(handle) }

  /// The statement sent and not yet received (`send`), if any.
  private var sent: String?

  /// Sends one statement with `$1…` parameters without waiting for it: the server runs it
  /// while this thread does other work, until `receive`. One at a time; any other call
  /// first reads and drops the reply of a statement sent and not received.
  public func send(_ sql: String, _ parameters: [String?] = []) throws {
    discardSent()
    let queued = withParameters(parameters) { values in
      PQsendQueryParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 0)
    }
    guard queued == 1 else {
      throw PostgresError(sqlState: nil, message: Self.errorText(handle), sql: sql)
    }
    sent = sql
  }

  /// The rows of the statement `send` sent, once the server has run it; throws as
  /// `execute` does.
  public func receive() throws -> PostgresResult {
    guard let sql = sent else {
      throw PostgresError(sqlState: nil, message: "no statement was sent to receive")
    }
    sent = nil
    var first: OpaquePointer?
    while let result = PQgetResult(handle) {
      if first == nil { first = result } else { PQclear(result) }
    }
    return try checked(first, sql: sql, PostgresResult.init)
  }

  private func discardSent() {
    guard sent != nil else { return }
    sent = nil
    while let result = PQgetResult(handle) { PQclear(result) }
  }

  /// Runs one statement with `$1…` parameters and returns its rows; throws `PostgresError`
  /// with the server's SQLSTATE when it fails.
  @discardableResult
  public func execute(_ sql: String, _ parameters: [String?] = []) throws -> PostgresResult {
    discardSent()
    let result = withParameters(parameters) { values in
      PQexecParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 0)
    }
    return try checked(result, sql: sql, PostgresResult.init)
  }

  /// Runs one statement whose parameters may be bytes, sent in PostgreSQL's binary format
  /// (a `bytea` parameter goes as it is, not as hex text twice its size); returns the first
  /// column of the first row in binary format — for a `bytea` result, its bytes — or nil
  /// for NULL or no row.
  @discardableResult
  public func executeBinary(_ sql: String, _ parameters: [PostgresValue]) throws -> Data? {
    discardSent()
    var values = [UnsafePointer<CChar>?](repeating: nil, count: parameters.count)
    var lengths = [Int32](repeating: 0, count: parameters.count)
    var formats = [Int32](repeating: 0, count: parameters.count)
    // Each parameter is lent to libpq where it lies (a file's bytes are not copied), one
    // scope per parameter.
    func run(from index: Int) -> OpaquePointer? {
      guard index < parameters.count else {
        return PQexecParams(handle, sql, Int32(parameters.count), nil, values, lengths, formats, 1)
      }
      switch parameters[index] {
      case .null:
        return run(from: index + 1)
      case .text(let text):
        return text.withCString { text in
          values[index] = text
          return run(from: index + 1)
        }
      case .bytes(let data) where data.isEmpty:
        formats[index] = 1
        return "".withCString { empty in  // an address, or libpq reads NULL
          values[index] = empty
          return run(from: index + 1)
        }
      case .bytes(let data):
        return data.withUnsafeBytes { bytes in
          values[index] = UnsafePointer(bytes.baseAddress!.assumingMemoryBound(to: CChar.self))
          lengths[index] = Int32(bytes.count)
          formats[index] = 1
          return run(from: index + 1)
        }
      }
    }
    guard let result = run(from: 0) else {
      throw PostgresError(sqlState: nil, message: Self.errorText(handle), sql: sql)
    }
    if let failure = failure(of: result, sql: sql) {
      PQclear(result)
      throw failure
    }
    guard PQntuples(result) > 0, PQnfields(result) > 0, PQgetisnull(result, 0, 0) == 0,
      let value = PQgetvalue(result, 0, 0)
    else {
      PQclear(result)
      return nil
    }
    // The value stays in libpq's result, freed with the last copy of the data.
    return Data(
      bytesNoCopy: value, count: Int(PQgetlength(result, 0, 0)),
      deallocator: .custom { _, _ in PQclear(result) })
  }

  /// What stops the statement this connection is running, from another thread.
  public func canceller() -> PostgresCanceller? {
    PQgetCancel(handle).map(PostgresCanceller.init)
  }

  /// Runs several statements separated by `;`, without parameters (a schema script).
  public func executeScript(_ sql: String) throws {
    discardSent()
    try checked(PQexec(handle, sql), sql: sql) { _ in }
  }

  /// `read(result)` when `result` succeeded, else the failure (the server's SQLSTATE and
  /// message, or libpq's when there is no result); the result is freed either way.
  private func checked<T>(_ result: OpaquePointer?, sql: String, _ read: (OpaquePointer) -> T)
    throws -> T
  {
    guard let result else {
      throw PostgresError(sqlState: nil, message: Self.errorText(handle), sql: sql)
    }
    defer { PQclear(result) }
    if let failure = failure(of: result, sql: sql) { throw failure }
    return read(result)
  }

  /// What `result` says went wrong, if it failed.
  private func failure(of result: OpaquePointer, sql: String) -> PostgresError? {
    let status = PQresultStatus(result)
    guard status != PGRES_COMMAND_OK, status != PGRES_TUPLES_OK else { return nil }
    return PostgresError(
      sqlState: PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) },
      message: String(cString: PQresultErrorMessage(result))
        .trimmingCharacters(in: .whitespacesAndNewlines),
      sql: sql)
  }

  /// Runs `body` in a transaction: COMMIT when it returns, ROLLBACK when it throws.
  public func inTransaction<T>(_ body: () throws -> T) throws -> T {
    try execute("BEGIN")
    do {
      let value = try body()
      try execute("COMMIT")
      return value
    } catch {
      if isConnected { _ = try? execute("ROLLBACK") }
      throw error
    }
  }

  // MARK: - Notifications

  /// Subscribes to `channel` (`LISTEN`): `notifications()` returns what is sent on it.
  public func listen(_ channel: String) throws {
    try execute("LISTEN \(Self.quoteIdentifier(channel))")
  }

  /// The notifications that have arrived (without waiting), oldest first. Throws when the
  /// connection broke.
  public func notifications() throws -> [PostgresNotification] {
    guard PQconsumeInput(handle) == 1 else {
      throw PostgresError(sqlState: nil, message: Self.errorText(handle))
    }
    var received: [PostgresNotification] = []
    while let notice = PQnotifies(handle) {
      received.append(
        PostgresNotification(
          channel: String(cString: notice.pointee.relname),
          payload: String(cString: notice.pointee.extra), senderPID: notice.pointee.be_pid))
      PQfreemem(notice)
    }
    return received
  }

  /// Waits until a notification arrives or `timeout` passes; what arrived (maybe nothing).
  public func waitForNotifications(timeout: Duration) throws -> [PostgresNotification] {
    let pending = try notifications()
    guard pending.isEmpty else { return pending }
    var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
    let milliseconds = Int32(
      clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds
        / 1_000_000_000_000_000)
    _ = poll(&descriptor, 1, milliseconds)
    return try notifications()
  }

  // MARK: - Helpers

  /// `name` as a double-quoted identifier.
  public static func quoteIdentifier(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  private static func errorText(_ handle: OpaquePointer) -> String {
    String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// Calls `body` with the parameters as C strings (NULL for nil), valid during the call.
  private func withParameters<T>(
    _ parameters: [String?], _ body: ([UnsafePointer<CChar>?]) -> T
  ) -> T {
    let copies = parameters.map { $0.map { strdup($0) } ?? nil }
    defer { for copy in copies { free(copy) } }
    return body(copies.map { $0.map { UnsafePointer($0) } })
  }
}

/// The rows a statement returned, as text (nil for NULL), and how many rows it changed.
public struct PostgresResult: Sendable {
  public var columns: [String]
  public var rows: [[String?]]
  /// Rows inserted, updated or deleted (`PQcmdTuples`); 0 for other statements.
  public var changedRows: Int

  init(_ result: OpaquePointer) {
    let columnCount = PQnfields(result)
    columns = (0..<columnCount).map { String(cString: PQfname(result, $0)) }
    rows = (0..<PQntuples(result)).map { row in
      (0..<columnCount).map { column in
        PQgetisnull(result, row, column) == 1
          ? nil : String(cString: PQgetvalue(result, row, column))
      }
    }
    changedRows = Int(String(cString: PQcmdTuples(result))) ?? 0
  }
}

/// Asks the server to stop the statement a connection is running (libpq's cancel request,
/// on a connection of its own): the statement fails with SQLSTATE 57014 and its
/// transaction is rolled back; when none is running, nothing happens. `cancel` connects to
/// the server and waits for its answer, with no timeout of its own.
public final class PostgresCanceller: @unchecked Sendable {
  // Safe to share: libpq's `PQcancel` may be called from any thread with the same
  // `PGcancel` (it only reads it); `PQfreeCancel` runs once, when nothing can call it.
  private let handle: OpaquePointer

  init(_ handle: OpaquePointer) { self.handle = handle }

  deinit { PQfreeCancel(handle) }

  public func cancel() {
    var error = [CChar](repeating: 0, count: 256)
    _ = PQcancel(handle, &error, Int32(error.count))
  }
}

/// A parameter of `executeBinary`: text, bytes (binary format), or NULL.
public enum PostgresValue: Sendable {
  case text(String)
  case bytes(Data)
  case null
}

/// A `NOTIFY` received on a channel this connection listens to.
public struct PostgresNotification: Hashable, Sendable {
  public var channel: String
  public var payload: String
  public var senderPID: Int32
}

/// A failure the server or libpq reported: the server's SQLSTATE when it gave one
/// (`23505` a unique violation, `40001` a serialization failure…), its message, and the
/// statement.
public struct PostgresError: Error, Hashable, Sendable, CustomStringConvertible {
  public var sqlState: String?
  public var message: String
  public var sql: String?

  public init(sqlState: String?, message: String, sql: String? = nil) {
    self.sqlState = sqlState
    self.message = message
    self.sql = sql
  }

  /// A unique or primary-key constraint refused the row.
  public var isUniqueViolation: Bool { sqlState == "23505" }

  public var description: String {
    var text = "PostgreSQL: \(message)"
    if let sqlState { text += " (SQLSTATE \(sqlState))" }
    if let sql { text += " in `\(sql)`" }
    return text
  }
}
