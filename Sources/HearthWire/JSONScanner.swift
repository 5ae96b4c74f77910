import Foundation
import HearthSQLite

/// A strict reader of JSON bytes for `TransactionCodec.decode`: each method reads one thing
/// or returns nil (or `.bad`), and then the whole message goes the general way.
struct JSONScanner {
  let bytes: UnsafeBufferPointer<UInt8>
  var index = 0

  init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

  enum Step {
    case next(String?)
    case end
    case bad
  }

  var atEnd: Bool {
    mutating get {
      skipSpace()
      return index == bytes.count
    }
  }

  mutating func skipSpace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0A, 0x0D: index += 1
      default: return
      }
    }
  }

  mutating func take(_ byte: UInt8) -> Bool {
    skipSpace()
    guard index < bytes.count, bytes[index] == byte else { return false }
    index += 1
    return true
  }

  mutating func take(word: String) -> Bool {
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
  mutating func member(after count: Int) -> Step {
    if take(UInt8(ascii: "}")) { return .end }
    if count > 0, !take(UInt8(ascii: ",")) { return .bad }
    guard let key = string(), take(UInt8(ascii: ":")) else { return .bad }
    return .next(key)
  }

  /// Whether an array whose `count` elements were read (after its `[`) has another.
  mutating func element(after count: Int) -> Step {
    if take(UInt8(ascii: "]")) { return .end }
    if count > 0, !take(UInt8(ascii: ",")) { return .bad }
    return .next(nil)
  }

  /// A string, escapes decoded; nil for a malformed one, invalid UTF-8, a control
  /// character or a lone surrogate.
  mutating func string() -> String? {
    guard take(UInt8(ascii: "\"")) else { return nil }
    let start = index
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        defer { index += 1 }
        return String(
          validating: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
      }
      if byte == UInt8(ascii: "\\") { break }
      if byte < 0x20 { return nil }
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
  mutating func integer() -> Int? {
    guard let number = numberText(), number.isInteger else { return nil }
    return Int(number.text)
  }

  /// A finite number.
  mutating func double() -> Double? {
    guard let number = numberText(), let value = Double(number.text), value.isFinite else {
      return nil
    }
    return value
  }

  mutating func bool() -> Bool? {
    if take(word: "true") { return true }
    if take(word: "false") { return false }
    return nil
  }
}

// MARK: - The transaction message's shape

extension JSONScanner {
  /// A whole `transaction` request object; nil unless every key is one of its own, given
  /// once, with a value of its type, and `type` is "transaction".
  mutating func transaction() -> TransactionRequest? {
    guard take(UInt8(ascii: "{")) else { return nil }
    var (v, type, id, plugin): (Int?, String?, String?, String?) = (nil, nil, nil, nil)
    var statements: [WireStatement]?
    var (part, end): (Int??, String??) = (nil, nil)
    var count = 0
    while true {
      switch member(after: count) {
      case .bad: return nil
      case .end:
        guard let v, type == "transaction", let id, let plugin, let statements else { return nil }
        var request = TransactionRequest(
          id: id, plugin: plugin, statements: statements, end: end ?? nil)
        request.v = v
        request.part = part ?? nil
        return request
      case .next(let key):
        count += 1
        switch key {
        case "v" where v == nil: v = integer()
        case "type" where type == nil: type = string()
        case "id" where id == nil: id = string()
        case "plugin" where plugin == nil: plugin = string()
        case "statements" where statements == nil: statements = list { $0.statement() }
        case "part" where part == nil:
          if take(word: "null") {
            part = .some(nil)
          } else if let value = integer() {
            part = .some(value)
          }
        case "end" where end == nil:
          if take(word: "null") {
            end = .some(nil)
          } else if let value = string() {
            end = .some(value)
          }
        default: return nil  // a key not of this message, or given twice
        }
        // A value of the wrong type left its variable unset.
        let unset =
          switch key {
          case "v": v == nil
          case "type": type == nil
          case "id": id == nil
          case "plugin": plugin == nil
          case "statements": statements == nil
          case "part": part == nil
          default: end == nil
          }
        if unset { return nil }
      }
    }
  }

  mutating func statement() -> WireStatement? {
    guard take(UInt8(ascii: "{")) else { return nil }
    var sql: String?
    var args: [WireValue]??
    var rows: Bool??
    var count = 0
    while true {
      switch member(after: count) {
      case .bad: return nil
      case .end:
        guard let sql else { return nil }
        return WireStatement(sql: sql, args: args ?? nil, rows: rows ?? nil)
      case .next(let key):
        count += 1
        switch key {
        case "sql" where sql == nil:
          guard let text = string() else { return nil }
          sql = text
        case "args" where args == nil:
          if take(word: "null") {
            args = .some(nil)
          } else {
            guard let values = list({ $0.value() }) else { return nil }
            args = values
          }
        case "rows" where rows == nil:
          if take(word: "null") {
            rows = .some(nil)
          } else {
            guard let flag = bool() else { return nil }
            rows = flag
          }
        default: return nil
        }
      }
    }
  }

  /// `null`, or an object of exactly one of `int` (a decimal string), `real` (a number, or
  /// "Infinity" / "-Infinity"), `text`, `blob` (base64).
  mutating func value() -> WireValue? {
    if take(word: "null") { return WireValue(.null) }
    guard take(UInt8(ascii: "{")), case .next(let key) = member(after: 0) else { return nil }
    let value: DatabaseValue?
    switch key {
    case "int": value = string().flatMap(Int64.init).map { DatabaseValue(storage: .integer($0)) }
    case "real":
      skipSpace()
      if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
        value =
          switch string() {
          case "Infinity": DatabaseValue(storage: .double(.infinity))
          case "-Infinity": DatabaseValue(storage: .double(-.infinity))
          default: nil
          }
      } else {
        value = double().map { DatabaseValue(storage: .double($0)) }
      }
    case "text": value = string().map { DatabaseValue(storage: .text($0)) }
    case "blob":
      value = string().flatMap { Data(base64Encoded: $0) }.map { DatabaseValue(storage: .blob($0)) }
    default: value = nil
    }
    guard let value, case .end = member(after: 1) else { return nil }
    return WireValue(value)
  }
}

