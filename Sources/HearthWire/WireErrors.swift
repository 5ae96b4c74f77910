import HearthSQLite

// The hub's errors and SQLite's, in both directions, in one place: the hub turns a failing
// statement into an `ErrorReply`; a client turns any `ErrorReply` into the `DatabaseError` its
// caller catches, so a plugin meets one error type whatever refused its write.

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
