import Foundation
import HearthBus
import HearthSQLite

/// One write transaction carried to the hub: the executor behind the remote `Database` a
/// `write` closure receives. Statements whose results nobody awaits are buffered and sent
/// with the next one that needs rows, or with the COMMIT: a closure that only writes costs
/// one round trip.
final class HubTransaction: RemoteStatementExecutor {
  let connection: HubConnection
  let id: String
  let plugin: String
  private var pending: [WireStatement] = []
  private var part = 0

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
    pending.append(statement)
    guard needsRows else { return StatementResult() }
    let results = try send(end: nil)
    return results.last.map(StatementResult.init) ?? StatementResult()
  }

  /// Sends what is buffered and commits. The reply's sequence number is the commit's.
  func commit() throws -> CommittedReply {
    let request = TransactionRequest(
      id: id, plugin: plugin, statements: pending, part: part, end: "commit")
    pending = []
    part += 1
    return try connection.request(request, id: id, as: CommittedReply.self)
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

  private func send(end: String?) throws -> [WireResult] {
    let request = TransactionRequest(
      id: id, plugin: plugin, statements: pending, part: part, end: end)
    pending = []
    part += 1
    do {
      let (type, body) = try connection.request(request, id: id)
      if type == "committed" {
        throw AlreadyCommitted(reply: try WireCoding.decode(CommittedReply.self, from: body))
      }
      return try WireCoding.decode(ResultsReply.self, from: body).results
    } catch let error as ErrorReply where error.code == .sqlite {
      // A statement failed; the transaction stays open at the hub, as it would locally.
      throw DatabaseError(
        resultCode: ResultCode(rawValue: error.sqlite?.extended ?? 1), message: error.message,
        sql: request.statements[safe: error.statement]?.sql)
    }
  }
}

extension Array {
  subscript(safe index: Int?) -> Element? {
    guard let index, indices.contains(index) else { return nil }
    return self[index]
  }
}
