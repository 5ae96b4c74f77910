import Foundation
import HearthTestbed

/// The ideal hub (`scripts/ideal-hub.c`): what any hub must do per write and nothing more,
/// in C — the per-request exactly-once look-up, the writer's row, a feed row and an
/// exactly-once record, one SQLite transaction a group, durable before the reply — with no
/// JSON, no Swift, no ZeroMQ, no authorizer and no change tracking. `hub-writes` builds it
/// from its source and runs it beside hearthd with the same writer count, alternated, as the
/// baseline no hub on this machine can beat.
struct IdealHub {
  /// Where the executable is; removed with the value.
  private let directory: BenchmarkDirectory
  let executable: String

  /// Compiles the source with the toolchain's `clang` (or `cc`) against Debian's SQLite.
  init() throws {
    let source = Executables.packageRoot.appendingPathComponent("scripts/ideal-hub.c").path
    directory = try BenchmarkDirectory()
    executable = directory.path("ideal-hub")
    var failure = ""
    for compiler in ["clang", "cc"] {
      let (status, output) = try runToEnd(
        path: "/usr/bin/env", [compiler, "-O2", "-pthread", "-o", executable, source, "-lsqlite3"])
      if status == 0 { return }
      failure += "\(compiler): \(output)\n"
    }
    throw BenchmarkError("cannot build the ideal hub from \(source):\n\(failure)")
  }

  /// One run: what the ideal hub did with `writers` writer processes.
  struct Run {
    var transactionsPerSecond: Double
    var p99: Double
    /// The hub process's CPU (user and system) a transaction, µs, warm-up included.
    var cpuPerTransaction: Double
  }

  /// `writers` writers for `warmup` seconds untimed then `seconds` timed, on a new
  /// database, in `mode` (`serial`: the hub syncs on its thread; `pipelined`: a second
  /// thread syncs while the next group commits).
  func run(_ mode: String, writers: Int, warmup: Double, seconds: Double) throws -> Run {
    let directory = try BenchmarkDirectory()
    let (status, output) = try runToEnd(
      path: executable,
      [mode, String(writers), String(warmup), String(seconds), directory.url.path])
    let figures = output.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
    guard status == 0, figures.count == 4 else {
      throw BenchmarkError("the ideal hub failed (\(status)): \(output)")
    }
    return Run(transactionsPerSecond: figures[0], p99: figures[2], cpuPerTransaction: figures[3])
  }

  /// The better of its two ways of syncing, as any hub would choose.
  func best(writers: Int, warmup: Double, seconds: Double) throws -> Run {
    let serial = try run("serial", writers: writers, warmup: warmup, seconds: seconds)
    let pipelined = try run("pipelined", writers: writers, warmup: warmup, seconds: seconds)
    return serial.transactionsPerSecond >= pipelined.transactionsPerSecond ? serial : pipelined
  }
}

/// This process's CPU time so far (user and system, every thread), in µs: the in-process
/// hub's, while the writers are other processes.
func processCPUMicroseconds() -> Double {
  var usage = rusage()
  getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
  let user = Double(usage.ru_utime.tv_sec) * 1e6 + Double(usage.ru_utime.tv_usec)
  let system = Double(usage.ru_stime.tv_sec) * 1e6 + Double(usage.ru_stime.tv_usec)
  return user + system
}
