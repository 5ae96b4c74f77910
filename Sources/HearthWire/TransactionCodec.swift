import Foundation
import HearthSQLite

/// The `transaction` message without Foundation's generic coders: the hub's hottest message
/// (profiled with `perf`, `JSONDecoder` took three quarters of the hub's time in a bulk
/// write). `decode` reads only the exact shape the protocol defines — every key known and
/// given once, every value of its type — and returns nil for anything else, which then goes
/// through `JSONDecoder` as before (so every refusal and its message stay as they were);
/// what it accepts, it reads as `JSONDecoder` does (a test and the fuzzer hold it to that).
/// `encode` writes what `JSONEncoder` would mean, with keys in the same sorted order.
public enum TransactionCodec {
  /// The request `body` holds, when it is a well-formed `transaction` message; else nil.
  public static func decode(_ body: Data) -> TransactionRequest? {
    body.withUnsafeBytes { raw in
      var scanner = JSONScanner(bytes: raw.bindMemory(to: UInt8.self))
      guard let request = scanner.transaction(), scanner.atEnd else { return nil }
      return request
    }
  }

  /// The message as JSON; throws for a NaN, which has no SQLite form (as `JSONEncoder`'s
  /// path does).
  public static func encode(_ request: TransactionRequest) throws -> Data {
    var out: [UInt8] = []
    out.reserveCapacity(256 + request.statements.count * 64)
    out.append(UInt8(ascii: "{"))
    if let end = request.end {
      key("end", &out, first: true)
      string(end, &out)
    }
    key("id", &out, first: request.end == nil)
    string(request.id, &out)
    if let part = request.part {
      key("part", &out)
      out.append(contentsOf: String(part).utf8)
    }
    key("plugin", &out)
    string(request.plugin, &out)
    if let results = request.results {
      key("results", &out)
      string(results, &out)
    }
    key("statements", &out)
    out.append(UInt8(ascii: "["))
    // A bulk write repeats one statement's SQL: its JSON is written once and copied.
    var repeated: (sql: String, json: [UInt8])?
    for (index, statement) in request.statements.enumerated() {
      if index > 0 { out.append(UInt8(ascii: ",")) }
      try encode(statement, &out, repeated: &repeated)
    }
    out.append(UInt8(ascii: "]"))
    return finish(&out, type: request.type, v: request.v)
  }

