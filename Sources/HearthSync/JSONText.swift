import Foundation
import HearthSQLite
import HearthWire

/// The small JSON objects of `hearth_sync_rows` (column → time), read and written without
/// the generic coders: they are read and written once per synced row applied or pushed.
enum JSONText {
  /// `{"a":"b",…}` as a dictionary of strings; throws on anything else.
  static func strings(_ text: String) throws -> [String: String] {
    if text == "{}" { return [:] }
    var text = text
    let strings = text.withUTF8 { bytes in
      var scanner = JSONScanner(bytes: bytes)
      guard let strings = scanner.strings(), scanner.atEnd else { return nil as [String: String]? }
      return strings
    }
    guard let strings else { throw JSONTextError(text: text) }
    return strings
  }

  /// A chunk's records (a JSON array of `hearth.push`'s records), read by the scanner; a
  /// list of another shape goes through Foundation's decoder, which says what is wrong.
  static func recordList(_ text: String) throws -> [SyncRecord] {
    var text = text
    let records = text.withUTF8 { bytes in
      var scanner = JSONScanner(bytes: bytes)
      guard let records = scanner.list({ $0.syncRecord() }), scanner.atEnd else {
        return nil as [SyncRecord]?
      }
      return records
    }
    return try records ?? JSONDecoder().decode([SyncRecord].self, from: Data(text.utf8))
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
    var text = ""
    appendObject(strings, to: &text)
    return text
  }

  /// Records as the JSON array `hearth.push` takes (the form `SyncRecord`'s `Codable` writes),
  /// written directly into one string: a batch of thousands of records is written per push.
  static func records(_ records: [SyncRecord]) throws -> String {
    var text = "["
    text.reserveCapacity(records.count * 256)
    for (index, record) in records.enumerated() {
      if index > 0 { text += "," }
      text += "{\"type\":"
      appendQuoted(record.type, to: &text)
      text += ",\"name\":"
      appendQuoted(record.name, to: &text)
      text += ",\"fields\":{"
      for (position, (column, value)) in record.fields.enumerated() {
        if position > 0 { text += "," }
        appendQuoted(column, to: &text)
        text += ":"
        try appendValue(value.value, to: &text)
      }
      text += "},\"times\":"
      appendObject(record.times, to: &text)
      if let created = record.created {
        text += ",\"created\":"
        appendQuoted(created, to: &text)
      }
      if let deleted = record.deleted {
        text += ",\"deleted\":"
        appendQuoted(deleted, to: &text)
      }
      text += "}"
    }
    return text + "]"
  }

  /// A value as `WireValue` writes it, appended to `text`.
  static func appendValue(_ value: DatabaseValue, to text: inout String) throws {
    switch value.storage {
    case .null: text += "null"
    case .integer(let integer): text += "{\"int\":\"\(integer)\"}"
    case .double(let double):
      if double.isNaN { throw JSONTextError(text: "NaN has no SQLite form") }
      if double.isInfinite {
        text += double > 0 ? "{\"real\":\"Infinity\"}" : "{\"real\":\"-Infinity\"}"
      } else {
        text += "{\"real\":\(double)}"
      }
    case .text(let string):
      text += "{\"text\":"
      appendQuoted(string, to: &text)
      text += "}"
    case .blob(let data): text += "{\"blob\":\"" + data.base64EncodedString() + "\"}"
    case .invalid(let error): throw error  // never read from a database
    }
  }

  /// A dictionary of strings as a JSON object, keys sorted, appended to `text`.
  static func appendObject(_ strings: [String: String], to text: inout String) {
    text += "{"
    for (index, key) in strings.keys.sorted().enumerated() {
      if index > 0 { text += "," }
      appendQuoted(key, to: &text)
      text += ":"
      appendQuoted(strings[key]!, to: &text)
    }
    text += "}"
  }

  /// `string` as a JSON string, appended to `text`.
  static func appendQuoted(_ string: String, to text: inout String) {
    text += "\""
    // Times, keys and most text need no escape.
    guard string.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else {
      text += string
      text += "\""
      return
    }
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
    text += "\""
  }
}

struct JSONTextError: Error, CustomStringConvertible {
  var text: String
  var description: String { "not a JSON object of strings: \(text.prefix(200))" }
}

extension JSONScanner {
  /// An object whose every value `read` reads; nil for anything else (a key twice
  /// included).
  mutating func object<Value>(_ read: (inout JSONScanner) -> Value?) -> [String: Value]? {
    guard take(UInt8(ascii: "{")) else { return nil }
    var object: [String: Value] = [:]
    while true {
      switch member(after: object.count) {
      case .bad: return nil
      case .end: return object
      case .next(let key):
        guard let key, object[key] == nil, let value = read(&self) else { return nil }
        object[key] = value
      }
    }
  }

  /// An object of strings.
  mutating func strings() -> [String: String]? { object { $0.string() } }

  /// A record as `hearth.pull` writes it (`SyncRecord`'s `Codable` form); nil for any other
  /// shape.
  mutating func syncRecord() -> SyncRecord? {
    guard take(UInt8(ascii: "{")) else { return nil }
    var record = SyncRecord(type: "", name: "")
    var seen = 0
    var (hasType, hasName) = (false, false)
    while true {
      switch member(after: seen) {
      case .bad: return nil
      case .end: return hasType && hasName ? record : nil
      case .next(let key):
        seen += 1
        switch key {
        case "type":
          guard !hasType, let type = string() else { return nil }
          (record.type, hasType) = (type, true)
        case "name":
          guard !hasName, let name = string() else { return nil }
          (record.name, hasName) = (name, true)
        case "fields":
          guard let fields = object({ WireValue(scanning: &$0) }) else { return nil }
          record.fields = fields
        case "times":
          guard let times = strings() else { return nil }
          record.times = times
        case "created":
          guard let created = nullOr({ $0.string() }) else { return nil }
          record.created = created
        case "deleted":
          guard let deleted = nullOr({ $0.string() }) else { return nil }
          record.deleted = deleted
        case "movedTo":
          guard let movedTo = nullOr({ $0.string() }) else { return nil }
          record.movedTo = movedTo
        case "seq":
          guard let seq = nullOr({ $0.integer() }) else { return nil }
          record.seq = seq.map(Int64.init)
        default: return nil
        }
      }
    }
  }
}
