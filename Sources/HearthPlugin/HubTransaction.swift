import Foundation
import HearthSQLite
import HearthWire

/// One write transaction carried to the hub: the executor behind the remote `Database` a
/// `write` closure receives. Statements whose results nobody awaits are buffered and sent
/// with the next one that needs rows, or with the COMMIT: a closure that only writes costs
/// one round trip. A closure of any size commits whole: once the buffer reaches
/// `maximumPartStatements` statements or `maximumPartBytes`, it goes to the hub as one part
/// of the open transaction, so no message comes near the hub's limits. Such a part goes
/// without waiting for its reply: the hub runs it while the closure fills the next one (its
/// reply is read before the next part goes, and every part's before the COMMIT).
final class HubTransaction: RemoteStatementExecutor {
  /// The most statements, and about the most bytes, of one message (the hub's defaults are
  /// 10,000 statements and 4 MiB).
  static let maximumPartStatements = 1_000
  static let maximumPartBytes = 1 << 20

  let connection: HubConnection
  let id: String
  let plugin: String
  private var pending: [WireStatement] = []
  private var pendingBytes = 0
  private var part = 0
  /// A full buffer's part sent without waiting (the hub runs it while the closure fills the
  /// next one); its reply is read before anything else is sent.
  private var inFlight: TransactionRequest?
  /// A buffered statement that failed at the hub: its error is thrown again by every later
  /// statement and by the commit. Buffering reports a failure late (at a later statement of
  /// the closure), so a closure that catches that error must not commit the rest without it.
  private var deferredFailure: DatabaseError?
  private var measuredSQL: (sql: String, bound: Int)?

  init(connection: HubConnection, id: String, plugin: String) {
    self.connection = connection
    self.id = id
    self.plugin = plugin
  }

  /// The JSON bound of `sql`, remembered for the last one: a bulk write repeats its SQL.
  private func sqlBound(_ sql: String) -> Int {
    if let measured = measuredSQL, measured.sql == sql { return measured.bound }
    let bound = WireStatement.jsonStringBound(sql)
    measuredSQL = (sql, bound)
    return bound
  }

  /// Whether a message of this transaction reached the hub (so that it holds it open).
  var hasStarted: Bool { part > 0 }

  func execute(sql: String, arguments: StatementArguments, needsRows: Bool) throws
    -> StatementResult
  {
    let statement = WireStatement(
      sql: sql, args: arguments.values.isEmpty ? nil : arguments.values.map(WireValue.init),
      rows: needsRows ? true : nil)
    guard arguments.namedValues.isEmpty else {
      throw DatabaseError(
        resultCode: .SQLITE_MISUSE,
        message: "named arguments cannot be carried to the hub; use positional ones", sql: sql)
    }
    if let deferredFailure { throw deferredFailure }
    pending.append(statement)
    pendingBytes += statement.encodedSizeBound(sqlBound: sqlBound(sql))
    if needsRows {
      let results = try send(end: nil, awaiting: true)
      return results.last.map(StatementResult.init) ?? StatementResult()
    }
    if pending.count >= Self.maximumPartStatements || pendingBytes >= Self.maximumPartBytes {
      try sendFullBuffer()
    }
    return StatementResult()
  }

  /// Sends what is buffered and commits. The reply's sequence number is the commit's. (The
  /// COMMIT goes only once every part before it has succeeded.)
  func commit() throws -> CommittedReply {
    try awaitInFlight()
    if let deferredFailure { throw deferredFailure }
    // Nothing reads a commit's results: only its sequence number.
    let request = nextPart(end: "commit", results: "none")
    do {
      return try connection.request(request, id: id, as: CommittedReply.self)
    } catch let error as ErrorReply {
      throw DatabaseError(error, sql: request.statements[safe: error.statement]?.sql)
    }
  }

  /// The hub answered a transaction's first message with the stored reply of a commit of
  /// the same request id: an earlier attempt did commit.
  struct AlreadyCommitted: Error {
    var reply: CommittedReply
  }

  /// Tells the hub to drop the transaction (best effort: it also times out on its own).
  func rollback() {
    guard hasStarted else { return }
    try? awaitInFlight()
    let request = TransactionRequest(
      id: id, plugin: plugin, statements: [], part: part, end: "rollback")
    _ = try? connection.request(request, id: id, as: CommittedReply.self)
  }

  /// The next part of the transaction: the buffered statements, taken out of the buffer.
  /// `results: "none"` when nobody reads the results of its statements.
  private func nextPart(end: String?, results: String? = nil) -> TransactionRequest {
    defer {
      pending = []
      pendingBytes = 0
      part += 1
    }
    return TransactionRequest(
      id: id, plugin: plugin, statements: pending, part: part, end: end, results: results)
  }

  /// Sends a full buffer as the next part without waiting for its reply (that of the part
  /// before is read first): the closure goes on while the hub runs it.
  private func sendFullBuffer() throws {
    try awaitInFlight()
    let request = nextPart(end: nil, results: "none")
    do {
      try connection.post(request, id: id)
    } catch let error as ErrorReply {
      throw DatabaseError(error, sql: nil)
    }
    inFlight = request
  }

  /// Reads the reply of the part in flight, if any: its failure is the whole transaction's.
  private func awaitInFlight() throws {
    guard let request = inFlight else { return }
    inFlight = nil
    // Nobody awaits its results: only whether it succeeded is read.
    _ = try answer(to: request, awaiting: false, readingResults: false) {
      try connection.reply(to: id)
    }
  }

  /// Sends the buffered statements as the next part. `awaiting`: the last of them is the
  /// statement being executed, whose failure is its own (as it would be locally).
  private func send(end: String?, awaiting: Bool) throws -> [WireResult] {
    try awaitInFlight()
    let request = nextPart(end: end)
    return try answer(to: request, awaiting: awaiting) { try connection.request(request, id: id) }
  }

  /// The results of part `request`, from the reply `receive` returns (none unless
  /// `readingResults`).
  private func answer(
    to request: TransactionRequest, awaiting: Bool, readingResults: Bool = true,
    _ receive: () throws -> (type: String, body: Data)
  ) throws -> [WireResult] {
    do {
      let (type, body) = try receive()
      if type == "committed" {
        throw AlreadyCommitted(reply: try WireCoding.decode(CommittedReply.self, from: body))
      }
      guard readingResults else {
        guard type == "results" else {
          throw DatabaseError(
            resultCode: .SQLITE_PROTOCOL, message: "the hub answered a part with \(type)")
        }
        return []
      }
      return try WireCoding.decode(ResultsReply.self, from: body).results
    } catch let error as ErrorReply {
      let failure = DatabaseError(error, sql: request.statements[safe: error.statement]?.sql)
      // A statement SQLite refused leaves the transaction open at the hub, as it would
      // locally; a buffered one's failure is the whole transaction's.
      if error.code == .sqlite, !awaiting || error.statement != request.statements.count - 1 {
        deferredFailure = failure
      }
      throw failure
    }
  }
}

extension Array {
  subscript(safe index: Int?) -> Element? {
    guard let index, indices.contains(index) else { return nil }
    return self[index]
  }
}
