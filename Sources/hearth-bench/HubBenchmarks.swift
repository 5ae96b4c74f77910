import Foundation
import HearthData
import HearthHub
import HearthPlugin
import HearthTestbed
import HearthTransport
import HearthWire
import Synchronization

/// A hub on its own thread over a benchmark directory.
final class BenchHub: Sendable {
  let hub: Hub
  let paths: HubPaths
  private let finished = DispatchSemaphore(value: 0)

  init(
    directory: BenchmarkDirectory, didCommit: (@Sendable (Int64) -> Void)? = nil,
    configure: (inout HubConfiguration) -> Void = { _ in }
  ) throws {
    paths = HubPaths(
      databasePath: directory.path("hearth.sqlite"), runtimeDirectory: directory.path("run"))
    var configuration = HubConfiguration(paths: paths)
    configuration.didCommit = didCommit
    configure(&configuration)
    hub = try Hub(configuration: configuration)
    let ready = DispatchSemaphore(value: 0)
    let hub = self.hub
    let finished = self.finished
    Thread.detachNewThread {
      try? hub.run { ready.signal() }
      finished.signal()
    }
    ready.wait()
  }

  func stop() {
    hub.stop()
    finished.wait()
  }
}

/// What one `hearth-loadgen --timings` process measured: write latencies in microseconds
/// (every write's, and its quantiles), resident memory once ready (at rest) and at its
/// peak, in kilobytes.
struct LoadgenTimings {
  var p50: Double
  var p99: Double
  var max: Double
  var restKilobytes: Int
  var peakKilobytes: Int
  var latencies: [Double]
}

