import CSQLite
import Foundation
import HearthQuery

/// The generated `@Table` decoder reading the rows of the decode-rows benchmark: the same
/// eight columns, through `fetchAll`, against the same raw `sqlite3_step` loop.
@Table
struct BenchItem: Hashable {
  let id: Int64
  var count: Int
  var score: Double
  var title: String
  var notes: String?
  var isFlagged: Bool
  var priority: Int?
  var createdAt: Double
}

let decodeTableBenchmark = Benchmark(
  name: "decode-table",
  summary: "fetchAll of a @Table struct (8 mixed columns) vs a raw sqlite3_step loop"
) { options in
  let rowCount = options.value(options.rows, quick: 10_000, full: 100_000)
  let rounds = options.value(options.rounds, quick: 3, full: 21)
  let directory = try BenchmarkDirectory()
  let path = directory.path("decode-table.sqlite")
  let dbQueue = try DatabaseQueue(path: path)
  try dbQueue.write { db in
    try fillItems(db, table: "benchItems", rowCount: rowCount)
  }
  let raw = try RawConnection(path: path)
  let sql = BenchItem.all.query.sql

  let times = try dbQueue.read { db in
    try compare(
      rounds: rounds,
      ours: { try BenchItem.all.fetchAll(db) },
      baseline: { try rawDecode(connection: raw.handle, sql: sql) },
      check: { ours, baseline in
        guard ours.checksum == baseline.checksum else {
          throw BenchmarkError("decode-table: our rows and the baseline's differ")
        }
      })
  }
  return [
    Figure(
      bench: "decode-table-\(rowCount)", ours: times.ours, baseline: times.baseline, unit: "ms")
  ]
}

/// Creates `table` with the benchmark's eight columns and `rowCount` rows.
func fillItems(_ db: Database, table: String, rowCount: Int) throws {
  try db.execute(
    sql: """
      CREATE TABLE \(table) (
        id INTEGER PRIMARY KEY, count INTEGER NOT NULL, score REAL NOT NULL,
        title TEXT NOT NULL, notes TEXT, isFlagged INTEGER NOT NULL, priority INTEGER,
        createdAt REAL NOT NULL
      )
      """)
  let insert = try db.makeStatement(
    sql:
      "INSERT INTO \(table) (count, score, title, notes, isFlagged, priority, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?)"
  )
  for index in 0..<rowCount {
    try insert.execute(arguments: [
      index * 7, Double(index) / 3, "Item number \(index)",
      index.isMultiple(of: 2) ? "Some notes about item \(index)" : nil,
      index.isMultiple(of: 3), index.isMultiple(of: 4) ? nil : index % 3,
      1_700_000_000 + Double(index),
    ])
  }
}