// MARK: - The results reply's shape

extension JSONScanner {
  /// A whole `results` reply object; nil unless it has exactly its keys, each once.
  mutating func resultsReply() -> ResultsReply? {
    guard take(UInt8(ascii: "{")) else { return nil }
    var (v, type, id): (Int?, String?, String?) = (nil, nil, nil)
    var results: [WireResult]?
    var count = 0
    while true {
      switch member(after: count) {
      case .bad: return nil
      case .end:
        guard let v, type == "results", let id, let results else { return nil }
        var reply = ResultsReply(id: id, results: results)
        reply.v = v
        return reply
      case .next(let key):
        count += 1
        switch key {
        case "v" where v == nil: v = integer()
        case "type" where type == nil: type = string()
        case "id" where id == nil: id = string()
        case "results" where results == nil: results = list { $0.result() }
        default: return nil
        }
        let unset =
          switch key {
          case "v": v == nil
          case "type": type == nil
          case "id": id == nil
          default: results == nil
          }
        if unset { return nil }
      }
    }
  }

  /// One statement's result: exactly `changes`, `columns`, `lastRowID` and `rows`.
  mutating func result() -> WireResult? {
    guard take(UInt8(ascii: "{")) else { return nil }
    var (changes, lastRowID): (Int?, Int?) = (nil, nil)
    var columns: [String]?
    var rows: [[WireValue]]?
    var count = 0
    while true {
      switch member(after: count) {
      case .bad: return nil
      case .end:
        guard let changes, let columns, let lastRowID, let rows else { return nil }
        return WireResult(
          columns: columns, rows: rows, changes: changes, lastRowID: Int64(lastRowID))
      case .next(let key):
        count += 1
        switch key {
        case "changes" where changes == nil: changes = integer()
        case "lastRowID" where lastRowID == nil: lastRowID = integer()
        case "columns" where columns == nil: columns = list { $0.string() }
        case "rows" where rows == nil: rows = list { $0.list { $0.value() } }
        default: return nil
        }
        let unset =
          switch key {
          case "changes": changes == nil
          case "lastRowID": lastRowID == nil
          case "columns": columns == nil
          default: rows == nil
          }
        if unset { return nil }
      }
    }
  }

  /// An array of what `element` reads, each one; nil when one fails.
  mutating func list<Element>(_ element: (inout JSONScanner) -> Element?) -> [Element]? {
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
}
