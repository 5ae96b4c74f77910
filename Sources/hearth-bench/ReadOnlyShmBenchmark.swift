import Foundation
import HearthData
import HearthPlugin
import HearthSQLite
import Synchronization

/// A plugin's reads in its unit's sandbox, where the `-shm` is read-only (SQLite then reads
/// the WAL index without writing it; `readonly_shm=1` opens it so without a sandbox),
/// against the same reads with a writable `-shm` — both while a writer commits through the
/// hub all along.
let readOnlyShmBenchmark = Benchmark(
  name: "readonly-shm",
  summary: "plugin reads on a read-only -shm (its unit's sandbox) vs a writable one, under writes"
) { options in
  let reads = options.value(options.writes, quick: 2_000, full: 20_000)
  let directory = try BenchmarkDirectory()
  let hub = try BenchHub(directory: directory)
  defer { hub.stop() }
  let writer = try HubDatabase(
    PluginRegistration(
      name: "bench-shm", version: "1", tables: ["shm_rows"],
      migrations: [.init(id: "1", sql: "CREATE TABLE shm_rows (id INTEGER PRIMARY KEY, v TEXT)")]
    ), paths: hub.paths)
  try writer.write { db in
    for index in 0..<1_000 {
      try db.execute(sql: "INSERT INTO shm_rows (v) VALUES (?)", arguments: ["row \(index)"])
    }
  }
  var configuration = Configuration()
  configuration.readonly = true
  let writable = try DatabaseQueue(path: hub.paths.databasePath, configuration: configuration)
  let readOnly = try DatabaseQueue(
    path: "file:\(hub.paths.databasePath)?readonly_shm=1", configuration: configuration)
  // Commits all along, a few hundred a second, so the WAL index keeps changing under the
  // readers.
  let writing = Atomic<Bool>(true)
  let finished = DispatchSemaphore(value: 0)
  Thread.detachNewThread {
    while writing.load(ordering: .relaxed) {
      try? writer.write { db in
        try db.execute(sql: "INSERT INTO shm_rows (v) VALUES ('more')")
      }
    }
    finished.signal()
  }
  defer {
    writing.store(false, ordering: .relaxed)
    finished.wait()
  }
  let query = "SELECT count(*) FROM shm_rows WHERE id > (SELECT max(id) FROM shm_rows) - 100"
  var times: (readOnly: [Double], writable: [Double]) = ([], [])
  // Alternating blocks, so that both sides see the same writes and machine load.
  for block in 0..<(reads / 500) {
    let order = block.isMultiple(of: 2) ? [true, false] : [false, true]
    for isReadOnly in order {
      let queue = isReadOnly ? readOnly : writable
      for _ in 0..<500 {
        let timing = try timed { try queue.read { try Int.fetchOne($0, sql: query) } }
        guard timing.value == 100 else {
          throw BenchmarkError("a read saw \(timing.value ?? 0) rows, not 100")
        }
        if isReadOnly {
          times.readOnly.append(timing.milliseconds * 1000)
        } else {
          times.writable.append(timing.milliseconds * 1000)
        }
      }
    }
  }
  return latencyFigures("readonly-shm", ours: times.readOnly, baseline: times.writable)
}
