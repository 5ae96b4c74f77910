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

// MARK: - Their JSON, written and read without Foundation's coders

extension TransactionRequest: ScannedMessage {
  public func encodedJSON() throws -> Data {
    var json = JSONWriter(capacity: 256 + statements.count * 64)
    // A bulk write repeats one statement's SQL: its JSON is written once and copied.
    var repeated: (sql: String, json: [UInt8])?
    try json.object { json in
      if let end {
        json.key("end")
        json.string(end)
      }
      json.key("id")
      json.string(id)
      if let part {
        json.key("part")
        json.integer(part)
      }
      json.key("plugin")
      json.string(plugin)
      if let results {
        json.key("results")
        json.string(results)
      }
      json.key("statements")
      try json.array(statements) { json, statement in
        try statement.write(to: &json, repeated: &repeated)
      }
      json.envelopeEnd(type: type, v: v)
    }
    return json.data
  }

  /// A whole `transaction` object; nil unless every key is one of its own, given once, with
  /// a value of its type, and `type` is "transaction".
  package init?(scanning scanner: inout JSONScanner) {
    var (v, type, id, plugin): (Int?, String?, String?, String?) = (nil, nil, nil, nil)
    var statements: [WireStatement]?
    var (part, end, results): (Int??, String??, String??) = (nil, nil, nil)
    let read = scanner.object { scanner, key in
      switch key {
      case "v" where v == nil: scanner.fill(&v) { $0.integer() }
      case "type" where type == nil: scanner.fill(&type) { $0.string() }
      case "id" where id == nil: scanner.fill(&id) { $0.string() }
      case "plugin" where plugin == nil: scanner.fill(&plugin) { $0.string() }
      case "statements" where statements == nil:
        scanner.fill(&statements) { $0.list { WireStatement(scanning: &$0) } }
      case "part" where part == nil: scanner.fill(&part) { $0.nullOr { $0.integer() } }
      case "end" where end == nil: scanner.fill(&end) { $0.nullOr { $0.string() } }
      case "results" where results == nil:
        scanner.fill(&results) { $0.nullOr { $0.string() } }
      default: false  // a key not of this message, or given twice
      }
    }
    guard read else { return nil }
    guard let v, type == "transaction", let id, let plugin, let statements else { return nil }
    self.init(
      id: id, plugin: plugin, statements: statements, end: end ?? nil,
      results: results ?? nil)
    self.v = v
    self.part = part ?? nil
  }
}

extension WireStatement {
  /// The statement as JSON; `repeated` is the last SQL written and its JSON, copied when
  /// this statement's is the same.
  func write(to json: inout JSONWriter, repeated: inout (sql: String, json: [UInt8])?) throws {
    try json.object { json in
      if let args {
        json.key("args")
        try json.array(args) { json, argument in try json.value(argument.value) }
      }
      if let rows {
        json.key("rows")
        json.bool(rows)
      }
      json.key("sql")
      if let repeated, repeated.sql == sql {
        json.raw(repeated.json)
      } else {
        var text = JSONWriter(capacity: sql.utf8.count + 2)
        text.string(sql)
        json.raw(text.bytes)
        repeated = (sql, text.bytes)
      }
    }
  }

  /// Exactly `sql`, and `args` and `rows` if given (or null).
  init?(scanning scanner: inout JSONScanner) {
    var sql: String?
    var args: [WireValue]??
    var rows: Bool??
    let read = scanner.object { scanner, key in
      switch key {
      case "sql" where sql == nil: scanner.fill(&sql) { $0.repeatableString() }
      case "args" where args == nil:
        scanner.fill(&args) { $0.nullOr { $0.list { WireValue(scanning: &$0) } } }
      case "rows" where rows == nil: scanner.fill(&rows) { $0.nullOr { $0.bool() } }
      default: false
      }
    }
    guard read else { return nil }
    guard let sql else { return nil }
    self.init(sql: sql, args: args ?? nil, rows: rows ?? nil)
  }
}

extension WireResult {
  func write(to json: inout JSONWriter) throws {
    try json.object { json in
      json.key("changes")
      json.integer(changes)
      json.key("columns")
      json.array(columns) { json, name in json.string(name) }
      json.key("lastRowID")
      json.integer(lastRowID)
      json.key("rows")
      try json.array(rows) { json, row in
        try json.array(row) { json, value in try json.value(value.value) }
      }
    }
  }