/// Runs `hearth-loadgen --timings` processes, starts their writes at once when all are
/// ready, and returns their `timings` lines and the wall time from the start. `environment`
/// is added to this process's.
func runLoadgens(_ argumentSets: [[String]], environment: [String: String] = [:]) throws -> (
  timings: [LoadgenTimings], seconds: Double
) {
  let executable = URL(fileURLWithPath: try Executables.path("hearth-loadgen"))
  let processes = try argumentSets.map { arguments -> (Process, output: Pipe, input: Pipe) in
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let output = Pipe()
    let input = Pipe()
    process.standardOutput = output
    process.standardInput = input
    try process.run()
    return (process, output, input)
  }
  var outputs = Array(repeating: "", count: processes.count)
  for (index, process) in processes.enumerated() {
    while !outputs[index].contains("ready\n") {
      let data = process.output.fileHandleForReading.availableData
      guard !data.isEmpty else {
        throw BenchmarkError("hearth-loadgen failed before it was ready: \(outputs[index])")
      }
      outputs[index] += String(decoding: data, as: UTF8.self)
    }
  }
  let atRest = try processes.map { try residentKilobytes($0.0.processIdentifier) }
  let start = DispatchTime.now().uptimeNanoseconds
  for process in processes { process.input.fileHandleForWriting.write(Data("go\n".utf8)) }
  var timings: [LoadgenTimings] = []
  for (index, (process, pipe, _)) in processes.enumerated() {
    let output =
      outputs[index]
      + String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0,
      let line = output.split(separator: "\n").first(where: { $0.hasPrefix("timings ") })
    else { throw BenchmarkError("hearth-loadgen failed: \(output.suffix(300))") }
    let parts = line.split(separator: " ").compactMap { Double($0) }
    let latencies =
      output.split(separator: "\n").first(where: { $0.hasPrefix("latencies ") })
      .map { $0.split(separator: " ").compactMap { Double($0) } } ?? []
    timings.append(
      LoadgenTimings(
        p50: parts[0], p99: parts[1], max: parts[3], restKilobytes: atRest[index],
        peakKilobytes: Int(parts[4]), latencies: latencies))
  }
  return (timings, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
}

/// Write throughput and latency: N writer processes through the hub, against N processes
/// writing the file directly with busy_timeout, and against one process doing all the
/// transactions on a DatabasePool; and the hub's own ceiling, the same N processes sending
/// frames encoded before the start; and the hub's writers on its ZeroMQ request socket
/// instead of its request stream. The hub, its ceiling, its ZeroMQ socket and the direct
/// writers run in turn
/// `--rounds` times (3), the order reversed every other round, so that a disk whose speed
/// drifts during the run (this VM's does, by half between runs minutes apart) favours
/// neither side; each round's figures go to standard error, the sums to the figures.
///
/// Each run is on a new database, and first writes `--warmup` transactions in all (2,500),
/// untimed, through the same path: what is timed then runs as a hub that has been up a
/// while does, on a log already at its working size. A new hub's log grows for its first
/// 32 MB (about 2,000 of these transactions), and a sync that grows the file also writes
/// its inode: a second wait for the disk. The direct writers' log (SQLite's 4 MB) is warm
/// after it too. `--warmup 0` times the first writes instead.
let hubWritesBenchmark = Benchmark(
  name: "hub-writes",
  summary: "N writer processes through the hub vs N writing the file directly vs one process"
) { options in
  let writerCounts = options.value(options.writers, quick: [1, 4], full: [1, 4, 16])
  let perWriter = options.value(options.writes, quick: 100, full: 500)
  let rounds = options.value(options.rounds, quick: 1, full: 3)
  let warmup = options.value(options.warmup, quick: 40, full: 2_500)
  let idealSeconds: Double = options.quick ? 1 : 3
  let ideal = try IdealHub()
  var figures: [Figure] = []
  for writers in writerCounts {
    let warmupPerWriter = (warmup + writers - 1) / writers
    let total = Double(writers * perWriter * rounds)
    var runs: [WriterPath: [WriterRun]] = [:]
    var idealRuns: [IdealHub.Run] = []
    for round in 0..<rounds {
      let forward = round.isMultiple(of: 2)
      let runIdeal = {
        idealRuns.append(try ideal.best(writers: writers, warmup: 1, seconds: idealSeconds))
      }
      if !forward { try runIdeal() }
      for path in forward ? WriterPath.allCases : WriterPath.allCases.reversed() {
        runs[path, default: []].append(
          try runWriters(path, writers: writers, perWriter: perWriter, warmup: warmupPerWriter))
      }
      if forward { try runIdeal() }
      let roundRate = { (path: WriterPath) in
        Double(writers * perWriter) / (runs[path]?.last?.seconds ?? .nan)
      }
      let idealRate = idealRuns.last?.transactionsPerSecond ?? .nan
      printError(
        String(
          format:
            "hub-writes-%d round %d: hub %.0f, pre-encoded %.0f, over ZeroMQ %.0f, direct %.0f, "
            + "ideal hub %.0f tx/s (hub ÷ direct %.2f, hub ÷ ideal %.2f); hub CPU %.0f µs/tx, "
            + "ideal %.0f",
          writers, round + 1, roundRate(.hub), roundRate(.raw), roundRate(.zeroMQ),
          roundRate(.direct), idealRate, roundRate(.hub) / roundRate(.direct),
          roundRate(.hub) / idealRate, runs[.hub]?.last?.cpuPerTransaction ?? .nan,
          idealRuns.last?.cpuPerTransaction ?? .nan))
    }
    let (throughHub, raw, direct) = (runs[.hub] ?? [], runs[.raw] ?? [], runs[.direct] ?? [])
    let zeroMQ = runs[.zeroMQ] ?? []

    let poolDirectory = try BenchmarkDirectory()
    let pool = try DatabasePool(path: poolDirectory.path("one.sqlite"))
    try pool.write {
      try $0.execute(sql: "CREATE TABLE rows (id INTEGER PRIMARY KEY, key TEXT NOT NULL)")
    }
    let oneStart = DispatchTime.now().uptimeNanoseconds
    for index in 0..<(writers * perWriter) {
      try pool.write { db in
        try db.execute(sql: "INSERT INTO rows (key) VALUES (?)", arguments: ["one-\(index)"])
      }
    }
    let oneSeconds = Double(DispatchTime.now().uptimeNanoseconds - oneStart) / 1e9
    let oneRate = Double(writers * perWriter) / oneSeconds

    let rate = { (runs: [WriterRun]) in total / runs.map(\.seconds).reduce(0, +) }
    let timings = { (runs: [WriterRun]) in runs.flatMap(\.timings) }
    let hubP99 = timings(throughHub).map(\.p99).max() ?? .nan
    let directP99 = timings(direct).map(\.p99).max() ?? .nan
    let mean = { (values: [Double]) in values.reduce(0, +) / Double(values.count) }
    figures += [
      Figure(
        bench: "hub-writes-\(writers)-tps", ours: rate(throughHub), baseline: rate(direct),
        unit: "tx/s"),
      // Against the ideal hub in the same rounds: what is left to gain, in speed and in the
      // hub's CPU a transaction (each side's warm-up included).
      Figure(
        bench: "hub-writes-\(writers)-vs-ideal-tps", ours: rate(throughHub),
        baseline: mean(idealRuns.map(\.transactionsPerSecond)), unit: "tx/s"),
      Figure(
        bench: "hub-writes-\(writers)-cpu-vs-ideal",
        ours: mean(throughHub.map(\.cpuPerTransaction)),
        baseline: mean(idealRuns.map(\.cpuPerTransaction)), unit: "us/tx"),
      // p50: the median writer's; p99: the worst writer's.
      Figure(
        bench: "hub-writes-\(writers)-p50", ours: median(timings(throughHub).map(\.p50)),
        baseline: median(timings(direct).map(\.p50)), unit: "us"),
      Figure(bench: "hub-writes-\(writers)-p99", ours: hubP99, baseline: directP99, unit: "us"),
      // The p99 of every write through the hub (all writers, all rounds) against twice the
      // fair mean — writers ÷ tx/s, each write's wait if every writer had an equal share —
      // the bound the hub aims at on the tail (ratio ≤ 1 meets it). The figure above is
      // stricter: the worst single writer's p99.
      Figure(
        bench: "hub-writes-\(writers)-p99-all",
        ours: percentile(timings(throughHub).flatMap(\.latencies), 0.99),
        baseline: 2 * Double(writers) / rate(throughHub) * 1e6, unit: "us"),
      // The slowest write of all: a direct writer that loses the lock again and again sleeps
      // in SQLite's busy handler, a wait the p99 of a few hundred writes can hide.
      Figure(
        bench: "hub-writes-\(writers)-max", ours: timings(throughHub).map(\.max).max() ?? .nan,
        baseline: timings(direct).map(\.max).max() ?? .nan, unit: "us"),
      Figure(
        bench: "hub-writes-\(writers)-vs-1-process", ours: rate(throughHub), baseline: oneRate,
        unit: "tx/s"),
    ]
    // The other sides, each against the direct writers: pre-encoded frames
    // (`hearth-loadgen --raw`), the hub without its clients' work; and the same writers on
    // the ZeroMQ request socket (`HEARTH_HUB_STREAM=off`).
    for (side, runs) in [("raw", raw), ("zeromq", zeroMQ)] {
      figures += [
        Figure(
          bench: "hub-writes-\(writers)-\(side)-tps", ours: rate(runs), baseline: rate(direct),
          unit: "tx/s"),
        Figure(
          bench: "hub-writes-\(writers)-\(side)-p99", ours: timings(runs).map(\.p99).max() ?? .nan,
          baseline: directP99, unit: "us"),
      ]
    }
  }
  return figures
}

/// The ways `hub-writes` writes: through the hub, through it with frames encoded before the
/// start, through it on its ZeroMQ socket, and straight into the file.
enum WriterPath: CaseIterable {
  case hub, raw, zeroMQ, direct
}

/// One run of `runWriters`: each writer's timings, the timed part's length, and — through
/// the hub — the hub's CPU a transaction in µs (warm-up included; NaN for direct writers).
typealias WriterRun = (timings: [LoadgenTimings], seconds: Double, cpuPerTransaction: Double)

/// `writers` `hearth-loadgen` processes writing `perWriter` one-INSERT transactions each, on
/// a new database: through a new hub, or directly; each first writes `warmup` untimed.
func runWriters(_ path: WriterPath, writers: Int, perWriter: Int, warmup: Int) throws
  -> WriterRun
{
  let directory = try BenchmarkDirectory()
  let common = { (index: Int) in
    [
      "--plugin", "w\(index)", "--count", String(perWriter), "--timings", "--warmup",
      String(warmup),
    ]
  }
  guard path != .direct else {
    let database = directory.path("direct.sqlite")
    _ = try DatabasePool(path: database)  // WAL, as the hub's
    let (timings, seconds) = try runLoadgens(
      (0..<writers).map { common($0) + ["--direct", "--database", database] })
    return (timings, seconds, .nan)
  }
  let hub = try BenchHub(directory: directory)
  defer { hub.stop() }
  let cpuBefore = processCPUMicroseconds()
  let (timings, seconds) = try runLoadgens(
    (0..<writers).map { index in
      common(index) + (path == .raw ? ["--raw"] : [])
        + ["--database", hub.paths.databasePath, "--runtime-dir", hub.paths.runtimeDirectory]
    }, environment: path == .zeroMQ ? ["HEARTH_HUB_STREAM": "off"] : [:])
  let transactions = Double(writers * (perWriter + warmup))
  return (timings, seconds, (processCPUMicroseconds() - cpuBefore) / transactions)
}

/// Counts a table's rows and records when each count was fetched: when a remote
/// `@FetchAll`-style observer holds the new value.
struct TimedCount: FetchKeyRequest {
  let table: String
  let seen: Recorder

  func fetch(_ db: Database) throws -> Int {
    let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \"\(table)\"") ?? 0
    seen.record(Int64(count))
    return count
  }

  static func == (lhs: Self, rhs: Self) -> Bool { lhs.table == rhs.table }
  func hash(into hasher: inout Hasher) { hasher.combine(table) }
}

