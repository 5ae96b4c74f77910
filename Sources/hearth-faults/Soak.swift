import Foundation
import HearthSQLite
import HearthSupport
import HearthTestbed
import HearthTransport
import HearthWire

/// Sustained writes from four plugin processes (10 minutes; 2 in the quick form) while a
/// fifth keeps a live query on the bus and times its refreshes. The writers go at
/// `soakRate` transactions a second each (400: together about three quarters of what the
/// hub commits at full speed on a 2-core machine), so that the refresh times measure the
/// hub over time rather than a saturated CPU's scheduling; 0 is full speed. It fails when the WAL goes
/// past its bound by more than the largest commit, when hearthd's resident memory after the
/// first minute grows more than 10 % over the first minute's, when the observer's median
/// refresh in the last minute is more than twice the first minute's by more than the disk
/// slowed down meanwhile, when the last minute's refresh p99 passes `refreshCeiling`, or
/// when a write is lost.
///
/// The time check is on the median, not the p99: a minute's p99 is its dozen slowest probes,
/// and those follow this machine's disk, whose sync times drift by half within minutes (a
/// healthy hub's p99 went from 11 to 29 ms between the two minutes of one run, and from 11
/// to 10 in the next). Even medians move with it (30-second windows of one soak: 2.15 to
/// 4.71 ms, with no trend), so a `DiskProbe` times syncs of a file beside the database all
/// along, and the median may grow by as much as the disk's own median sync did, times two.
/// A hub whose own work per refresh grows — a leak, a scan over a growing table, a queue
/// that does not drain — moves the median on its own; a stall shows as a p99 past the
/// ceiling.
func soak(_ options: Options) throws -> String {
  let seconds = options.soakSeconds ?? (options.quick ? 120 : 600)
  guard seconds >= 120 else { throw TestbedError("the soak needs two minutes at least") }
  let directory = try temporaryDirectory()
  defer { try? FileManager.default.removeItem(at: directory) }
  let hub = try HubProcess(
    directory: directory, config: options.soakWALLimit.map { "wal-limit-mb = \($0)\n" })
  _ = try hub.waitUntilReady()
  defer { _ = hub.terminate() }
  let status = try HubStatusClient(
    HubPaths(databasePath: hub.databasePath, runtimeDirectory: hub.runtimeDirectory))
  let limit = try status.wal().limit

  let rate = options.soakRate ?? 400
  let writers = try (0..<4).map { index in
    try LoadgenProcess(
      hub: hub,
      arguments: [
        "--plugin", "soak\(index)", "--seconds", String(seconds), "--rate", String(rate),
      ])
  }
  let observer = try LoadgenProcess(
    hub: hub, arguments: ["--plugin", "observer", "--probe", String(seconds)])
  let disk = try DiskProbe(path: directory.appendingPathComponent("disk-probe").path)
  defer { _ = disk.stop() }

  let (memory, largestFile) = try sample(
    hub, until: writers + [observer], seconds: seconds)
  let syncs = disk.stop()
  let wal = try status.wal()

  let transactions = try rowsPresent(hub, writers)

  // The figures, then the checks on them.
  let allowed = limit + wal.largestCommitBytes
  let firstMinute = memory.filter { $0.at < 60 }.map(\.kilobytes).max() ?? 0
  let afterwards = memory.filter { $0.at >= 60 }.map(\.kilobytes).max() ?? 0
  let lastMinute = memory.filter { $0.at >= Double(seconds) - 60 }.map(\.kilobytes).max() ?? 0
  let probes = observer.lines.compactMap { line -> (at: Double, micros: Double)? in
    let parts = line.split(separator: " ")
    guard parts.count == 3, parts[0] == "probe", let at = Double(parts[1]),
      let micros = Double(parts[2])
    else { return nil }
    return (at / 1000, micros)
  }
  /// The microseconds of `samples` in the run's first minute and in its last.
  func firstAndLastMinute(_ samples: [(at: Double, micros: Double)]) -> ([Double], [Double]) {
    (
      samples.filter { $0.at < 60 }.map(\.micros),
      samples.filter { $0.at >= Double(seconds) - 60 }.map(\.micros)
    )
  }
  let (firstProbes, lastProbes) = firstAndLastMinute(probes)
  let (firstMedian, first) = (percentile(firstProbes, 0.5), percentile(firstProbes, 0.99))
  let (lastMedian, last) = (percentile(lastProbes, 0.5), percentile(lastProbes, 0.99))
  let (firstSyncs, lastSyncs) = firstAndLastMinute(syncs)
  let (firstSync, lastSync) = (percentile(firstSyncs, 0.5), percentile(lastSyncs, 0.5))
  let diskSlowdown = firstSync > 0 ? max(1, lastSync / firstSync) : 1
  let figures = String(
    format: "4 writers (%@) for %d s: %d transactions (%.0f tx/s), every row present; WAL max %@ "
      + "(file %@; bound %@ + largest commit %@), %d restarts (%d held off; the writer spent "
      + "%.0f ms in them, %.1f ms the longest); hearthd RSS %.1f MiB first minute, %.1f MiB "
      + "last; observer refresh median %.2f ms first minute, %.2f ms last, p99 %.2f ms "
      + "first minute, %.2f ms last (%d probes); the disk's median sync %.0f µs first minute, "
      + "%.0f µs last; checkpoints %@",
    rate == 0 ? "full speed" : "\(rate) tx/s each", seconds, transactions,
    Double(transactions) / Double(seconds), megabytes(wal.peakBytes),
    megabytes(largestFile), megabytes(limit), megabytes(wal.largestCommitBytes), wal.restarts,
    wal.incompleteRestarts, wal.restartMilliseconds, wal.slowestRestartMilliseconds,
    Double(firstMinute) / 1024, Double(lastMinute) / 1024, firstMedian / 1000,
    lastMedian / 1000, first / 1000, last / 1000, probes.count, firstSync, lastSync,
    (wal.checkpointsByConnection ?? [:]).sorted { $0.key < $1.key }
      .map { "\($0.key) \($0.value)" }.joined(separator: ", "))

  var failures: [String] = []
  // Only the writer's connection may checkpoint (SQLite's WAL-reset bug needs a checkpoint
  // beside another connection's commit), and it must have checkpointed for that to mean
  // anything.
  let checkpoints = wal.checkpointsByConnection ?? [:]
  if Set(checkpoints.keys) != ["writer"] {
    failures.append("checkpoints by connection were \(checkpoints), not the writer's alone")
  }
  _ = hub.terminate()
  let integrity = try openReadOnly(hub.databasePath).read { try $0.integrityCheck() }
  if integrity != ["ok"] {
    failures.append("integrity_check after the soak: \(integrity.prefix(5))")
  }
  if wal.peakBytes > allowed || largestFile > allowed {
    failures.append("the WAL went past its bound plus the largest commit")
  }
  if afterwards > firstMinute * 11 / 10 {
    failures.append(
      "hearthd's resident memory grew from \(firstMinute) kB in the first minute to "
        + "\(afterwards) kB")
  }
  if firstProbes.count < 100 || lastProbes.count < 100 {
    failures.append("the observer reported too few probes")
  } else {
    if lastMedian > 2 * firstMedian * diskSlowdown {
      failures.append(
        "the observer's median refresh more than doubled, beyond what the disk slowed down")
    }
    if last > refreshCeiling {
      failures.append(
        "the observer's refresh p99 in the last minute passed \(Int(refreshCeiling / 1000)) ms")
    }
  }
  guard failures.isEmpty else {
    throw TestbedError(failures.joined(separator: "; ") + " (" + figures + ")")
  }
  return figures
}

