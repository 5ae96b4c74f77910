import Foundation
import HearthSQLite

/// JSON in and out, the same way on both sides: sorted keys, no escaped slashes.
public enum WireCoding {
  public static func encode(_ value: some Encodable) throws -> Data {
    // The messages of a long transaction, without the generic coders (`TransactionCodec`).
    if let transaction = value as? TransactionRequest {
      return try TransactionCodec.encode(transaction)
    }
    if let results = value as? ResultsReply { return try TransactionCodec.encode(results) }
    // What every commit writes: the event and the writer's reply.
    if let event = value as? CommitEvent { return try TransactionCodec.encode(event) }
    if let reply = value as? CommittedReply { return try TransactionCodec.encode(reply) }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return try encoder.encode(value)
  }

  public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
    if type == ResultsReply.self, let results = TransactionCodec.decodeResults(data) {
      return results as! T  // T is ResultsReply: checked just above
    }
    if type == CommittedReply.self, let reply = TransactionCodec.decodeCommitted(data) {
      return reply as! T  // T is CommittedReply: checked just above
    }
    return try JSONDecoder().decode(type, from: data)
  }
}

extension StatementResult {
  public init(_ wire: WireResult) {
    self.init(
      columnNames: wire.columns, rows: wire.rows.map { $0.map(\.value) },
      changesCount: wire.changes, lastInsertedRowID: wire.lastRowID)
  }
}

extension WireResult {
  public init(_ result: StatementResult) {
    self.init(
      columns: result.columnNames, rows: result.rows.map { $0.map(WireValue.init) },
      changes: result.changesCount, lastRowID: result.lastInsertedRowID)
  }
}
