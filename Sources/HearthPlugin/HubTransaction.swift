import Foundation
import HearthSQLite
import HearthWire

/// One write transaction carried to the hub: the executor behind the remote `Database` a
/// `write` closure receives. Statements whose results nobody awaits are buffered and sent
/// with the next one that needs rows, or with the COMMIT: a closure that only writes costs
/// one round trip. A closure of any size commits whole: once the buffer reaches
/// `maximumPartStatements` statements or `maximumPartBytes`, it goes to the hub as one part
/// of the open transaction, so no message comes near the hub's limits.
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
  /// A buffered statement that failed at the hub: its error is thrown again by every later
  /// statement and by the commit. Buffering reports a failure late (at a later statement of
  /// the closure), so a closure that catches that error must not commit the rest without it.
  private var deferredFailure: DatabaseError?

  init(connection: HubConnection, id: String, plugin: String) {
    self.connection = connection
    self.id = id
    self.plugin = plugin
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
    pendingBytes += statement.encodedSizeBound
    if needsRows {
      let results = try send(end: nil, awaiting: true)
      return results.last.map(StatementResult.init) ?? StatementResult()
    }
    if pending.count >= Self.maximumPartStatements || pendingBytes >= Self.maximumPartBytes {
      _ = try send(end: nil, awaiting: false)
    }
    return StatementResult()
  }

  /// Sends what is buffered and commits. The reply's sequence number is the commit's.
  func commit() throws -> CommittedReply {
    if let deferredFailure { throw deferredFailure }
    let request = nextPart(end: "commit")
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
    let request = TransactionRequest(
      id: id, plugin: plugin, statements: [], part: part, end: "rollback")
    _ = try? connection.request(request, id: id, as: CommittedReply.self)
  }

  /// The next part of the transaction: the buffered statements, taken out of the buffer.
  private func nextPart(end: String?) -> TransactionRequest {
    defer {
      pending = []
      pendingBytes = 0
      part += 1
    }
    return TransactionRequest(id: id, plugin: plugin, statements: pending, part: part, end: end)
  }

  /// Sends the buffered statements as the next part. `awaiting`: the last of them is the
  /// statement being executed, whose failure is its own (as it would be locally).
  private func send(end: String?, awaiting: Bool) throws -> [WireResult] {
    let request = nextPart(end: end)
    do {
      let (type, body) = try connection.request(request, id: id)
      if type == "committed" {
        throw AlreadyCommitted(reply: try WireCoding.decode(CommittedReply.self, from: body))
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
