import Foundation
import HearthSQLite

/// A strict reader of JSON bytes, for the messages that read themselves
/// (`WireMessage.scanned(from:)`): each method reads one thing or returns nil (or `.bad`),
/// and then the whole message goes the general way.
package struct JSONScanner {
  let bytes: UnsafeBufferPointer<UInt8>
  var index = 0
  /// The last statement's SQL as it was written (quotes included) and read: a bulk write
  /// repeats it, and the same bytes are the same string, read once.
  var lastSQL: (raw: Range<Int>, text: String)?

  package init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

  package enum Step {
    case next(String?)
    case end
    case bad
  }

  package var atEnd: Bool {
    mutating get {
      skipSpace()
      return index == bytes.count
    }
  }

  package mutating func skipSpace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0A, 0x0D: index += 1
      default: return
      }
    }
  }

  package mutating func take(_ byte: UInt8) -> Bool {
    skipSpace()
    guard index < bytes.count, bytes[index] == byte else { return false }
    index += 1
    return true
  }

  package mutating func take(word: String) -> Bool {
    skipSpace()
    let word = Array(word.utf8)
    guard bytes.count - index >= word.count,
      word.indices.allSatisfy({ bytes[index + $0] == word[$0] })
    else { return false }
    index += word.count
    return true
  }

  /// The next member of an object whose `count` members were read (after its `{`): its
  /// key, `.end` at the `}`.
  package mutating func member(after count: Int) -> Step {
    if take(UInt8(ascii: "}")) { return .end }
    if count > 0, !take(UInt8(ascii: ",")) { return .bad }
    guard let key = string(), take(UInt8(ascii: ":")) else { return .bad }
    return .next(key)
  }

  /// Whether an array whose `count` elements were read (after its `[`) has another.
  package mutating func element(after count: Int) -> Step {
    if take(UInt8(ascii: "]")) { return .end }
    if count > 0, !take(UInt8(ascii: ",")) { return .bad }
    return .next(nil)
  }

  /// A string, escapes decoded; nil for a malformed one, invalid UTF-8, a control
  /// character or a lone surrogate.
  package mutating func string() -> String? {
    guard take(UInt8(ascii: "\"")) else { return nil }
    let start = index
    var isASCII = true
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        defer { index += 1 }
        let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
        // ASCII is valid UTF-8 as it is: the common case skips the generic validating
        // initializer (a metadata look-up per call, a tenth of a bulk write's hub time).
        return isASCII
          ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
      }
      if byte == UInt8(ascii: "\\") { break }
      if byte < 0x20 { return nil }
      if byte >= 0x80 { isASCII = false }
      index += 1
    }
    var decoded = Array(bytes[start..<index])
    while index < bytes.count {
      let byte = bytes[index]
      index += 1
      switch byte {
      case UInt8(ascii: "\""): return String(validating: decoded, as: UTF8.self)
      case UInt8(ascii: "\\"): guard escape(into: &decoded) else { return nil }
      case 0..<0x20: return nil
      default: decoded.append(byte)
      }
    }
    return nil
  }

  /// One escape (after its `\`), appended as UTF-8.
  private mutating func escape(into decoded: inout [UInt8]) -> Bool {
    guard index < bytes.count else { return false }
    let letter = bytes[index]
    index += 1
    switch letter {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(letter)
    case UInt8(ascii: "b"): decoded.append(0x08)
    case UInt8(ascii: "f"): decoded.append(0x0C)
    case UInt8(ascii: "n"): decoded.append(0x0A)
    case UInt8(ascii: "r"): decoded.append(0x0D)
    case UInt8(ascii: "t"): decoded.append(0x09)
    case UInt8(ascii: "u"):
      guard var scalar = hexQuad() else { return false }
      if (0xD800..<0xDC00).contains(scalar) {
        guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"),
          bytes[index + 1] == UInt8(ascii: "u")
        else { return false }
        index += 2
        guard let low = hexQuad(), (0xDC00..<0xE000).contains(low) else {
          return false
        }
        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
      }
      guard let unicode = Unicode.Scalar(scalar) else { return false }
      decoded.append(contentsOf: Array(String(Character(unicode)).utf8))
    default: return false
    }
    return true
  }

  private mutating func hexQuad() -> UInt32? {
    guard bytes.count - index >= 4 else { return nil }
    var value: UInt32 = 0
    for _ in 0..<4 {
      guard let digit = Character(Unicode.Scalar(bytes[index])).hexDigitValue else { return nil }
      value = value << 4 | UInt32(digit)
      index += 1
    }
    return value
  }

  /// The text of a JSON number, and whether it is an integer (no fraction, no exponent).
  private mutating func numberText() -> (text: String, isInteger: Bool)? {
    skipSpace()
    let start = index
    func digits() -> Int {
      let from = index
      while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
      return index - from
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
    let integerStart = index
    guard digits() > 0 else { return nil }
    // JSON has no leading zeros.
    if bytes[integerStart] == 0x30, index - integerStart > 1 { return nil }
    var isInteger = true
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      isInteger = false
      guard digits() > 0 else { return nil }
    }
    if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
      index += 1
      isInteger = false
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
      {
        index += 1
      }
      guard digits() > 0 else { return nil }
    }
    return (
      String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self),
      isInteger
    )
  }

  /// An integer that fits an `Int` (no fraction, no exponent).
  package mutating func integer() -> Int? {
    guard let number = numberText(), number.isInteger else { return nil }
    return Int(number.text)
  }

  /// A finite number.
  package mutating func double() -> Double? {
    guard let number = numberText(), let value = Double(number.text), value.isFinite else {
      return nil
    }
    return value
  }

  package mutating func bool() -> Bool? {
    if take(word: "true") { return true }
    if take(word: "false") { return false }
    return nil
  }
}

