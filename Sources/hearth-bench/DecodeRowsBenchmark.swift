import CSQLite
import Foundation
import HearthSQLite

/// Decoding rows of eight mixed columns through `Row`, against a hand-written
/// `sqlite3_step` loop that builds the same Swift values.
let decodeRowsBenchmark = Benchmark(
  name: "decode-rows",
  summary: "decode rows of 8 mixed columns via Row vs a raw sqlite3_step loop"
) { options in
  let rowCount = options.value(options.rows, quick: 10_000, full: 100_000)
  let rounds = options.value(options.rounds, quick: 3, full: 21)
  let directory = try BenchmarkDirectory()
  let path = directory.path("decode.sqlite")
  let dbQueue = try DatabaseQueue(path: path)
  try dbQueue.write { db in try fillItems(db, table: "items", rowCount: rowCount) }
  let sql = "SELECT id, count, score, title, notes, isFlagged, priority, createdAt FROM items"

  let raw = try RawConnection(path: path)

  let times = try dbQueue.read { db in
    try compare(
      rounds: rounds,
      ours: {
        var items: [Item] = []
        let cursor = try Row.fetchCursor(db, sql: sql)
        while let row = try cursor.next() {
          items.append(
            Item(
              id: try row[0], count: try row[1], score: try row[2], title: try row[3],
              notes: try row[4], isFlagged: try row[5], priority: try row[6],
              createdAt: try row[7]))
        }
        return items
      },
      baseline: { try rawDecode(connection: raw.handle, sql: sql) },
      check: { ours, baseline in
        guard ours == baseline else {
          throw BenchmarkError("decode-rows: our rows and the baseline's differ")
        }
      })
  }
  return [
    Figure(bench: "decode-rows-\(rowCount)", ours: times.ours, baseline: times.baseline, unit: "ms")
  ]
}

struct Item: Hashable {
  var id: Int64
  var count: Int
  var score: Double
  var title: String
  var notes: String?
  var isFlagged: Bool
  var priority: Int?
  var createdAt: Double
}

extension Sequence where Element: Hashable {
  /// A value that depends on every field of every row, so no loop can skip work. Two row
  /// types with the same fields in the same order (`Item`, `BenchItem`) give the same one.
  var checksum: Int {
    var hash = Hasher()
    for element in self { hash.combine(element) }
    return hash.finalize()
  }
}

/// A read-only connection of SQLite's C API alone, for the baselines: opened without
/// SQLite's mutex, as ours are.
final class RawConnection {
  let handle: OpaquePointer

  init(path: String) throws {
    var handle: OpaquePointer?
    guard
      sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
      let handle
    else {
      sqlite3_close_v2(handle)
      throw BenchmarkError("cannot open \(path)")
    }
    self.handle = handle
  }

  deinit { sqlite3_close_v2(handle) }
}

struct BenchmarkError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// What a careful programmer writes by hand against the C API: one prepared statement,
/// columns read by index, NULL checked where the column allows it. Like our side, it opens
/// its connection without SQLite's mutex and does not know the row count in advance.
func rawDecode(connection: OpaquePointer, sql: String) throws -> [Item] {
  var items: [Item] = []
  var statement: OpaquePointer?
  guard sqlite3_prepare_v2(connection, sql, -1, &statement, nil) == SQLITE_OK else {
    throw BenchmarkError("prepare failed")
  }
  defer { sqlite3_finalize(statement) }
  func text(_ index: Int32) -> String {
    let bytes = sqlite3_column_text(statement, index)!
    let count = Int(sqlite3_column_bytes(statement, index))
    return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
  }
  while sqlite3_step(statement) == SQLITE_ROW {
    items.append(
      Item(
        id: sqlite3_column_int64(statement, 0),
        count: Int(sqlite3_column_int64(statement, 1)),
        score: sqlite3_column_double(statement, 2),
        title: text(3),
        notes: sqlite3_column_type(statement, 4) == SQLITE_NULL ? nil : text(4),
        isFlagged: sqlite3_column_int64(statement, 5) != 0,
        priority: sqlite3_column_type(statement, 6) == SQLITE_NULL
          ? nil : Int(sqlite3_column_int64(statement, 6)),
        createdAt: sqlite3_column_double(statement, 7)))
  }
  return items
}