  /// The `results` reply, as JSON (the hub answers each part of a long transaction with
  /// one result per statement).
  public static func encode(_ reply: ResultsReply) throws -> Data {
    var out: [UInt8] = []
    out.reserveCapacity(64 + reply.results.count * 64)
    out.append(contentsOf: #"{"id":"#.utf8)
    string(reply.id, &out)
    key("results", &out)
    try encode(reply.results, &out)
    return finish(&out, type: reply.type, v: reply.v)
  }

  /// Statements' results, as a JSON array.
  static func encode(_ results: [WireResult], _ out: inout [UInt8]) throws {
    out.append(UInt8(ascii: "["))
    for (index, result) in results.enumerated() {
      if index > 0 { out.append(UInt8(ascii: ",")) }
      out.append(contentsOf: #"{"changes":"#.utf8)
      integer(result.changes, &out)
      key("columns", &out)
      out.append(UInt8(ascii: "["))
      for (column, name) in result.columns.enumerated() {
        if column > 0 { out.append(UInt8(ascii: ",")) }
        string(name, &out)
      }
      out.append(UInt8(ascii: "]"))
      key("lastRowID", &out)
      integer(result.lastRowID, &out)
      key("rows", &out)
      out.append(UInt8(ascii: "["))
      for (number, row) in result.rows.enumerated() {
        if number > 0 { out.append(UInt8(ascii: ",")) }
        out.append(UInt8(ascii: "["))
        for (column, value) in row.enumerated() {
          if column > 0 { out.append(UInt8(ascii: ",")) }
          try encode(value.value, &out)
        }
        out.append(UInt8(ascii: "]"))
      }
      out.append(contentsOf: "]}".utf8)
    }
    out.append(UInt8(ascii: "]"))
  }

  /// An integer in decimal.
  static func integer(_ value: some BinaryInteger, _ out: inout [UInt8]) {
    out.append(contentsOf: String(value).utf8)
  }

  /// The envelope's last two keys (in sorted order, as `JSONEncoder` writes them) and the
  /// closing brace.
  static func finish(_ out: inout [UInt8], type: String, v: Int) -> Data {
    key("type", &out)
    string(type, &out)
    key("v", &out)
    out.append(contentsOf: String(v).utf8)
    out.append(UInt8(ascii: "}"))
    return Data(out)
  }

  /// The envelope (`v`, `type`, `id`) of any message, without building the rest; nil for
  /// anything unusual (then `JSONDecoder` reads it).
  public static func envelope(_ body: Data) -> WireEnvelope? {
    body.withUnsafeBytes { raw in
      var scanner = JSONScanner(bytes: raw.bindMemory(to: UInt8.self))
      guard let envelope = scanner.envelope(), scanner.atEnd else { return nil }
      return envelope
    }
  }

  /// The `results` reply `body` holds, when it is a well-formed one; else nil.
  public static func decodeResults(_ body: Data) -> ResultsReply? {
    body.withUnsafeBytes { raw in
      var scanner = JSONScanner(bytes: raw.bindMemory(to: UInt8.self))
      guard let reply = scanner.resultsReply(), scanner.atEnd else { return nil }
      return reply
    }
  }

  private static func encode(
    _ statement: WireStatement, _ out: inout [UInt8], repeated: inout (sql: String, json: [UInt8])?
  ) throws {
    out.append(UInt8(ascii: "{"))
    var first = true
    if let args = statement.args {
      key("args", &out, first: true)
      first = false
      out.append(UInt8(ascii: "["))
      for (index, argument) in args.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        try encode(argument.value, &out)
      }
      out.append(UInt8(ascii: "]"))
    }
    if let rows = statement.rows {
      key("rows", &out, first: first)
      first = false
      out.append(contentsOf: (rows ? "true" : "false").utf8)
    }
    key("sql", &out, first: first)
    if let repeated, repeated.sql == statement.sql {
      out.append(contentsOf: repeated.json)
    } else {
      var json: [UInt8] = []
      string(statement.sql, &json)
      out.append(contentsOf: json)
      repeated = (statement.sql, json)
    }
    out.append(UInt8(ascii: "}"))
  }

  static func encode(_ value: DatabaseValue, _ out: inout [UInt8]) throws {
    switch value.storage {
    case .null:
      out.append(contentsOf: "null".utf8)
    case .integer(let integer):
      out.append(contentsOf: #"{"int":""#.utf8)
      out.append(contentsOf: String(integer).utf8)
      out.append(contentsOf: #""}"#.utf8)
    case .double(let double):
      guard !double.isNaN else {
        throw EncodingError.invalidValue(
          double, .init(codingPath: [], debugDescription: "NaN has no SQLite form"))
      }
      out.append(contentsOf: #"{"real":"#.utf8)
      if double.isInfinite {
        string(double > 0 ? "Infinity" : "-Infinity", &out)
      } else {
        out.append(contentsOf: "\(double)".utf8)
      }
      out.append(UInt8(ascii: "}"))
    case .text(let text):
      out.append(contentsOf: #"{"text":"#.utf8)
      string(text, &out)
      out.append(UInt8(ascii: "}"))
    case .blob(let data):
      out.append(contentsOf: #"{"blob":""#.utf8)
      out.append(contentsOf: data.base64EncodedString().utf8)
      out.append(contentsOf: #""}"#.utf8)
    case .invalid(let error):
      throw error  // a statement refuses such an argument before it is sent
    }
  }

  static func key(_ name: String, _ out: inout [UInt8], first: Bool = false) {
    if !first { out.append(UInt8(ascii: ",")) }
    out.append(UInt8(ascii: "\""))
    out.append(contentsOf: name.utf8)
    out.append(contentsOf: #"":"#.utf8)
  }

  /// `text` as a JSON string: `"` and `\` escaped, control characters as `\n`, `\u001f`…
  static func string(_ text: String, _ out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    // Most strings need no escape: copied whole.
    if !text.utf8.contains(where: {
      $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\")
    }) {
      out.append(contentsOf: text.utf8)
      out.append(UInt8(ascii: "\""))
      return
    }
    let hex = Array("0123456789abcdef".utf8)
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), byte])
      case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), byte])
      case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
      case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
      case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
      case 0..<0x20:
        out.append(contentsOf: #"\u00"#.utf8)
        out.append(contentsOf: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
      default: out.append(byte)
      }
    }
    out.append(UInt8(ascii: "\""))
  }
}
