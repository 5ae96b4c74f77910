import Foundation
import HearthSQLite

// The transaction messages: statements in, results and the commit out.

/// One statement of a transaction.
public struct WireStatement: Codable, Hashable, Sendable {
  public var sql: String
  public var args: [WireValue]?
  /// Whether the client wants the rows back (a SELECT, or RETURNING).
  public var rows: Bool?

  public init(sql: String, args: [WireValue]? = nil, rows: Bool? = nil) {
    self.sql = sql
    self.args = args
    self.rows = rows
  }

  /// At least as many bytes as the statement takes in a message (JSON's escapes counted at
  /// their longest): what a client adds up to keep its messages under the hub's size limit
  /// without encoding twice.
  public var encodedSizeBound: Int { encodedSizeBound(sqlBound: Self.jsonStringBound(sql)) }

  /// The same, given its SQL's bound (`jsonStringBound(sql)`): a bulk write repeats one
  /// SQL, measured once.
  public func encodedSizeBound(sqlBound: Int) -> Int {
    var bytes = 32 + sqlBound
    for argument in args ?? [] {
      switch argument.value.storage {
      case .null, .invalid: bytes += 5
      case .integer, .double: bytes += 40
      case .text(let text): bytes += 12 + WireStatement.jsonStringBound(text)
      case .blob(let data): bytes += 12 + (data.count + 2) / 3 * 4
      }
    }
    return bytes
  }

  /// The most bytes `text` takes as a JSON string.
  public static func jsonStringBound(_ text: String) -> Int {
    var bytes = 2
    for byte in text.utf8 {
      bytes += byte < 0x20 ? 6 : (byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") ? 2 : 1)
    }
    return bytes
  }
}

/// `transaction`: statements of the transaction whose request id is `id`. The first message
/// with an id begins it; `end` (`"commit"` or `"rollback"`) ends it; messages without `end`
/// keep it open and get `results`. A transaction that begins and ends in one message may
/// share a COMMIT with others (group commit) without sharing their failures.
public struct TransactionRequest: Codable, Hashable, Sendable {
  public var v = WireProtocol.version
  public var type = "transaction"
  public var id: String
  public var plugin: String
  public var statements: [WireStatement]
  /// The 0-based index of this message within its transaction: a continuation (part > 0)
  /// of a transaction the hub does not hold is refused with `unknownTransaction`.
  public var part: Int?
  public var end: String?
  /// `"none"`: the reply carries no results (`results: []`), for a message whose statements'
  /// results the client does not read (a bulk write's parts); nil or `"all"`: one result
  /// per statement.
  public var results: String?

  public init(
    id: String, plugin: String, statements: [WireStatement], part: Int = 0, end: String? = nil,
    results: String? = nil
  ) {
    self.id = id
    self.plugin = plugin
    self.statements = statements
    self.part = part
    self.end = end
    self.results = results
  }

  /// Whether the reply leaves the results out.
  public var wantsNoResults: Bool { results == "none" }
}

/// What one statement gave back.
public struct WireResult: Codable, Hashable, Sendable {
  public var columns: [String]
  public var rows: [[WireValue]]
  public var changes: Int
  public var lastRowID: Int64

  public init(columns: [String], rows: [[WireValue]], changes: Int, lastRowID: Int64) {
    self.columns = columns
    self.rows = rows
    self.changes = changes
    self.lastRowID = lastRowID
  }
}

/// The results of the statements of a `transaction` message that did not end it.
public struct ResultsReply: Codable, Hashable, Sendable {
  public var v = WireProtocol.version
  public var type = "results"
  public var id: String
  public var results: [WireResult]

  public init(id: String, results: [WireResult]) {
    self.id = id
    self.results = results
  }
}

/// The end of a transaction: committed at `seq` (0 when it changed nothing or rolled back).
/// A retried request id gets the first reply again, with `duplicate: true`.
public struct CommittedReply: Codable, Hashable, Sendable {
  public var v = WireProtocol.version
  public var type = "committed"
  public var id: String
  public var seq: Int64
  public var results: [WireResult]
  public var duplicate: Bool?
  public var rolledBack: Bool?

  public init(
    id: String, seq: Int64, results: [WireResult], duplicate: Bool? = nil,
    rolledBack: Bool? = nil
  ) {
    self.id = id
    self.seq = seq
    self.results = results
    self.duplicate = duplicate
    self.rolledBack = rolledBack
  }
}
