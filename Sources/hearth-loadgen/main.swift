// hearth-loadgen: a small plugin process that writes through the hub and watches other
// plugins' writes. The hub's process tests and benchmarks drive it.
//
//   hearth-loadgen --plugin NAME [--count N] [--pair] [--watch PLUGIN --expect M]
//                  [--try-write PLUGIN] [--hold SECONDS] [--slow-migration N]
//                  [--timings] [--direct] [--database PATH] [--runtime-dir DIR]
//
// It owns the table `<NAME>_rows (id INTEGER PRIMARY KEY, key TEXT NOT NULL)` and inserts
// rows keyed `<NAME>-<i>`, printing `ack <i> <seq>` after each acknowledged write (so a test
// can check that every acknowledged write is present exactly once). `--watch` keeps a
// @FetchAll on another plugin's rows and prints `saw <count>` as it changes until it reaches
// M; `--try-write` tries to write another plugin's table and prints `refused <code>`.
// `--timings` prints `ready` once it can write, waits for a line on stdin (so that every
// writer of a benchmark starts at once), then, instead of acks, `timings <p50 µs> <p99 µs>
// <total ms> <max µs> <peak RSS kB>` and `latencies <µs>…` (every write's, in order);
// `--warmup N` first writes N transactions untimed (rows `<NAME>-warm-<i>`), before
// `ready`, so that what is timed runs on a log and caches at their working size;
// `--direct` writes the database file itself
// (busy_timeout 60 s), without the hub: the benchmark's baseline; `--raw` sends transactions
// encoded before the start over a socket of its own (the hub's ceiling, see RawWrites.swift).
//
// `--seconds S` writes for S seconds instead of `--count` writes and prints `wrote <N>` at
// the end (no acks); with `--rate R`, R writes a second at most; with `--latencies`, then
// `timings …` and `latencies …` as with `--timings` (without waiting for a go). `--probe S`, for the
// soak: for S seconds, one write every 50 ms while a live query (`@Fetch` of the newest
// rows of its own table) follows the bus; after each, `probe <ms since start> <µs from the
// write's start to the live query holding its row>`.
//
// For the fault suite: `--pair` makes each transaction insert two rows (`<NAME>-<i>` and
// `<NAME>-<i>-b`), so that half of a transaction would show; `--hold S` first runs one
// transaction that inserts `<NAME>-held`, prints `holding`, and keeps the hub's transaction
// open for S seconds before it commits (`ack held <seq>`); `--slow-migration N` adds a
// migration that counts to N before it inserts `<NAME>-migrated` (a registration that takes
// a while).
import Foundation
import HearthData
import HearthPlugin
import HearthTestbed
import HearthWire

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("hearth-loadgen: \(message)\n".utf8))
  exit(1)
}

func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

var plugin = ""
var count = 0
var watch: String?
var expect = 0
var tryWrite: String?
var timings = false
var latenciesWanted = false
var direct = false
var raw = false
var pair = false
var hold: Double?
var slowMigration: Int?
var seconds: Double?
var probe: Double?
var rate: Double?
var warmup = 0
var paths = HubPaths.fromEnvironment()
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
  let argument = arguments.removeFirst()
  if argument == "--timings" {
    timings = true
    continue
  }
  if argument == "--latencies" {
    latenciesWanted = true
    continue
  }
  if argument == "--direct" {
    direct = true
    continue
  }
  if argument == "--raw" {
    raw = true
    continue
  }
  if argument == "--pair" {
    pair = true
    continue
  }
  guard let value = arguments.first else { fail("\(argument) needs a value") }
  arguments.removeFirst()
  switch argument {
  case "--plugin": plugin = value
  case "--count": count = Int(value) ?? 0
  case "--watch": watch = value
  case "--expect": expect = Int(value) ?? 0
  case "--try-write": tryWrite = value
  case "--hold": hold = Double(value)
  case "--slow-migration": slowMigration = Int(value)
  case "--seconds": seconds = Double(value)
  case "--probe": probe = Double(value)
  case "--rate": rate = Double(value)
  case "--warmup": warmup = Int(value) ?? 0
  case "--database": paths.databasePath = value
  case "--runtime-dir": paths.runtimeDirectory = value
  default: fail("unknown argument \(argument)")
  }
}
guard !plugin.isEmpty else { fail("--plugin is required") }

let table = "\(plugin)_rows"