/// From the start of a write in one process to: the commit event received on the bus by a
/// subscriber, and another process's observed query holding the new value; against the
/// write's own round trip (start to acknowledgement). All three in this process, each over
/// its own sockets and connections, as separate processes would be.
let hubLatencyBenchmark = Benchmark(
  name: "hub-latency",
  summary: "write start (and COMMIT) → bus event, → remote observed query updated, vs → ack"
) { options in
  let writes = options.value(options.writes, quick: 100, full: 1_000)
  let directory = try BenchmarkDirectory()
  // When each COMMIT returned, on the hub's thread (the monotonic clock is the same in
  // every thread and process).
  let commits = Recorder()
  let hub = try BenchHub(directory: directory, didCommit: { commits.record($0) })
  defer { hub.stop() }
  let table = "lat_rows"
  let writer = try HubDatabase(
    PluginRegistration(
      name: "lat", version: "1", tables: [table],
      migrations: [.init(id: "1", sql: "CREATE TABLE \(table) (id INTEGER PRIMARY KEY, key TEXT)")]),
    paths: hub.paths)
  let reader = try HubDatabase(
    PluginRegistration(name: "reader", version: "1", tables: [], migrations: []), paths: hub.paths)
  // Registered before the clock starts, not by the first timed write.
  try writer.prepare()
  try reader.prepare()

  // The subscriber: a SUB socket on its own thread, recording when each sequence arrives.
  let events = Recorder()
  let stop = Atomic<Bool>(false)
  let context = BusContext()
  let subscribed = DispatchSemaphore(value: 0)
  Thread.detachNewThread {
    guard let socket = try? BusSocket(context, .sub) else { return }
    try? socket.subscribe("commit")
    try? socket.connect(hub.paths.busEndpoint)
    subscribed.signal()
    while !stop.load(ordering: .relaxed) {
      guard let frames = try? socket.receive(timeout: .milliseconds(50)), frames.count == 2,
        let event = try? WireCoding.decode(CommitEvent.self, from: frames[1])
      else { continue }
      events.record(event.seq)
    }
  }
  subscribed.wait()
  usleep(200_000)  // the subscription reaches the publisher
  defer { stop.store(true, ordering: .relaxed) }

  let fetched = Recorder()
  let observed = Fetch(
    wrappedValue: 0, TimedCount(table: table, seen: fetched), database: reader,
    scheduler: .immediate)

  var toEvent: [Double] = []
  var toFetch: [Double] = []
  var toAck: [Double] = []
  var commitToEvent: [Double] = []
  var commitToFetch: [Double] = []
  var commitToAck: [Double] = []
  for index in 1...writes {
    let start = DispatchTime.now().uptimeNanoseconds
    try writer.write { db in
      try db.execute(sql: "INSERT INTO \(table) (key) VALUES (?)", arguments: ["k\(index)"])
    }
    let acknowledged = DispatchTime.now().uptimeNanoseconds
    let seq = writer.lastCommittedSequence
    // Asleep until both have come: a writer polling here would take a vCPU from the
    // subscriber and the observer it is timing.
    let deadline = Date() + 5
    guard let eventTime = events.waitForTime(of: seq, until: deadline),
      let fetchTime = fetched.waitForTime(of: Int64(index), until: deadline),
      let commitTime = commits.time(of: seq)
    else {
      throw BenchmarkError("hub-latency: write \(index) was not seen within 5 s")
    }
    // Signed: the observer reads the file, and a refetch that runs between the COMMIT and
    // its sync sees the row before `commitTime` (when it became durable). That was an
    // unsigned subtraction that overflowed and killed the benchmark now and then.
    let micros = { (from: UInt64, to: UInt64) in (Double(to) - Double(from)) / 1_000 }
    toAck.append(micros(start, acknowledged))
    toEvent.append(micros(start, eventTime))
    toFetch.append(micros(start, fetchTime))
    commitToEvent.append(micros(commitTime, eventTime))
    commitToFetch.append(micros(commitTime, fetchTime))
    commitToAck.append(micros(commitTime, acknowledged))
  }
  withExtendedLifetime(observed) {}
  return latencyFigures("hub-event", ours: toEvent, baseline: toAck)
    + latencyFigures("hub-remote-fetch", ours: toFetch, baseline: toAck)
    // From the COMMIT itself, against the acknowledgement reaching the writer.
    + latencyFigures("hub-commit-to-event", ours: commitToEvent, baseline: commitToAck)
    + latencyFigures("hub-commit-to-remote-fetch", ours: commitToFetch, baseline: commitToAck)
}
