import Foundation
import HearthSQLite
import HearthTestbed
import HearthWire

/// Resident memory (RSS) of hearthd and of a plugin process, at rest and under load (4
/// writer processes), against a process that writes the same file directly with SQLite.
let memoryBenchmark = Benchmark(
  name: "memory",
  summary: "hearthd and plugin RSS at rest and under 4 writers vs a direct SQLite writer"
) { options in
  let perWriter = options.value(options.writes, quick: 200, full: 2_000)
  let directory = try BenchmarkDirectory()
  let hub = try HubProcess(directory: directory.url)
  _ = try hub.waitUntilReady()
  defer { _ = hub.terminate() }
  usleep(500_000)
  let hubPid = hub.process.processIdentifier
  let hubAtRest = try residentKilobytes(hubPid)
  let throughHub = try runLoadgens(
    (0..<4).map { index in
      [
        "--plugin", "m\(index)", "--count", String(perWriter), "--timings", "--database",
        hub.databasePath, "--runtime-dir", hub.runtimeDirectory,
      ]
    })
  // The hub's peak resident memory (VmHWM) since it started, this load included.
  let hubUnderLoad = try residentKilobytes(hubPid, peak: true)

  let directPath = directory.path("direct.sqlite")
  _ = try DatabasePool(path: directPath)
  let direct = try runLoadgens(
    (0..<4).map { index in
      [
        "--plugin", "m\(index)", "--count", String(perWriter), "--timings", "--direct",
        "--database", directPath,
      ]
    })
  func megabytes(_ kilobytes: Int) -> Double { Double(kilobytes) / 1024 }
  let directAtRest = megabytes(direct.timings.map(\.restKilobytes).max() ?? 0)
  let directPeak = megabytes(direct.timings.map(\.peakKilobytes).max() ?? 0)
  return [
    Figure(
      bench: "memory-hub-rest", ours: megabytes(hubAtRest), baseline: directAtRest, unit: "MiB"),
    Figure(
      bench: "memory-hub-load", ours: megabytes(hubUnderLoad), baseline: directPeak, unit: "MiB"),
    Figure(
      bench: "memory-plugin-rest",
      ours: megabytes(throughHub.timings.map(\.restKilobytes).max() ?? 0), baseline: directAtRest,
      unit: "MiB"),
    Figure(
      bench: "memory-plugin-load",
      ours: megabytes(throughHub.timings.map(\.peakKilobytes).max() ?? 0), baseline: directPeak,
      unit: "MiB"),
  ]
}

/// hearthd's start-up, from spawning the process to its READY=1 (sd_notify), on a database
/// of 1 GB (a plugin table of 1 KB rows and a feed of 100,000 entries), against the same on
/// a new, empty database. The big file was just written, so its pages are in the page cache.
let startupBenchmark = Benchmark(
  name: "startup",
  summary: "hearthd spawn → READY on a 1 GB database vs on an empty one"
) { options in
  let megabytes = options.value(options.databaseMegabytes, quick: 64, full: 1_024)
  let rounds = options.value(options.rounds, quick: 2, full: 5)
  let directory = try BenchmarkDirectory()
  let big = directory.url.appendingPathComponent("big")
  let empty = directory.url.appendingPathComponent("empty")
  for folder in [big, empty] {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  }
  // A hub makes the file (its format, its tables); then the data goes in directly.
  let maker = try HubProcess(directory: big)
  _ = try maker.waitUntilReady()
  guard maker.terminate() == 0 else { throw BenchmarkError("startup: the first hub failed") }
  let queue = try DatabaseQueue(path: maker.databasePath)
  try queue.write { db in
    try db.execute(
      sql: "CREATE TABLE bulk_rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL, at INTEGER)")
    try db.execute(sql: "CREATE INDEX bulk_rows_at ON bulk_rows (at)")
    try db.execute(
      sql: """
        INSERT INTO bulk_rows (body, at)
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
        SELECT hex(randomblob(500)), i FROM n
        """, arguments: [megabytes * 1_000])
    try db.execute(
      sql: """
        INSERT INTO \(HubTables.commits) (seq, at, plugin, request, event)
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
        SELECT i, CAST(strftime('%s', 'now') AS INTEGER) * 1000, 'bulk', 'r' || i,
          '{"hub":"old","seq":' || i || ',"tables":{"bulk_rows":{"inserted":[' || i || '],"updated":[],"deleted":[]}}}'
        FROM n
        """)
  }
  let size =
    try FileManager.default.attributesOfItem(atPath: maker.databasePath)[.size] as? Int ?? 0

  func startToReady(_ folder: URL) throws -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    let hub = try HubProcess(directory: folder)
    _ = try hub.waitUntilReady()
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    guard hub.terminate() == 0 else { throw BenchmarkError("startup: hearthd failed to stop") }
    return elapsed
  }
  var bigTimes: [Double] = []
  var emptyTimes: [Double] = []
  for _ in 0..<rounds {
    try? FileManager.default.removeItem(at: empty)
    try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
    emptyTimes.append(try startToReady(empty))
    bigTimes.append(try startToReady(big))
  }
  printError("startup: database of \(size / 1_000_000) MB, \(rounds) starts each")
  return [
    Figure(
      bench: "startup-\(megabytes)mb", ours: median(bigTimes), baseline: median(emptyTimes),
      unit: "ms")
  ]
}
