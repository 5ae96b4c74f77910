import Foundation
import HearthSQLite

/// JSON written byte by byte, the writing half of `JSONScanner`: what the hot messages
/// (`WireMessage.encodedJSON`) write for themselves. Its output is what `JSONEncoder` with
/// `.sortedKeys` and `.withoutEscapingSlashes` writes for the same value, byte for byte, as
/// long as the caller writes the keys in sorted order (tests hold each message to that).
package struct JSONWriter {
  package private(set) var bytes: [UInt8] = []
  /// Whether the object or array being written has no member yet.
  private var isFirst = true

  package init(capacity: Int) { bytes.reserveCapacity(capacity) }

  package var data: Data { Data(bytes) }

  /// Writes an object whose members `members` writes.
  package mutating func object(_ members: (inout JSONWriter) throws -> Void) rethrows {
    bytes.append(UInt8(ascii: "{"))
    isFirst = true
    try members(&self)
    bytes.append(UInt8(ascii: "}"))
    isFirst = false
  }

  /// Writes an array of `elements`, each written by `element`.
  package mutating func array<Element>(
    _ elements: some Sequence<Element>, _ element: (inout JSONWriter, Element) throws -> Void
  ) rethrows {
    bytes.append(UInt8(ascii: "["))
    var first = true
    for value in elements {
      if !first { bytes.append(UInt8(ascii: ",")) }
      first = false
      try element(&self, value)
    }
    bytes.append(UInt8(ascii: "]"))
    isFirst = false
  }

  /// Begins a member of the object being written: its key (then write its value).
  package mutating func key(_ name: String) {
    if !isFirst { bytes.append(UInt8(ascii: ",")) }
    string(name)
    bytes.append(UInt8(ascii: ":"))
  }

  /// `text` as a JSON string: `"` and `\` escaped, control characters as `\n`, `\u001f`…
  package mutating func string(_ text: String) {
    defer { isFirst = false }
    bytes.append(UInt8(ascii: "\""))
    // Most strings need no escape: copied whole.
    if !text.utf8.contains(where: {
      $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\")
    }) {
      bytes.append(contentsOf: text.utf8)
      bytes.append(UInt8(ascii: "\""))
      return
    }
    let hex = Array("0123456789abcdef".utf8)
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, byte])
      case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
      case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
      case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
      case 0..<0x20:
        bytes.append(contentsOf: #"\u00"#.utf8)
        bytes.append(contentsOf: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
      default: bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  /// An integer in decimal.
  package mutating func integer(_ value: some BinaryInteger) {
    if let small = Int64(exactly: value) {
      decimal(small)
    } else {
      bytes.append(contentsOf: String(value).utf8)
    }
    isFirst = false
  }

  /// `value`'s decimal digits, written straight into the output (`String(value)` goes
  /// through the generic radix conversion and a string of its own).
  private mutating func decimal(_ value: Int64) {
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    var magnitude = value.magnitude
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for Int64's 19 digits
    withUnsafeMutableBytes(of: &digits) { buffer in
      var start = buffer.count
      repeat {
        start -= 1
        buffer[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
        magnitude /= 10
      } while magnitude > 0
      bytes.append(contentsOf: buffer[start...])
    }
  }

  package mutating func bool(_ value: Bool) {
    bytes.append(contentsOf: (value ? "true" : "false").utf8)
    isFirst = false
  }

  /// Bytes already written as JSON (a value written once and repeated).
  package mutating func raw(_ json: some Sequence<UInt8>) {
    bytes.append(contentsOf: json)
    isFirst = false
  }

  /// A SQLite value as the protocol writes one: `null`, or an object of one of `int` (a
  /// decimal string), `real`, `text`, `blob` (base64). Throws for a NaN, which has no SQLite
  /// form (as `JSONEncoder` does), and for a value no statement may bind.
  package mutating func value(_ value: DatabaseValue) throws {
    switch value.storage {
    case .null:
      bytes.append(contentsOf: "null".utf8)
    case .integer(let integer):
      bytes.append(contentsOf: #"{"int":""#.utf8)
      decimal(integer)
      bytes.append(contentsOf: #""}"#.utf8)
    case .double(let double):
      guard !double.isNaN else {
        throw EncodingError.invalidValue(
          double, .init(codingPath: [], debugDescription: "NaN has no SQLite form"))
      }
      bytes.append(contentsOf: #"{"real":"#.utf8)
      if double.isInfinite {
        string(double > 0 ? "Infinity" : "-Infinity")
      } else {
        bytes.append(contentsOf: "\(double)".utf8)
      }
      bytes.append(UInt8(ascii: "}"))
    case .text(let text):
      bytes.append(contentsOf: #"{"text":"#.utf8)
      string(text)
      bytes.append(UInt8(ascii: "}"))
    case .blob(let data):
      bytes.append(contentsOf: #"{"blob":""#.utf8)
      bytes.append(contentsOf: data.base64EncodedString().utf8)
      bytes.append(contentsOf: #""}"#.utf8)
    case .invalid(let error):
      throw error  // a statement refuses such an argument before it is sent
    }
    isFirst = false
  }

  /// An object of `object`'s members, keys in the order `JSONEncoder`'s `.sortedKeys`
  /// writes them (by their UTF-8 bytes), each value written by `value`.
  package mutating func sortedObject<Value>(
    _ object: [String: Value], _ value: (inout JSONWriter, Value) throws -> Void
  ) rethrows {
    try self.object { json in
      for name in object.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
        json.key(name)
        try value(&json, object[name]!)  // a key of the dictionary, just listed
      }
    }
  }

  /// The envelope's last two members, `type` and `v` (the last keys in sorted order of
  /// every message that has no key after `v`).
  package mutating func envelopeEnd(type: String, v: Int) {
    key("type")
    string(type)
    key("v")
    integer(v)
  }
}
