import Foundation
import HearthSQLite

// The hub's errors and SQLite's, in both directions, in one place: the hub turns a failing
// statement into an `ErrorReply`; a client turns any `ErrorReply` into the `DatabaseError` its
// caller catches, so a plugin meets one error type whatever refused its write.

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
    /// A sharing action refused, by the hub or the server (the message says why): the
    /// record is not a synced root, is not shared, or is someone else's share; the
    /// invitation is unknown, used or expired; the person may not do it.
    public static let shareRefused = Code(rawValue: "shareRefused")
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

extension ErrorReply {
  /// SQLite's refusal of statement `statement` (the index in its message), as the hub sends it.
  public init(id: String?, databaseError: DatabaseError, statement: Int?) {
    self.init(
      id: id, code: .sqlite, message: databaseError.message ?? "\(databaseError)",
      statement: statement,
      sqlite: SQLiteCodes(
        code: databaseError.resultCode.rawValue, extended: databaseError.extendedResultCode.rawValue
      ))
  }
}

extension ErrorReply.Code {
  /// Never sent by the hub: what a client reports when the hub did not answer in time (it is
  /// down, restarting or overloaded).
  public static let unavailable = ErrorReply.Code(rawValue: "unavailable")

  /// The SQLite result code a refusal of this kind reads as, for the codes that carry none of
  /// SQLite's own.
  var resultCode: ResultCode {
    switch self {
    case .unauthorized: .SQLITE_AUTH
    case .busy: .SQLITE_BUSY
    case .timeout, .unknownTransaction: .SQLITE_ABORT
    case .tooLarge, .tooManyStatements: .SQLITE_TOOBIG
    case .malformed, .unsupportedVersion, .unknownType, .notSyncable: .SQLITE_MISUSE
    case .internal: .SQLITE_INTERNAL
    case .unavailable: .SQLITE_CANTOPEN
    default: .SQLITE_ERROR
    }
  }
}

extension DatabaseError {
  /// A hub's refusal as the plugin's code sees it. SQLite's own failures keep SQLite's codes
  /// and no `hubCode`, exactly as they would from a local database; the hub's rules
  /// (`unauthorized`, `notRegistered`, `busy`…) keep their code in `hubCode`, with a result code
  /// of the same kind (`unauthorized` is `SQLITE_AUTH`, as SQLite's own authorizer gives).
  public init(_ reply: ErrorReply, sql: String? = nil) {
    let sqliteCode = reply.sqlite.map { ResultCode(rawValue: $0.extended) }
    self.init(
      resultCode: reply.code == .unauthorized ? .SQLITE_AUTH : sqliteCode ?? reply.code.resultCode,
      message: reply.message, sql: sql,
      remoteCode: reply.code == .sqlite ? nil : reply.code.rawValue)
  }

  /// No reply from the hub at `endpoint` within `timeout`.
  public static func hubUnavailable(endpoint: String, timeout: Duration) -> DatabaseError {
    unavailable(
      "no reply from the hub at \(endpoint) within \(timeout); is hearthd running? "
        + "(systemctl --user status hearthd)")
  }

  /// The hub closed the request stream with replies still owed (it stopped): what was
  /// sent may or may not have been served.
  public static func hubClosedStream(endpoint: String) -> DatabaseError {
    unavailable(
      "the hub at \(endpoint) closed the connection before it answered (it stopped); what was "
        + "sent may or may not have been served: a write resent with the same id is served once")
  }

  /// Nothing listens at `endpoint`, the hub's unix socket: it is not running.
  public static func hubNotRunning(endpoint: String) -> DatabaseError {
    unavailable(
      "the hub is not running: nothing listens at \(endpoint) "
        + "(start it: systemctl --user start hearthd, or run hearthd)")
  }

  private static func unavailable(_ message: String) -> DatabaseError {
    DatabaseError(
      resultCode: ErrorReply.Code.unavailable.resultCode, message: message,
      remoteCode: ErrorReply.Code.unavailable.rawValue)
  }

  /// The hub's code for a refusal by a rule of the hub (`unauthorized`, `unavailable`…); nil
  /// for SQLite's own errors.
  public var hubCode: ErrorReply.Code? { remoteCode.map(ErrorReply.Code.init(rawValue:)) }
}

extension ErrorReply: WireMessage {}
