import Foundation
import HearthSQLite

/// A message of the protocol: JSON in and out, the same way on both sides (sorted keys, no
/// escaped slashes).
///
/// Most messages go through Foundation's coders (the defaults below). The hot ones — the
/// `transaction` request, its `results` and `committed` replies, the `commit` event — write
/// and read themselves (`encodedJSON`, `scanned(from:)`, beside each struct), chosen by the
/// type: with `JSONDecoder`, decoding a bulk write's messages took three quarters of the
/// hub's time under `perf`, and encoding the commit's event and reply a fifth.
public protocol WireMessage: Codable, Sendable {
  /// The message as JSON: what `JSONEncoder` with sorted keys writes, byte for byte.
  func encodedJSON() throws -> Data

  /// The message `body` holds, read without Foundation's coders, when it has exactly this
  /// message's shape — every key its own and given once, every value of its type; else nil
  /// (and `init(json:)` leaves it to `JSONDecoder`, which words the refusal). What it
  /// accepts, it reads as `JSONDecoder` does (tests and the fuzzer hold it to that).
  static func scanned(from body: Data) -> Self?
}

extension WireMessage {
  public func encodedJSON() throws -> Data { try WireCoding.foundationJSON(self) }

  public static func scanned(from body: Data) -> Self? { nil }

  /// Reads the message `body` holds: its own reader when it takes it, else `JSONDecoder`.
  public init(json body: Data) throws {
    if let message = Self.scanned(from: body) {
      self = message
    } else {
      self = try JSONDecoder().decode(Self.self, from: body)
    }
  }
}

/// JSON of anything else (and of the messages, by their own way).
public enum WireCoding {
  /// A message as its type writes it.
  public static func encode(_ message: some WireMessage) throws -> Data {
    try message.encodedJSON()
  }

  /// Any other value, through `JSONEncoder`.
  public static func encode<Value: Encodable>(_ value: Value) throws -> Data {
    try foundationJSON(value)
  }

  /// `value` through `JSONEncoder`: sorted keys, no escaped slashes.
  static func foundationJSON(_ value: some Encodable) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return try encoder.encode(value)
  }

  /// A message as its type reads it.
  public static func decode<Message: WireMessage>(
    _ type: Message.Type, from data: Data
  ) throws -> Message {
    try Message(json: data)
  }

  /// Any other value, through `JSONDecoder`.
  public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
    try JSONDecoder().decode(type, from: data)
  }
}

/// A message that reads itself (`init?(scanning:)`, the exact shape or nil).
package protocol ScannedMessage: WireMessage {
  init?(scanning scanner: inout JSONScanner)
}

extension ScannedMessage {
  public static func scanned(from body: Data) -> Self? {
    JSONScanner.scan(body) { Self(scanning: &$0) }
  }
}

extension JSONScanner {
  /// Reads `body` whole with `read`; nil unless it reads it to its end.
  package static func scan<Value>(
    _ body: Data, _ read: (inout JSONScanner) -> Value?
  ) -> Value? {
    body.withUnsafeBytes { raw in
      var scanner = JSONScanner(bytes: raw.bindMemory(to: UInt8.self))
      guard let value = read(&scanner), scanner.atEnd else { return nil }
      return value
    }
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
