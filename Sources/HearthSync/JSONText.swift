import Foundation
import HearthSQLite

/// The small JSON objects of `hearth_sync_rows` (column → time), read and written without
/// the generic coders: they are read and written once per synced row applied or pushed.
enum JSONText {
  /// `{"a":"b",…}` as a dictionary of strings; throws on anything else.
  static func strings(_ text: String) throws -> [String: String] {
    if text == "{}" { return [:] }
    guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    else { throw JSONTextError(text: text) }
    var result: [String: String] = [:]
    for (key, value) in object {
      guard let value = value as? String else { throw JSONTextError(text: text) }
      result[key] = value
    }
    return result
  }

  /// Any value through Foundation's coder (keys sorted), for what is not a dictionary of
  /// strings.
  static func encode(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return String(decoding: try encoder.encode(value), as: UTF8.self)
  }

  /// A dictionary of strings as a JSON object, keys sorted.
  static func object(_ strings: [String: String]) -> String {
    if strings.isEmpty { return "{}" }
    var text = "{"
    for (index, key) in strings.keys.sorted().enumerated() {
      if index > 0 { text += "," }
      text += quoteIdentifier(key) + ":" + quoteIdentifier(strings[key]!)
    }
    return text + "}"
  }

  /// Records as the JSON array `hearth.push` takes (the form `SyncRecord`'s `Codable` writes),
  /// written directly: a batch of thousands of records is written per push.
  static func records(_ records: [SyncRecord]) throws -> String {
    var text = "["
    text.reserveCapacity(records.count * 256)
    for (index, record) in records.enumerated() {
      if index > 0 { text += "," }
      text +=
        "{\"type\":" + quoteIdentifier(record.type) + ",\"name\":"
        + quoteIdentifier(record.name) + ",\"fields\":{"
      for (position, (column, value)) in record.fields.enumerated() {
        if position > 0 { text += "," }
        text += quoteIdentifier(column) + ":" + (try self.value(value.value))
      }
      text += "},\"times\":" + object(record.times)
      if let created = record.created { text += ",\"created\":" + quoteIdentifier(created) }
      if let deleted = record.deleted { text += ",\"deleted\":" + quoteIdentifier(deleted) }
      text += "}"
    }
    return text + "]"
  }

  /// A value as `WireValue` writes it.
  static func value(_ value: DatabaseValue) throws -> String {
    switch value.storage {
    case .null: return "null"
    case .integer(let integer): return "{\"int\":\"\(integer)\"}"
    case .double(let double):
      if double.isNaN { throw JSONTextError(text: "NaN has no SQLite form") }
      if double.isInfinite {
        return double > 0 ? "{\"real\":\"Infinity\"}" : "{\"real\":\"-Infinity\"}"
      }
      return "{\"real\":\(double)}"
    case .text(let text): return "{\"text\":" + quoteIdentifier(text) + "}"
    case .blob(let data): return "{\"blob\":\"" + data.base64EncodedString() + "\"}"
    }
  }

  static func quoteIdentifier(_ string: String) -> String {
    var text = "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": text += "\\\""
      case "\\": text += "\\\\"
      case "\n": text += "\\n"
      case "\r": text += "\\r"
      case "\t": text += "\\t"
      case _ where scalar.value < 0x20:
        text +=
          "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
          + String(scalar.value, radix: 16)
      default: text.unicodeScalars.append(scalar)
      }
    }
    return text + "\""
  }
}

struct JSONTextError: Error, CustomStringConvertible {
  var text: String
  var description: String { "not a JSON object of strings: \(text.prefix(200))" }
}
