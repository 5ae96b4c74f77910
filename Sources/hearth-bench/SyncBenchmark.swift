import Foundation
import HearthData
import HearthHub
import HearthPlugin
import HearthPostgres
import HearthTestbed
import HearthWire

@Table
struct SyncItem: Sendable {
  let id: String
  var title: String
  var value: Int
}

let syncBenchPlugin = PluginRegistration(
  name: "bench", version: "1", tables: ["syncItems"],
  migrations: [
    .init(
      id: "1",
      sql: """
        CREATE TABLE syncItems (id TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid()),
          title TEXT NOT NULL DEFAULT '', value INTEGER NOT NULL DEFAULT 0)
        """)
  ])

/// A hub of person `role` syncing with `server`, and the bench plugin on it, its table
/// declared synced.
struct SyncBenchHub {
  let directory: BenchmarkDirectory
  let hub: BenchHub
  let plugin: HubDatabase

  init(_ server: PostgresServer, role: String = "hearth") throws {
    directory = try BenchmarkDirectory()
    hub = try BenchHub(
      directory: directory, configure: { $0.syncServer = server.conninfo(user: role) })
    plugin = try HubDatabase(syncBenchPlugin, paths: hub.paths)
    try plugin.sync(tables: ["syncItems"])
  }

  func count() throws -> Int {
    try plugin.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM syncItems") ?? 0 }
  }

  /// Waits until the hub has pushed everything and holds `rows` rows.
  func wait(rows: Int, timeout: Duration = .seconds(600)) throws {
    let deadline = ContinuousClock.now + timeout
    while try plugin.sync().pending > 0 || count() < rows {
      guard ContinuousClock.now < deadline else { throw BenchmarkError("sync: no convergence") }
      Thread.sleep(forTimeInterval: 0.002)
    }
  }
}

/// Sync through a real PostgreSQL server (started here, on a unix socket): a commit on hub A
/// seen by a `@FetchAll` on hub B, against the same `@FetchAll` on A itself; a first sync of
/// 10,000 and 100,000 rows to a new hub, and their push, against writing the same rows into
/// a local database in one transaction; bytes per row on the server against the local file.
let syncBenchmark = Benchmark(
  name: "sync",
  summary:
    "commit on A → @FetchAll on B vs on A; first sync and push of 10k/100k rows; share accept; "
    + "a 20 MB file pushed and pulled; with the server's fsync on, then off (-fsync-off)"
) { options in
  var figures: [Figure] = []
  // A real server syncs its commits to disk: the figures without a suffix are those. The
  // same again with fsync off show what the disk costs.
  for fsync in [true, false] {
    let postgres = try PostgresServer(fsync: fsync)
    defer { postgres.stop() }
    var run = try await syncLatencyFigures(
      postgres, rounds: options.value(options.writes, quick: 50, full: 500))
    for rows in options.quick ? [1_000] : [10_000, 100_000] {
      run += try initialSyncFigures(postgres, rows: rows)
    }
    run += try await sharingFigures(postgres, rows: options.quick ? 100 : 1_000)
    figures += run.map { figure in
      var figure = figure
      if !fsync { figure.bench += "-fsync-off" }
      return figure
    }
  }
  return figures
}

private func syncLatencyFigures(_ postgres: PostgresServer, rounds: Int) async throws -> [Figure] {
  let a = try SyncBenchHub(postgres)
  let b = try SyncBenchHub(postgres)
  defer {
    a.hub.stop()
    b.hub.stop()
  }
  try await a.plugin.write { db in
    try db.execute(sql: "INSERT INTO syncItems (id) VALUES ('probe')")
  }
  try b.wait(rows: 1)
  let query = SyncItem.where { $0.id.eq("probe") }
  // Kept for the whole run: an observation ends with its `FetchAll`.
  let onHubA = FetchAll(query, database: a.plugin)
  let onHubB = FetchAll(query, database: b.plugin)
  defer { withExtendedLifetime((onHubA, onHubB)) {} }
  var local = onHubA.values.makeAsyncIterator()
  var remote = onHubB.values.makeAsyncIterator()
  _ = await local.next()
  _ = await remote.next()
  var onA: [Double] = []
  var onB: [Double] = []
  for round in 1...rounds {
    try await a.plugin.write { db in
      try db.execute(sql: "UPDATE syncItems SET value = ? WHERE id = 'probe'", arguments: [round])
    }
    let committed = DispatchTime.now().uptimeNanoseconds
    while let items = await local.next(), items.first?.value != round {}
    onA.append(Double(DispatchTime.now().uptimeNanoseconds - committed) / 1_000)
    while let items = await remote.next(), items.first?.value != round {}
    onB.append(Double(DispatchTime.now().uptimeNanoseconds - committed) / 1_000)
  }
  return latencyFigures("sync-fetchall", ours: onB, baseline: onA)
}

