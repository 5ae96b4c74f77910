import Foundation
import HearthSQLite

// What the hub writes for every commit, and the writer reads back: the `commit` event (on the
// bus and in the feed) and the `committed` reply, without Foundation's generic coders (with
// `JSONEncoder`, a fifth of the hub's thread went to encoding these two under `perf`). The
// output is what `JSONEncoder` with sorted keys writes, byte for byte (a test holds it to
// that); the reader takes only the reply's exact shape and leaves anything else to
// `JSONDecoder`.

extension TransactionCodec {
  /// The `commit` event as JSON.
  public static func encode(_ event: CommitEvent) throws -> Data {
    var out: [UInt8] = []
    out.reserveCapacity(192 + event.tables.count * 96)
    out.append(contentsOf: #"{"at":"#.utf8)
    integer(event.at, &out)
    key("hub", &out)
    string(event.hub, &out)
    key("plugin", &out)
    string(event.plugin, &out)
    key("request", &out)
    string(event.request, &out)
    if let schemaChanged = event.schemaChanged {
      key("schemaChanged", &out)
      out.append(contentsOf: (schemaChanged ? "true" : "false").utf8)
    }
    key("seq", &out)
    integer(event.seq, &out)
    key("tables", &out)
    out.append(UInt8(ascii: "{"))
    for (index, name) in sortedKeys(event.tables).enumerated() {
      if index > 0 { out.append(UInt8(ascii: ",")) }
      string(name, &out)
      out.append(UInt8(ascii: ":"))
      try encode(event.tables[name]!, &out)  // a key of the dictionary, just listed
    }
    out.append(UInt8(ascii: "}"))
    return finish(&out, type: event.type, v: event.v)
  }

  /// The `committed` reply as JSON.
  public static func encode(_ reply: CommittedReply) throws -> Data {
    var out: [UInt8] = []
    out.reserveCapacity(128 + reply.results.count * 64)
    out.append(UInt8(ascii: "{"))
    if let duplicate = reply.duplicate {
      out.append(contentsOf: #""duplicate":"#.utf8)
      out.append(contentsOf: (duplicate ? "true," : "false,").utf8)
    }
    out.append(contentsOf: #""id":"#.utf8)
    string(reply.id, &out)
    key("results", &out)
    try encode(reply.results, &out)
    if let rolledBack = reply.rolledBack {
      key("rolledBack", &out)
      out.append(contentsOf: (rolledBack ? "true" : "false").utf8)
    }
    key("seq", &out)
    integer(reply.seq, &out)
    return finish(&out, type: reply.type, v: reply.v)
  }

  /// The `committed` reply `body` holds, when it is a well-formed one; else nil.
  public static func decodeCommitted(_ body: Data) -> CommittedReply? {
    body.withUnsafeBytes { raw in
      var scanner = JSONScanner(bytes: raw.bindMemory(to: UInt8.self))
      guard let reply = scanner.committedReply(), scanner.atEnd else { return nil }
      return reply
    }
  }

  /// One table's changes, with the keys `TableChanges.encode(to:)` writes, sorted.
  private static func encode(_ changes: TableChanges, _ out: inout [UInt8]) throws {
    out.append(contentsOf: #"{"deleted":"#.utf8)
    integers(changes.deletedRowIDs, &out)
    key("inserted", &out)
    integers(changes.insertedRowIDs, &out)
    if let primaryKeys = changes.primaryKeys, !primaryKeys.isEmpty {
      key("keys", &out)
      try byRowID(primaryKeys, &out) { values, out in
        out.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
          if index > 0 { out.append(UInt8(ascii: ",")) }
          try encode(value, &out)
        }
        out.append(UInt8(ascii: "]"))
      }
    }
    if let byRow = changes.updatedColumnsByRow, !byRow.isEmpty {
      key("rowColumns", &out)
      try byRowID(byRow, &out) { columns, out in strings(columns, &out) }
    }
    if !changes.rowIDsAreKnown {
      key("unknownRows", &out)
      out.append(contentsOf: "true".utf8)
    }
    key("updated", &out)
    integers(changes.updatedRowIDs, &out)
    if let columns = changes.updatedColumns, !columns.isEmpty {
      key("updatedColumns", &out)
      strings(columns, &out)
    }
    out.append(UInt8(ascii: "}"))
  }

  /// An object keyed by rowid in decimal, its keys in `JSONEncoder`'s sorted order.
  private static func byRowID<Value>(
    _ object: [Int64: Value], _ out: inout [UInt8],
    _ value: (Value, inout [UInt8]) throws -> Void
  ) throws {
    let keyed = Dictionary(uniqueKeysWithValues: object.map { (String($0.key), $0.value) })
    out.append(UInt8(ascii: "{"))
    for (index, name) in sortedKeys(keyed).enumerated() {
      if index > 0 { out.append(UInt8(ascii: ",")) }
      string(name, &out)
      out.append(UInt8(ascii: ":"))
      try value(keyed[name]!, &out)  // a key of the dictionary, just listed
    }
    out.append(UInt8(ascii: "}"))
  }

  /// A dictionary's keys in the order `JSONEncoder`'s `.sortedKeys` writes them: by their
  /// UTF-8 bytes.
  private static func sortedKeys(_ object: [String: some Any]) -> [String] {
    object.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
  }

  private static func integers(_ values: [Int64], _ out: inout [UInt8]) {
    list(values, &out) { value, out in integer(value, &out) }
  }

  private static func strings(_ values: [String], _ out: inout [UInt8]) {
    list(values, &out) { value, out in string(value, &out) }
  }

  /// A JSON array of `values`, each written by `write`.
  private static func list<Value>(
    _ values: [Value], _ out: inout [UInt8], _ write: (Value, inout [UInt8]) -> Void
  ) {
    out.append(UInt8(ascii: "["))
    for (index, value) in values.enumerated() {
      if index > 0 { out.append(UInt8(ascii: ",")) }
      write(value, &out)
    }
    out.append(UInt8(ascii: "]"))
  }
}

// MARK: - The committed reply's shape

extension JSONScanner {
  /// A whole `committed` reply object; nil unless it has only its keys, each once, each of
  /// its type (`duplicate` and `rolledBack` may be absent or null).
  mutating func committedReply() -> CommittedReply? {
    guard take(UInt8(ascii: "{")) else { return nil }
    var (v, seq, type, id): (Int?, Int?, String?, String?) = (nil, nil, nil, nil)
    var results: [WireResult]?
    var (duplicate, rolledBack): (Bool??, Bool??) = (nil, nil)
    var count = 0
    while true {
      switch member(after: count) {
      case .bad: return nil
      case .end:
        guard let v, type == "committed", let id, let seq, let results else { return nil }
        var reply = CommittedReply(
          id: id, seq: Int64(seq), results: results, duplicate: duplicate ?? nil,
          rolledBack: rolledBack ?? nil)
        reply.v = v
        return reply
      case .next(let key):
        count += 1
        let filled =
          switch key {
          case "v" where v == nil: fill(&v) { $0.integer() }
          case "seq" where seq == nil: fill(&seq) { $0.integer() }
          case "type" where type == nil: fill(&type) { $0.string() }
          case "id" where id == nil: fill(&id) { $0.string() }
          case "results" where results == nil: fill(&results) { $0.list { $0.result() } }
          case "duplicate" where duplicate == nil: fill(&duplicate) { $0.nullOr { $0.bool() } }
          case "rolledBack" where rolledBack == nil: fill(&rolledBack) { $0.nullOr { $0.bool() } }
          default: false
          }
        if !filled { return nil }
      }
    }
  }
}
