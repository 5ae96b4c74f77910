import Foundation
import HearthData
import Synchronization

@Table
struct LatencyItem: Sendable {
  let id: Int
  var title: String
  var value: Int
}

/// In one process: the time from a COMMIT to a `@FetchAll` of 100 rows holding the new
/// value (delivered on the main actor, the default), against the time of simply fetching
/// the same 100 rows right after the commit — the floor any observation pays.
let fetchAllLatencyBenchmark = Benchmark(
  name: "fetchall-latency",
  summary: "commit → @FetchAll (100 rows, main actor) holds the new value vs a direct refetch"
) { options in
  let commits = options.value(options.writes, quick: 100, full: 1_000)
  let directory = try BenchmarkDirectory()
  let pool = try DatabasePool(path: directory.path("latency.sqlite"))
  try await pool.write { db in
    try db.execute(
      sql:
        "CREATE TABLE latencyItems (id INTEGER PRIMARY KEY, title TEXT NOT NULL, value INTEGER NOT NULL)"
    )
    for index in 1...100 {
      try db.execute(
        sql: "INSERT INTO latencyItems (id, title, value) VALUES (?, ?, 0)",
        arguments: [index, "Item \(index)"])
    }
  }
  // The moment of each COMMIT, taken by a commit observer right after it (on the writer's
  // queue), not when `write` returns to this task, which may be later than the delivery.
  let lastCommit = Atomic<UInt64>(0)
  let commitClock = pool.observeCommits { _ in
    lastCommit.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
  }
  defer { commitClock.cancel() }
  let items = FetchAll(LatencyItem.order { $0.id }, database: pool)
  var updates = items.values.makeAsyncIterator()
  _ = await updates.next()  // the current value

  var observed: [Double] = []
  var direct: [Double] = []
  for round in 1...commits {
    try await pool.write { db in
      try LatencyItem.find(1).update { $0.value = #bind(round) }.execute(db)
    }
    while let value = await updates.next(), value.first?.value != round {}
    let committed = lastCommit.load(ordering: .relaxed)
    observed.append(Double(DispatchTime.now().uptimeNanoseconds - committed) / 1_000)

    let start = DispatchTime.now().uptimeNanoseconds
    let rows = try await pool.read { db in try LatencyItem.order { $0.id }.fetchAll(db) }
    direct.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000)
    guard rows.first?.value == round else { throw BenchmarkError("fetchall-latency: stale read") }
  }
  return latencyFigures("fetchall-latency", ours: observed, baseline: direct)
}