/// `rows` rows made on A, pushed; then a new hub C syncs them all. Push and first sync are
/// timed against one local transaction writing the same rows.
private func initialSyncFigures(_ postgres: PostgresServer, rows: Int) throws -> [Figure] {
  // A person of their own, so that the zone holds these rows and no others.
  let person = "rows\(rows)"
  _ = try postgres.executeOnce("CREATE ROLE \(person) LOGIN")
  let a = try SyncBenchHub(postgres, role: person)
  defer { a.hub.stop() }
  let insert = { (db: Database) in
    for index in 0..<rows {
      try db.execute(
        sql: "INSERT INTO syncItems (id, title, value) VALUES (?, ?, ?)",
        arguments: ["\(rows)-\(index)", "item \(index) of \(rows)", index])
    }
  }
  let write = try timed { try a.plugin.write(insert) }
  let push = try timed { try a.wait(rows: rows) }
  let directory = try BenchmarkDirectory()
  let local = try DatabaseQueue(path: directory.path("local.sqlite"))
  try local.write { db in
    try db.execute(sql: syncBenchPlugin.migrations[0].sql)
  }
  let baseline = try timed { try local.write(insert) }
  // From the new hub's start until it holds every row. Its stop comes after: the first
  // whole round of a hub goes on to compact the zone on the server (`hearth.collect`).
  var c: SyncBenchHub?
  defer { c?.hub.stop() }
  let first = try timed {
    c = try SyncBenchHub(postgres, role: person)
    try c?.wait(rows: rows)
  }
  let size = try postgres.executeOnce(
    "SELECT pg_total_relation_size('hearth.chunks') / (SELECT sum(size) FROM hearth.chunks)")
  let localBytes = try local.read { db in
    try Int.fetchOne(
      db,
      sql:
        "SELECT (SELECT page_count FROM pragma_page_count()) * (SELECT page_size FROM pragma_page_size())"
    ) ?? 0
  }
  let label = rows >= 1_000 ? "\(rows / 1_000)k" : "\(rows)"
  return [
    // The push alone: from the write's acknowledgement until nothing is pending.
    Figure(
      bench: "sync-push-\(label)", ours: Double(rows) / (push.milliseconds / 1_000),
      baseline: Double(rows) / (baseline.milliseconds / 1_000), unit: "rows/s"),
    // The write through the hub (its change capture included) and the push, end to end.
    Figure(
      bench: "sync-write-push-\(label)",
      ours: Double(rows) / ((write.milliseconds + push.milliseconds) / 1_000),
      baseline: Double(rows) / (baseline.milliseconds / 1_000), unit: "rows/s"),
    Figure(
      bench: "sync-first-\(label)", ours: first.milliseconds, baseline: baseline.milliseconds,
      unit: "ms"),
    Figure(
      bench: "sync-bytes-per-row-\(label)", ours: Double(size) ?? .nan,
      baseline: Double(localBytes) / Double(rows), unit: "bytes"),
  ]
}

extension PostgresServer {
  /// The first value of `sql`'s result, run on the server.
  func executeOnce(_ sql: String) throws -> String {
    try PostgresConnection(conninfo()).execute(sql).rows.first?.first.flatMap { $0 } ?? ""
  }
}