/// The slowest a soak's last-minute refresh p99 may be, in microseconds. A tenth of a second,
/// over three times the worst this machine's paced soaks have printed (29 ms), is a hub
/// that stalls.
let refreshCeiling: Double = 100_000

/// Times a 4 KiB write and `fdatasync` of its own file every 50 ms, on a thread of its own,
/// until `stop`: how fast the disk syncs at each moment, beside what the hub is doing.
final class DiskProbe: Sendable {
  private let samples = Locked<[(at: Double, micros: Double)]>([])
  private let stopping = Locked(false)
  private let done = DispatchSemaphore(value: 0)

  init(path: String) throws {
    let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
    guard descriptor >= 0 else { throw TestbedError("cannot create \(path)") }
    let start = ContinuousClock.now
    let (samples, stopping, done) = (samples, stopping, done)
    Thread.detachNewThread {
      let page = [UInt8](repeating: 0x2A, count: 4096)
      var index = 0
      while !stopping.withLock({ $0 }) {
        let before = ContinuousClock.now
        let offset = off_t(index % 256 * page.count)
        let written = page.withUnsafeBytes {
          pwrite(descriptor, $0.baseAddress, $0.count, offset)
        }
        guard written == page.count, fdatasync(descriptor) == 0 else { break }
        let micros = (ContinuousClock.now - before).timeInterval * 1_000_000
        let at = (before - start).timeInterval
        samples.withLock { $0.append((at, micros)) }
        index += 1
        Thread.sleep(forTimeInterval: 0.05)
      }
      close(descriptor)
      done.signal()
    }
  }

