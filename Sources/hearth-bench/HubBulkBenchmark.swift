import Foundation
import HearthData
import HearthPlugin
import HearthWire

let bulkPlugin = PluginRegistration(
  name: "bulk", version: "1", tables: ["bulkItems"],
  migrations: [
    .init(
      id: "1",
      sql: "CREATE TABLE bulkItems (id INTEGER PRIMARY KEY, title TEXT NOT NULL, value INTEGER)")
  ])

/// One `write` closure of N single-row inserts (an import, a first sync, a bulk update):
/// through the hub (buffered, sent in parts, one COMMIT) against the same closure on a
/// direct connection to a WAL database with the same durability (one transaction, one
/// fsync). The best of `--rounds` (3) each, a new table each round.
let hubBulkBenchmark = Benchmark(
  name: "hub-bulk",
  summary: "100,000 inserts in one write closure through the hub vs on a direct connection"
) { options in
  let rows = options.value(options.rows, quick: 10_000, full: 100_000)
  let rounds = options.value(options.rounds, quick: 1, full: 3)
  let directory = try BenchmarkDirectory()
  let hub = try BenchHub(directory: directory)
  defer { hub.stop() }
  let plugin = try HubDatabase(bulkPlugin, paths: hub.paths)
  var configuration = Configuration()
  configuration.journalMode = .wal
  let direct = try DatabaseQueue(
    path: directory.path("direct.sqlite"), configuration: configuration)
  try direct.write { db in
    try db.execute(
      sql: "CREATE TABLE bulkItems (id INTEGER PRIMARY KEY, title TEXT NOT NULL, value INTEGER)")
  }

  /// The closure both run: the rows of round `round`, ids of their own.
  func insert(round: Int, _ db: Database) throws {
    for index in 0..<rows {
      try db.execute(
        sql: "INSERT INTO bulkItems (id, title, value) VALUES (?, ?, ?)",
        arguments: [round * rows + index, "item \(index)", index])
    }
  }
  var ours = Double.infinity
  var baseline = Double.infinity
  for round in 0..<rounds {
    ours = min(ours, try timed { try plugin.write { try insert(round: round, $0) } }.milliseconds)
    baseline = min(
      baseline, try timed { try direct.write { try insert(round: round, $0) } }.milliseconds)
  }
  let counted = try plugin.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM bulkItems") }
  guard counted == rows * rounds else {
    throw BenchmarkError("hub-bulk: \(counted ?? 0) rows, not \(rows * rounds)")
  }
  return [
    Figure(
      bench: "hub-bulk-\(rows)-rows-per-second", ours: Double(rows) / ours * 1000,
      baseline: Double(rows) / baseline * 1000, unit: "rows/s")
  ]
}