// MARK: - What the messages' readers share

extension JSONScanner {
  /// Reads a member's value into `slot` with `read`; false when it is not of its type (the
  /// shape readers then give up: not this message's shape).
  mutating func fill<Value>(_ slot: inout Value?, _ read: (inout JSONScanner) -> Value?) -> Bool {
    slot = read(&self)
    return slot != nil
  }

  /// `null` (`.some(nil)`) or what `read` reads (`.some(value)`); nil when it is neither.
  package mutating func nullOr<Value>(_ read: (inout JSONScanner) -> Value?) -> Value?? {
    if take(word: "null") { return .some(nil) }
    return read(&self).map { .some($0) }
  }

  /// A string; the last statement's SQL again when its bytes are the same, without reading
  /// it twice.
  mutating func repeatableString() -> String? {
    skipSpace()
    let start = index
    if let last = lastSQL, start + last.raw.count <= bytes.count,
      memcmp(bytes.baseAddress! + start, bytes.baseAddress! + last.raw.lowerBound, last.raw.count)
        == 0
    {
      // The same quoted token: it ends where the last one ended.
      index += last.raw.count
      return last.text
    }
    guard let text = string() else { return nil }
    lastSQL = (start..<index, text)
    return text
  }

  /// Whether the next byte (after white space) is `byte`, without reading it.
  package mutating func peek(_ byte: UInt8) -> Bool {
    skipSpace()
    return index < bytes.count && bytes[index] == byte
  }

  /// Reads an object, handing each member's key to `member`, which reads its value (false:
  /// not of the shape wanted); false for anything else.
  package mutating func object(_ member: (inout JSONScanner, String?) -> Bool) -> Bool {
    guard take(UInt8(ascii: "{")) else { return false }
    var count = 0
    while true {
      switch self.member(after: count) {
      case .bad: return false
      case .end: return true
      case .next(let key):
        count += 1
        guard member(&self, key) else { return false }
      }
    }
  }

  /// An array of what `element` reads, each one; nil when one fails.
  package mutating func list<Element>(_ element: (inout JSONScanner) -> Element?) -> [Element]? {
    guard take(UInt8(ascii: "[")) else { return nil }
    var elements: [Element] = []
    while true {
      switch self.element(after: elements.count) {
      case .bad: return nil
      case .end: return elements
      case .next:
        guard let next = element(&self) else { return nil }
        elements.append(next)
      }
    }
  }

  /// Reads over one JSON value.
  package mutating func skipValue(depth: Int) -> Bool {
    guard depth < 64 else { return false }
    skipSpace()
    guard index < bytes.count else { return false }
    switch bytes[index] {
    case UInt8(ascii: "\""): return string() != nil
    case UInt8(ascii: "t"), UInt8(ascii: "f"): return bool() != nil
    case UInt8(ascii: "n"): return take(word: "null")
    case UInt8(ascii: "["):
      index += 1
      var count = 0
      while true {
        switch element(after: count) {
        case .bad: return false
        case .end: return true
        case .next:
          guard skipValue(depth: depth + 1) else { return false }
          count += 1
        }
      }
    case UInt8(ascii: "{"):
      var keys = SeenKeys()
      return object { scanner, key in
        guard let key, keys.insert(key) else { return false }
        return scanner.skipValue(depth: depth + 1)
      }
    default: return double() != nil
    }
  }
}

/// The keys of one object read so far, to refuse a key given twice. Most objects of a
/// message have a handful of keys, and this runs for each: the first 16 are searched in an
/// array (a set's hashing and growing cost more), any more (a commit's rows) in a set.
struct SeenKeys {
  private var first: [String] = []
  private var more: Set<String> = []

  var count: Int { first.count + more.count }

  /// Adds `key`; false when it was there already.
  mutating func insert(_ key: String) -> Bool {
    if first.contains(key) { return false }
    guard first.count < 16 else { return more.insert(key).inserted }
    if first.isEmpty { first.reserveCapacity(8) }
    first.append(key)
    return true
  }
}