  /// Stops the probe (again, does nothing more); every sync it timed, seconds from its
  /// start and microseconds.
  func stop() -> [(at: Double, micros: Double)] {
    let wasRunning = stopping.withLock { stopping in
      defer { stopping = true }
      return !stopping
    }
    if wasRunning { done.wait() }
    return samples.withLock { $0 }
  }
}

/// Every 100 ms while `processes` run: hearthd's resident memory and the WAL file's size;
/// then each must have exited 0.
private func sample(_ hub: HubProcess, until processes: [LoadgenProcess], seconds: Int) throws
  -> (memory: [(at: Double, kilobytes: Int)], largestFile: Int)
{
  let pid = hub.process.processIdentifier
  var memory: [(at: Double, kilobytes: Int)] = []
  var largestFile = 0
  let start = ContinuousClock.now
  func elapsed() -> Double { (ContinuousClock.now - start).timeInterval }
  while processes.contains(where: { $0.process.isRunning }) {
    guard elapsed() < Double(seconds) + 60 else {
      throw TestbedError("the soak's processes still run a minute after its end")
    }
    if let kilobytes = try? residentKilobytes(pid) { memory.append((elapsed(), kilobytes)) }
    largestFile = max(largestFile, fileSize(hub.databasePath + "-wal"))
    Thread.sleep(forTimeInterval: 0.1)
  }
  for (index, process) in processes.enumerated() {
    let code = try process.waitForExit()
    guard code == 0 else {
      throw TestbedError("process \(index) exited \(code): \(process.lines.suffix(3))")
    }
  }
  return (memory, largestFile)
}

/// Nothing lost: each writer's acknowledged rows are all in the database; returns how many.
func rowsPresent(_ hub: HubProcess, _ writers: [LoadgenProcess]) throws -> Int {
  let written = writers.map { writer in
    writer.lines.compactMap { $0.hasPrefix("wrote ") ? Int($0.dropFirst(6)) : nil }.first ?? -1
  }
  let stored = try openReadOnly(hub.databasePath).read { db in
    try writers.indices.map {
      try Int.fetchOne(db, sql: "SELECT count(*) FROM soak\($0)_rows") ?? 0
    }
  }
  guard stored == written else {
    throw TestbedError("the writers acknowledged \(written) rows; the database has \(stored)")
  }
  return written.reduce(0, +)
}

/// Asks a hub for its `welcome` over a DEALER socket, as `hearth status` does.
struct HubStatusClient {
  let socket: BusSocket

  init(_ paths: HubPaths) throws {
    socket = try BusSocket(BusContext(), .dealer)
    try socket.connectToHub(paths)
  }

  func wal() throws -> WALStatus {
    guard let wal = try welcome().wal else {
      throw TestbedError("the hub did not say how its WAL is")
    }
    return wal
  }

  /// The hub's answer to `hello`.
  func welcome() throws -> WelcomeReply {
    let id = UUID().uuidString
    try socket.send([try WireCoding.encode(HelloRequest(id: id, locks: true))])
    while let frames = try socket.receive(timeout: .seconds(5)), let frame = frames.last {
      let welcome = try WireCoding.decode(WelcomeReply.self, from: frame)
      if welcome.id == id { return welcome }
    }
    throw TestbedError("the hub did not answer hello in 5 s")
  }
}

func fileSize(_ path: String) -> Int {
  ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
}

func megabytes(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }

func percentile(_ values: [Double], _ q: Double) -> Double {
  let sorted = values.sorted()
  guard !sorted.isEmpty else { return 0 }
  return sorted[Int((Double(sorted.count - 1) * q).rounded())]
}
