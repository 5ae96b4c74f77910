import Foundation

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
