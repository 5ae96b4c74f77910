import Foundation

/// One figure of a benchmark: our code next to a baseline measured in the same run.
struct Figure {
  var bench: String
  var ours: Double
  var baseline: Double
  var unit: String

  var ratio: Double { ours / baseline }

  var json: String {
    func number(_ value: Double) -> String { String(format: "%.4f", value) }
    return
      #"{"bench": "\#(bench)", "ours": \#(number(ours)), "baseline": \#(number(baseline)), "ratio": \#(number(ratio)), "unit": "\#(unit)"}"#
  }
}

/// What every benchmark receives from the command line.
struct Options: Sendable {
  /// A short run that only proves the benchmark works (CI).
  var quick = false
  /// Rows of the decoding, join and search benchmarks' tables.
  var rows: Int?
  /// Writes per writer process (hub-writes, memory), or in all (the latency benchmarks).
  var writes: Int?
  /// Rounds of the benchmarks that keep the fastest round, and hearthd starts.
  var rounds: Int?
  /// The writer counts of hub-writes.
  var writers: [Int]?
  /// hub-writes' untimed transactions before each timed run, in all (0: none).
  var warmup: Int?
  /// The size of the startup benchmark's database.
  var databaseMegabytes: Int?

  /// `given` when the command line set it, else the quick or the full default.
  func value<T>(_ given: T?, quick quickValue: T, full: T) -> T {
    given ?? (quick ? quickValue : full)
  }
}

/// A named benchmark that measures one or more figures.
struct Benchmark: Sendable {
  var name: String
  var summary: String
  var run: @Sendable (Options) async throws -> [Figure]
}

/// Monotonic wall-clock time of `body`, in milliseconds, and what it returned. The timer
/// stops before the value is handed back, so freeing it later is not counted.
func timed<Value>(_ body: () throws -> Value) rethrows -> (milliseconds: Double, value: Value) {
  let start = DispatchTime.now().uptimeNanoseconds
  let value = try body()
  return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6, value)
}

/// Runs `ours` and `baseline` alternately `rounds` times (after one warm-up each) and
/// returns the fastest time of each: on a shared machine, noise only ever adds time, so the
/// minimum is the steadiest estimate of the work itself, and alternating keeps drift in
/// machine load from favouring either side. `check` sees both sides' results of every round,
/// outside the timed part (a benchmark compares them there, so neither side can skip work).
func compare<Ours, Baseline>(
  rounds: Int, ours: () throws -> Ours, baseline: () throws -> Baseline,
  check: (Ours, Baseline) throws -> Void = { _, _ in }
) throws -> (ours: Double, baseline: Double) {
  try check(ours(), baseline())
  var oursTimes: [Double] = []
  var baselineTimes: [Double] = []
  for round in 0..<rounds {
    // Alternate which goes first, so neither always runs on a warmer cache.
    let oursRound: (milliseconds: Double, value: Ours)
    let baselineRound: (milliseconds: Double, value: Baseline)
    if round.isMultiple(of: 2) {
      oursRound = try timed(ours)
      baselineRound = try timed(baseline)
    } else {
      baselineRound = try timed(baseline)
      oursRound = try timed(ours)
    }
    oursTimes.append(oursRound.milliseconds)
    baselineTimes.append(baselineRound.milliseconds)
    try check(oursRound.value, baselineRound.value)
  }
  return (oursTimes.min() ?? .nan, baselineTimes.min() ?? .nan)
}

func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  let middle = sorted.count / 2
  return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
}

/// A temporary directory for a benchmark's files, removed at the end.
final class BenchmarkDirectory {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "hearth-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: url) }

  func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

/// `<bench>-p50`, `<bench>-p99` and `<bench>-max` of two sets of latencies, in
/// microseconds.
func latencyFigures(_ bench: String, ours: [Double], baseline: [Double]) -> [Figure] {
  [0.5, 0.99, 1].map { q in
    Figure(
      bench: q == 1 ? "\(bench)-max" : "\(bench)-p\(Int(q * 100))", ours: percentile(ours, q),
      baseline: percentile(baseline, q), unit: "us")
  }
}

/// The value at quantile `q` (0…1) of `values`.
func percentile(_ values: [Double], _ q: Double) -> Double {
  let sorted = values.sorted()
  guard !sorted.isEmpty else { return .nan }
  let index = Int((Double(sorted.count - 1) * q).rounded())
  return sorted[index]
}