  /// Exactly `changes`, `columns`, `lastRowID` and `rows`.
  init?(scanning scanner: inout JSONScanner) {
    var (changes, lastRowID): (Int?, Int?) = (nil, nil)
    var columns: [String]?
    var rows: [[WireValue]]?
    let read = scanner.object { scanner, key in
      switch key {
      case "changes" where changes == nil: scanner.fill(&changes) { $0.integer() }
      case "lastRowID" where lastRowID == nil: scanner.fill(&lastRowID) { $0.integer() }
      case "columns" where columns == nil:
        scanner.fill(&columns) { $0.list { $0.string() } }
      case "rows" where rows == nil:
        scanner.fill(&rows) { $0.list { $0.list { WireValue(scanning: &$0) } } }
      default: false
      }
    }
    guard read else { return nil }
    guard let changes, let columns, let lastRowID, let rows else { return nil }
    self.init(columns: columns, rows: rows, changes: changes, lastRowID: Int64(lastRowID))
  }

  /// Statements' results, as a JSON array.
  static func write(_ results: [WireResult], to json: inout JSONWriter) throws {
    try json.array(results) { json, result in try result.write(to: &json) }
  }

  /// A JSON array of results.
  static func scanList(_ scanner: inout JSONScanner) -> [WireResult]? {
    scanner.list { WireResult(scanning: &$0) }
  }
}

extension ResultsReply: ScannedMessage {
  public func encodedJSON() throws -> Data {
    var json = JSONWriter(capacity: 64 + results.count * 64)
    try json.object { json in
      json.key("id")
      json.string(id)
      json.key("results")
      try WireResult.write(results, to: &json)
      json.envelopeEnd(type: type, v: v)
    }
    return json.data
  }

  /// A whole `results` object; nil unless it has exactly its keys, each once.
  package init?(scanning scanner: inout JSONScanner) {
    var (v, type, id): (Int?, String?, String?) = (nil, nil, nil)
    var results: [WireResult]?
    let read = scanner.object { scanner, key in
      switch key {
      case "v" where v == nil: scanner.fill(&v) { $0.integer() }
      case "type" where type == nil: scanner.fill(&type) { $0.string() }
      case "id" where id == nil: scanner.fill(&id) { $0.string() }
      case "results" where results == nil: scanner.fill(&results, WireResult.scanList)
      default: false
      }
    }
    guard read else { return nil }
    guard let v, type == "results", let id, let results else { return nil }
    self.init(id: id, results: results)
    self.v = v
  }
}

extension CommittedReply: ScannedMessage {
  public func encodedJSON() throws -> Data {
    var json = JSONWriter(capacity: 128 + results.count * 64)
    try json.object { json in
      if let duplicate {
        json.key("duplicate")
        json.bool(duplicate)
      }
      json.key("id")
      json.string(id)
      json.key("results")
      try WireResult.write(results, to: &json)
      if let rolledBack {
        json.key("rolledBack")
        json.bool(rolledBack)
      }
      json.key("seq")
      json.integer(seq)
      json.envelopeEnd(type: type, v: v)
    }
    return json.data
  }

  /// A whole `committed` object; nil unless it has only its keys, each once, each of its
  /// type (`duplicate` and `rolledBack` may be absent or null).
  package init?(scanning scanner: inout JSONScanner) {
    var (v, seq, type, id): (Int?, Int?, String?, String?) = (nil, nil, nil, nil)
    var results: [WireResult]?
    var (duplicate, rolledBack): (Bool??, Bool??) = (nil, nil)
    let read = scanner.object { scanner, key in
      switch key {
      case "v" where v == nil: scanner.fill(&v) { $0.integer() }
      case "seq" where seq == nil: scanner.fill(&seq) { $0.integer() }
      case "type" where type == nil: scanner.fill(&type) { $0.string() }
      case "id" where id == nil: scanner.fill(&id) { $0.string() }
      case "results" where results == nil: scanner.fill(&results, WireResult.scanList)
      case "duplicate" where duplicate == nil:
        scanner.fill(&duplicate) { $0.nullOr { $0.bool() } }
      case "rolledBack" where rolledBack == nil:
        scanner.fill(&rolledBack) { $0.nullOr { $0.bool() } }
      default: false
      }
    }
    guard read else { return nil }
    guard let v, type == "committed", let id, let seq, let results else { return nil }
    self.init(
      id: id, seq: Int64(seq), results: results, duplicate: duplicate ?? nil,
      rolledBack: rolledBack ?? nil)
    self.v = v
  }
}
