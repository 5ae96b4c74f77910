import Foundation
import HearthSQLite

// The shapes `TransactionCodec` reads: the `transaction` request and the `results` reply,
// each key known and given once, each value of its type (else nil: the general decoder's
// turn).

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
}

// MARK: - The transaction message's shape

extension JSONScanner {
  /// A whole `transaction` request object; nil unless every key is one of its own, given
  /// once, with a value of its type, and `type` is "transaction".
  mutating func transaction() -> TransactionRequest? {
    guard take(UInt8(ascii: "{")) else { return nil }
    var (v, type, id, plugin): (Int?, String?, String?, String?) = (nil, nil, nil, nil)
    var statements: [WireStatement]?
    var (part, end, results): (Int??, String??, String??) = (nil, nil, nil)
    var count = 0
    while true {
      switch member(after: count) {
      case .bad: return nil
      case .end:
        guard let v, type == "transaction", let id, let plugin, let statements else { return nil }
        var request = TransactionRequest(
          id: id, plugin: plugin, statements: statements, end: end ?? nil,
          results: results ?? nil)
        request.v = v
        request.part = part ?? nil
        return request
      case .next(let key):
        count += 1
        let filled =
          switch key {
          case "v" where v == nil: fill(&v) { $0.integer() }
          case "type" where type == nil: fill(&type) { $0.string() }
          case "id" where id == nil: fill(&id) { $0.string() }
          case "plugin" where plugin == nil: fill(&plugin) { $0.string() }
          case "statements" where statements == nil:
            fill(&statements) { $0.list { $0.statement() } }
          case "part" where part == nil: fill(&part) { $0.nullOr { $0.integer() } }
          case "end" where end == nil: fill(&end) { $0.nullOr { $0.string() } }
          case "results" where results == nil: fill(&results) { $0.nullOr { $0.string() } }
          default: false  // a key not of this message, or given twice
          }
        if !filled { return nil }
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
        let filled =
          switch key {
          case "sql" where sql == nil: fill(&sql) { $0.repeatableString() }
          case "args" where args == nil: fill(&args) { $0.nullOr { $0.list { $0.value() } } }
          case "rows" where rows == nil: fill(&rows) { $0.nullOr { $0.bool() } }
          default: false
          }
        if !filled { return nil }
      }
    }
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

  /// `null`, or an object of exactly one of `int` (a decimal string), `real` (a number, or
  /// "Infinity" / "-Infinity"), `text`, `blob` (base64).
  package mutating func value() -> WireValue? {
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
        let filled =
          switch key {
          case "v" where v == nil: fill(&v) { $0.integer() }
          case "type" where type == nil: fill(&type) { $0.string() }
          case "id" where id == nil: fill(&id) { $0.string() }
          case "results" where results == nil: fill(&results) { $0.list { $0.result() } }
          default: false
          }
        if !filled { return nil }
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
        let filled =
          switch key {
          case "changes" where changes == nil: fill(&changes) { $0.integer() }
          case "lastRowID" where lastRowID == nil: fill(&lastRowID) { $0.integer() }
          case "columns" where columns == nil: fill(&columns) { $0.list { $0.string() } }
          case "rows" where rows == nil: fill(&rows) { $0.list { $0.list { $0.value() } } }
          default: false
          }
        if !filled { return nil }
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
}

// MARK: - Any message's envelope

extension JSONScanner {
  /// The `v`, `type` and `id` of any message object, every other member read over (its
  /// JSON checked, not kept); nil for anything unusual (a key twice, a number past a
  /// Double, nesting past 64 levels).
  mutating func envelope() -> WireEnvelope? {
    guard take(UInt8(ascii: "{")) else { return nil }
    var (v, type, id): (Int?, String?, String??) = (nil, nil, nil)
    var keys = SeenKeys()
    while true {
      switch member(after: keys.count) {
      case .bad: return nil
      case .end:
        guard let v, let type else { return nil }
        return WireEnvelope(v: v, type: type, id: id ?? nil)
      case .next(let key):
        guard let key, keys.insert(key) else { return nil }
        switch key {
        case "v": v = integer()
        case "type": type = string()
        case "id":
          if take(word: "null") {
            id = .some(nil)
          } else if let text = string() {
            id = .some(text)
          }
        default: guard skipValue(depth: 0) else { return nil }
        }
        if key == "v" && v == nil || key == "type" && type == nil || key == "id" && id == nil {
          return nil
        }
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
      index += 1
      var keys = SeenKeys()
      while true {
        switch member(after: keys.count) {
        case .bad: return false
        case .end: return true
        case .next(let key):
          guard let key, keys.insert(key) else { return false }
          guard skipValue(depth: depth + 1) else { return false }
        }
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
