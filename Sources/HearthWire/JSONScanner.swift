import Foundation
import HearthSQLite

/// A strict reader of JSON bytes for `TransactionCodec.decode`: each method reads one thing
/// or returns nil (or `.bad`), and then the whole message goes the general way.
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