/// Per-write latencies in microseconds, and the whole run.
func report(_ latencies: [Double], totalMilliseconds: Double) {
  let sorted = latencies.sorted()
  func at(_ q: Double) -> Double {
    sorted.isEmpty ? 0 : sorted[Int((Double(sorted.count - 1) * q).rounded())]
  }
  say(
    String(
      format: "timings %.1f %.1f %.1f %.1f %d", at(0.5), at(0.99), totalMilliseconds,
      sorted.last ?? 0, (try? residentKilobytes(getpid(), peak: true)) ?? 0))
  say("latencies " + latencies.map { String(Int($0.rounded())) }.joined(separator: " "))
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Sleeps until `deadline` (on `now()`'s clock), if it is still ahead.
func pause(until deadline: UInt64) {
  let current = now()
  if current < deadline { usleep(UInt32(min((deadline - current) / 1_000, 1_000_000))) }
}

/// `--warmup`: that many transactions, untimed, through `writer`.
@MainActor func warmUp(_ writer: some DatabaseWriter) throws {
  for index in 0..<warmup {
    try writer.write { db in
      try db.execute(
        sql: "INSERT INTO \"\(table)\" (key) VALUES (?)", arguments: ["\(plugin)-warm-\(index)"])
    }
  }
}

/// With `--timings`: says it is ready and waits for the benchmark's go.
@MainActor func awaitStart() {
  guard timings else { return }
  say("ready")
  _ = readLine()
}

if direct {
  var configuration = Configuration()
  // A direct writer that loses SQLite's lock again and again can wait seconds (the
  // benchmark reports its slowest write); the baseline waits rather than fails.
  configuration.busyTimeout = 60
  do {
    let queue = try DatabaseQueue(path: paths.databasePath, configuration: configuration)
    try queue.writeWithoutTransaction { db in
      try db.execute(
        sql: "CREATE TABLE IF NOT EXISTS \"\(table)\" (id INTEGER PRIMARY KEY, key TEXT NOT NULL)")
    }
    try warmUp(queue)
    var latencies: [Double] = []
    awaitStart()
    let start = now()
    for index in 0..<count {
      let before = now()
      try queue.write { db in
        try db.execute(
          sql: "INSERT INTO \"\(table)\" (key) VALUES (?)", arguments: ["\(plugin)-\(index)"])
      }
      latencies.append(Double(now() - before) / 1_000)
    }
    report(latencies, totalMilliseconds: Double(now() - start) / 1e6)
  } catch {
    fail("direct write failed: \(error)")
  }
  exit(0)
}
var migrations: [RegisterRequest.Migration] = [
  .init(id: "1", sql: "CREATE TABLE \"\(table)\" (id INTEGER PRIMARY KEY, key TEXT NOT NULL)")
]
if let slowMigration {
  migrations.append(
    .init(
      id: "2",
      sql: """
        INSERT INTO "\(table)" (key)
        SELECT '\(plugin)-migrated' FROM (
          WITH RECURSIVE counter(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM counter WHERE i < \(slowMigration))
          SELECT count(*) FROM counter)
        """))
}
let registration = PluginRegistration(
  name: plugin, version: "1.0", tables: [table], migrations: migrations)
let database: HubDatabase
do {
  // A loader rides out hub restarts (the fault suite kills the hub under it).
  database = try HubDatabase(
    registration, paths: paths, requestTimeout: .seconds(2), maximumAttempts: 200,
    hubWait: .seconds(120))
  try database.prepare()
} catch {
  fail("cannot register: \(error)")
}
say("registered \(plugin)")

if let hold {
  do {
    try database.write { db in
      // A statement that needs its rows back opens the transaction at the hub now.
      _ = try Int.fetchOne(
        db, sql: "INSERT INTO \"\(table)\" (key) VALUES (?) RETURNING id",
        arguments: ["\(plugin)-held"])
      say("holding")
      Thread.sleep(forTimeInterval: hold)
    }
    say("ack held \(database.lastCommittedSequence)")
  } catch {
    fail("the held transaction failed: \(error)")
  }
}

/// The newest rows of a table, noting when each newest id was first seen.
struct NewestRows: FetchKeyRequest {
  let table: String
  let seen: Recorder

  func fetch(_ db: Database) throws -> [Int64] {
    let ids = try Int64.fetchAll(
      db, sql: "SELECT id FROM \"\(table)\" ORDER BY id DESC LIMIT 10")
    if let newest = ids.first { seen.record(newest) }
    return ids
  }

  static func == (lhs: Self, rhs: Self) -> Bool { lhs.table == rhs.table }
  func hash(into hasher: inout Hasher) { hasher.combine(table) }
}

if let probe {
  let seen = Recorder()
  let live = Fetch(
    wrappedValue: [], NewestRows(table: table, seen: seen), database: database,
    scheduler: .immediate)
  let start = now()
  var index = 0
  while Double(now() - start) / 1e9 < probe {
    let before = now()
    do {
      let id = try database.write { db in
        try Int64.fetchOne(
          db, sql: "INSERT INTO \"\(table)\" (key) VALUES (?) RETURNING id",
          arguments: ["\(plugin)-probe-\(index)"])
      }
      guard let id else { fail("probe \(index): no id returned") }
      while seen.time(of: id) == nil {
        guard now() - before < 10_000_000_000 else { fail("probe \(index): not seen in 10 s") }
        usleep(20)
      }
      say(
        String(
          format: "probe %.0f %.1f", Double(before - start) / 1e6,
          Double(seen.time(of: id)! - before) / 1_000))
    } catch {
      fail("probe \(index) failed: \(error)")
    }
    index += 1
    let next = start + UInt64(index) * 50_000_000
    pause(until: next)
  }
  withExtendedLifetime(live) {}
  exit(0)
}

do {
  try warmUp(database)
} catch {
  fail("warm-up failed: \(error)")
}

if raw {
  do {
    var start = now()
    let latencies = try rawWrites(
      count: count, plugin: plugin, table: table, transport: database.transport
    ) {
      awaitStart()
      start = now()
    }
    report(latencies, totalMilliseconds: Double(now() - start) / 1e6)
  } catch {
    fail("raw writes failed: \(error)")
  }
  exit(0)
}

var latencies: [Double] = []
awaitStart()
let writesStart = now()
if let seconds {
  var written = 0
  let deadline = writesStart + UInt64(seconds * 1e9)
  while now() < deadline {
    do {
      let before = now()
      try database.write { db in
        try db.execute(
          sql: "INSERT INTO \"\(table)\" (key) VALUES (?)", arguments: ["\(plugin)-\(written)"])
      }
      if latenciesWanted { latencies.append(Double(now() - before) / 1_000) }
      written += 1
    } catch {
      fail("write \(written) failed: \(error)")
    }
    if let rate, rate > 0 {
      let next = writesStart + UInt64(Double(written) / rate * 1e9)
      pause(until: next)
    }
  }
  say("wrote \(written)")
  if latenciesWanted { report(latencies, totalMilliseconds: Double(now() - writesStart) / 1e6) }
  exit(0)
}
for index in 0..<count {
  do {
    let before = now()
    try database.write { db in
      try db.execute(
        sql: "INSERT INTO \"\(table)\" (key) VALUES (?)", arguments: ["\(plugin)-\(index)"])
      if pair {
        try db.execute(
          sql: "INSERT INTO \"\(table)\" (key) VALUES (?)", arguments: ["\(plugin)-\(index)-b"])
      }
    }
    if timings {
      latencies.append(Double(now() - before) / 1_000)
    } else {
      say("ack \(index) \(database.lastCommittedSequence)")
    }
  } catch {
    fail("write \(index) failed: \(error)")
  }
}
if timings { report(latencies, totalMilliseconds: Double(now() - writesStart) / 1e6) }

if let other = tryWrite {
  do {
    try database.write { db in
      try db.execute(sql: "INSERT INTO \"\(other)_rows\" (key) VALUES ('intruder')")
    }
    say("accepted")
  } catch let error as DatabaseError where error.hubCode != nil {
    say("refused \(error.hubCode!.rawValue)")
  } catch {
    say("refused \(error)")
  }
}

if let other = watch {
  let sql = "SELECT count(*) FROM \"\(other)_rows\""
  let rows = FetchOne(
    wrappedValue: 0, SQLQueryExpression(QueryFragment(raw: sql), as: Int.self), database: database,
    scheduler: .immediate)
  var last = -1
  let deadline = Date().addingTimeInterval(60)
  while Date() < deadline {
    let seen = rows.wrappedValue
    if seen != last {
      say("saw \(seen)")
      last = seen
    }
    if seen >= expect { exit(0) }
    Thread.sleep(forTimeInterval: 0.01)
  }
  fail("saw only \(last) of \(expect) rows of \(other) within 60 s")
}
exit(0)
