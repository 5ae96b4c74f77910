import Foundation
import HearthSQLite

/// A SQLite value in JSON, losslessly — as the wire protocol carries values and the change
/// feed records primary keys: `null`, `{"int": "-42"}` (a decimal string, so
/// that no JSON reader rounds a 64-bit integer), `{"real": 0.1}` (shortest round-trip
/// decimal; `"Infinity"`/`"-Infinity"` as strings), `{"text": "…"}`, `{"blob": "<base64>"}`.
public struct WireValue: Codable, Hashable, Sendable {
  public var value: DatabaseValue

  public init(_ value: DatabaseValue) { self.value = value }

  private enum Key: String, CodingKey {
    case int, real, text, blob
  }

  public init(from decoder: any Decoder) throws {
    let single = try decoder.singleValueContainer()
    if single.decodeNil() {
      value = .null
      return
    }
    let container = try decoder.container(keyedBy: Key.self)
    guard container.allKeys.count == 1, let key = container.allKeys.first else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: decoder.codingPath,
          debugDescription: "a value is null or an object with exactly one of int, real, text, blob"
        ))
    }
    switch key {
    case .int:
      let text = try container.decode(String.self, forKey: .int)
      guard let integer = Int64(text) else {
        throw DecodingError.dataCorruptedError(
          forKey: .int, in: container, debugDescription: "\"\(text)\" is not a 64-bit integer")
      }
      value = DatabaseValue(storage: .integer(integer))
    case .real:
      if let text = try? container.decode(String.self, forKey: .real) {
        switch text {
        case "Infinity": value = DatabaseValue(storage: .double(.infinity))
        case "-Infinity": value = DatabaseValue(storage: .double(-.infinity))
        default:
          throw DecodingError.dataCorruptedError(
            forKey: .real, in: container, debugDescription: "\"\(text)\" is not a number")
        }
      } else {
        value = DatabaseValue(storage: .double(try container.decode(Double.self, forKey: .real)))
      }
    case .text:
      value = DatabaseValue(storage: .text(try container.decode(String.self, forKey: .text)))
    case .blob:
      let text = try container.decode(String.self, forKey: .blob)
      guard let data = Data(base64Encoded: text) else {
        throw DecodingError.dataCorruptedError(
          forKey: .blob, in: container, debugDescription: "not base64")
      }
      value = DatabaseValue(storage: .blob(data))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    switch value.storage {
    case .null:
      var single = encoder.singleValueContainer()
      try single.encodeNil()
    case .integer(let integer):
      var container = encoder.container(keyedBy: Key.self)
      try container.encode(String(integer), forKey: .int)
    case .double(let double):
      var container = encoder.container(keyedBy: Key.self)
      if double.isInfinite {
        try container.encode(double > 0 ? "Infinity" : "-Infinity", forKey: .real)
      } else if double.isNaN {
        throw EncodingError.invalidValue(
          double, .init(codingPath: encoder.codingPath, debugDescription: "NaN has no SQLite form"))
      } else {
        try container.encode(double, forKey: .real)
      }
    case .text(let text):
      var container = encoder.container(keyedBy: Key.self)
      try container.encode(text, forKey: .text)
    case .blob(let data):
      var container = encoder.container(keyedBy: Key.self)
      try container.encode(data.base64EncodedString(), forKey: .blob)
    case .invalid(let error):
      throw error  // a statement refuses such an argument before it is sent
    }
  }
}

extension WireValue {
  /// `null`, or an object of exactly one of `int` (a decimal string), `real` (a number, or
  /// "Infinity" / "-Infinity"), `text`, `blob` (base64); nil for anything else. (Written by
  /// `JSONWriter.value`.)
  package init?(scanning scanner: inout JSONScanner) {
    if scanner.take(word: "null") {
      self.init(.null)
      return
    }
    guard scanner.take(UInt8(ascii: "{")), case .next(let key) = scanner.member(after: 0) else {
      return nil
    }
    let value: DatabaseValue?
    switch key {
    case "int":
      value = scanner.string().flatMap(Int64.init).map { DatabaseValue(storage: .integer($0)) }
    case "real":
      if scanner.peek(UInt8(ascii: "\"")) {
        value =
          switch scanner.string() {
          case "Infinity": DatabaseValue(storage: .double(.infinity))
          case "-Infinity": DatabaseValue(storage: .double(-.infinity))
          default: nil
          }
      } else {
        value = scanner.double().map { DatabaseValue(storage: .double($0)) }
      }
    case "text": value = scanner.string().map { DatabaseValue(storage: .text($0)) }
    case "blob":
      value = scanner.string().flatMap { Data(base64Encoded: $0) }.map {
        DatabaseValue(storage: .blob($0))
      }
    default: value = nil
    }
    guard let value, case .end = scanner.member(after: 1) else { return nil }
    self.init(value)
  }
}
