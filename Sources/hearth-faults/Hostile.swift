import Foundation
import HearthSQLite
import HearthTestbed
import HearthTransport
import HearthWire

/// A hostile local process beside a real hub, while an honest plugin writes a row every
/// 10 ms. Each attack of `Tests/python/hostile_neighbour.py` (written from Protocols/ alone)
/// runs as its own process in turn: idle connections to both sockets, authenticated ones
/// held, a flood of requests never read on both, replies never read past the hub's memory
/// budget. It fails when the hub dies, when the honest plugin's writes have a p99 over
/// 100 ms or a slowest over 1 s, when hearthd's resident memory grows past its budgets (the
/// replies it holds, `reply-memory-mb`, and the requests it has read, 64 MiB), when that
/// memory is not handed back after, or when an acknowledged row is missing.
///
/// Then the locks a plugin that reads the database can take: a shared lock on SQLite's WAL
/// write lock (which stops every write: the hub must name the holder in `hello` and write
/// again once it lets go) and a `flock` on every file a plugin could open (the next hub
/// must start regardless).
///
/// The quick form: 2,000 idle connections, 256 authenticated, 8 × 16 unread 3 MB replies,
/// 4 s an attack. The full one: 10,000, 1,024, and 24 × 16 (1.1 GiB), 10 s each.
func hostile(_ options: Options) throws -> String {
  let quick = options.quick
  let seconds = quick ? 4 : 10
  let idle = quick ? 2_000 : 10_000
  let authenticated = quick ? 256 : 1_024
  let replyBudget = 64
  let directory = try temporaryDirectory()
  defer { try? FileManager.default.removeItem(at: directory) }
  let hub = try HubProcess(directory: directory, config: "reply-memory-mb = \(replyBudget)\n")
  defer { _ = hub.terminate() }
  _ = try hub.waitUntilReady()
  let paths = HubPaths(databasePath: hub.databasePath, runtimeDirectory: hub.runtimeDirectory)
  let status = try HubStatusClient(paths)
  // A feed worth reading: each `changes` of the floods answers with all of it.
  let filler = try LoadgenProcess(
    hub: hub, arguments: ["--plugin", "filler", "--count", quick ? "1000" : "3000"])
  guard try filler.waitForExit() == 0 else {
    throw TestbedError("the filler failed: \(filler.lines.suffix(3))")
  }
  let hostileKey = paths.keyring.keyPath(ofPlugin: "hostile")
  _ = try paths.keyring.issue("hostile")

  let attacks: [(name: String, count: Int)] = [
    ("idle-ipc", idle), ("idle-stream", idle), ("stream-auth", authenticated),
    ("zmq-auth", authenticated), ("flood-stream", 256), ("flood-zmq", 256),
    ("unread-replies", quick ? 8 : 24),
  ]
  let pid = hub.process.processIdentifier
  let honest = try LoadgenProcess(
    hub: hub,
    arguments: [
      "--plugin", "honest", "--seconds", String(attacks.count * (seconds + 8) + 2), "--rate",
      "100", "--latencies",
    ])
  try honest.waitForLine("registered honest")
  let honestStart = ContinuousClock.now
  var windows: [(name: String, from: Double, to: Double)] = []
  Thread.sleep(forTimeInterval: 1)
  let before = try residentKilobytes(pid)
  var peak = before
  var said: [String] = []
  for attack in attacks {
    let attacker = try Attacker(
      paths, attack.name, seconds: seconds, count: attack.count, keyFile: hostileKey)
    defer { attacker.stop() }
    try attacker.waitUntilAttacking(timeout: .seconds(60))
    let from = (ContinuousClock.now - honestStart).timeInterval
    while attacker.isRunning {
      guard hub.process.isRunning else {
        throw TestbedError("hearthd died under \(attack.name): \(hub.logText.suffix(500))")
      }
      peak = max(peak, (try? residentKilobytes(pid)) ?? 0)
      Thread.sleep(forTimeInterval: 0.05)
    }
    guard attacker.finished else {
      throw TestbedError("the attack \(attack.name) did not run: \(attacker.outcome)")
    }
    said.append("\(attack.name): \(attacker.outcome)")
    windows.append((attack.name, from, (ContinuousClock.now - honestStart).timeInterval))
    Thread.sleep(forTimeInterval: 1)
  }
  guard try honest.waitForExit(timeout: .seconds(Int64(attacks.count * (seconds + 8) + 60))) == 0
  else { throw TestbedError("the honest plugin failed: \(honest.lines.suffix(3))") }
  Thread.sleep(forTimeInterval: 2)
  let after = try residentKilobytes(pid)
  let latencies =
    honest.lines.first { $0.hasPrefix("latencies ") }?.split(separator: " ").dropFirst()
    .compactMap { Double($0) } ?? []
  let written =
    honest.lines.compactMap { $0.hasPrefix("wrote ") ? Int($0.dropFirst(6)) : nil }.first ?? -1
  let stored = try openReadOnly(hub.databasePath).read { db in
    try Int.fetchOne(db, sql: "SELECT count(*) FROM honest_rows") ?? 0
  }
  let (p99, slowest) = (percentile(latencies, 0.99) / 1000, (latencies.max() ?? 0) / 1000)
  // When each write began (seconds from the writer's start: paced at 10 ms, or later when
  // the one before took longer), so that each attack's slowest write can be told.
  var starts: [Double] = []
  for index in latencies.indices {
    let afterPrevious = index > 0 ? starts[index - 1] + latencies[index - 1] / 1e6 : 0
    starts.append(max(Double(index) / 100, afterPrevious))
  }
  let perAttack = windows.map { window in
    let during = zip(starts, latencies).filter { $0.0 >= window.from && $0.0 <= window.to + 0.5 }
      .map(\.1)
    return String(
      format: "%@ %.1f / %.1f", window.name, percentile(during, 0.99) / 1000,
      (during.max() ?? 0) / 1000)
  }
  let welcome = try status.welcome()
  let counters =
    welcome.connections.map {
      "stream refused \($0.refusedConnections) at its most, closed \($0.closedHandshakes) "
        + "handshakes for newer ones, refused \($0.refusedForPrincipal) past a principal's "
        + "\($0.maxConnectionsPerPrincipal), closed \($0.closedForReplies) for unread replies; "
        + "descriptors \($0.openFiles) of \($0.fileLimit)"
    } ?? "no connection status"

  var failures: [String] = []
  if latencies.count != written || written < 100 {
    failures.append("the honest plugin wrote \(written) rows and timed \(latencies.count)")
  }
  if stored != written {
    failures.append("the honest plugin had \(written) writes acknowledged; \(stored) are stored")
  }
  if p99 > 100 || slowest > 1_000 {
    failures.append(
      String(format: "the honest plugin's writes: p99 %.1f ms, slowest %.1f ms", p99, slowest)
        + " (p99 / slowest during each attack, ms: \(perAttack.joined(separator: ", ")))")
  }
  let budget = (replyBudget + 64) * 1024
  if peak - before > budget {
    failures.append(
      "hearthd grew from \(before) kB to \(peak) kB, past its budgets (\(budget) kB)")
  }
  if after - before > 32 * 1024 {
    failures.append("hearthd kept \(after - before) kB after the attacks (from \(before) kB)")
  }

  // SQLite's WAL write lock, shared, by a process that can only read the file.
  let locker = try Attacker(paths, "shm-lock", seconds: 4, count: 0, keyFile: nil)
  defer { locker.stop() }
  try locker.waitUntilAttacking(timeout: .seconds(10))
  // The hub looks once a second.
  Thread.sleep(forTimeInterval: 1.5)
  let locks = try status.welcome().locks ?? []
  if !locks.contains(where: { $0.pid == locker.pid && $0.lock == "write" }) {
    failures.append("hello named \(locks) as locks, not pid \(locker.pid)'s on the write lock")
  }
  while locker.isRunning { Thread.sleep(forTimeInterval: 0.05) }
  let afterLock = try LoadgenProcess(hub: hub, arguments: ["--plugin", "unlocked", "--count", "5"])
  if try afterLock.waitForExit() != 0 || afterLock.acknowledged != Array(0..<5) {
    failures.append("no write once the lock was let go: \(afterLock.lines.suffix(3))")
  }

  // Every file a plugin could open, locked: the next hub starts all the same.
  let files = try Attacker(paths, "lock-files", seconds: 60, count: 0, keyFile: nil)
  defer { files.stop() }
  try files.waitUntilAttacking(timeout: .seconds(10))
  _ = hub.terminate()
  let next = try HubProcess(directory: directory)
  defer { _ = next.terminate() }
  do {
    _ = try next.waitUntilReady()
  } catch {
    failures.append("the next hub did not start beside \(files.pid)'s locks: \(next.logText)")
  }
  files.stop()
  said.append("lock-files: \(files.outcome)")
  let integrity = try openReadOnly(hub.databasePath).read { try $0.integrityCheck() }
  if integrity != ["ok"] { failures.append("integrity_check: \(integrity.prefix(3))") }

  guard failures.isEmpty else {
    throw TestbedError(failures.joined(separator: "; ") + " — " + said.joined(separator: "; "))
  }
  return String(
    format: "%d attacks of %d s as their own processes (%@); the honest plugin's %d writes "
      + "(every one stored): p50 %.1f ms, p99 %.1f ms, slowest %.1f ms (p99 / slowest "
      + "during each attack, ms: %@); hearthd %.1f MiB "
      + "before, %.1f MiB at most, %.1f MiB after (budgets %d + 64 MiB); %@; the WAL write "
      + "lock's holder named by hello, writes again once it let go; the next hub started "
      + "beside a flock on every file a plugin can open; integrity ok",
    attacks.count, seconds, said.joined(separator: "; "), written,
    percentile(latencies, 0.5) / 1000, p99, slowest, perAttack.joined(separator: ", "),
    Double(before) / 1024, Double(peak) / 1024,
    Double(after) / 1024, replyBudget, counters)
}

/// One run of `Tests/python/hostile_neighbour.py`.
final class Attacker {
  let process = Process()
  private let output = LineCollector()

  init(_ paths: HubPaths, _ attack: String, seconds: Int, count: Int, keyFile: String?) throws {
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments =
      [
        try Self.script(), paths.runtimeDirectory, paths.databasePath, attack, String(seconds),
        String(count),
      ] + (keyFile.map { [$0] } ?? [])
    let pipe = output.pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
  }

  /// The script beside this source file in the repository (the fault suite runs from it).
  static func script() throws -> String {
    let path = Executables.packageRoot.appendingPathComponent(
      "Tests/python/hostile_neighbour.py"
    ).path
    guard FileManager.default.fileExists(atPath: path) else {
      throw Skipped("the hostile suite needs the repository's Tests/python (not at \(path))")
    }
    return path
  }

  var pid: Int { Int(process.processIdentifier) }
  var isRunning: Bool { process.isRunning }

  func waitUntilAttacking(timeout: Duration) throws {
    try waitUntil("the attacker to start (\(output.lines.suffix(3)))", timeout: timeout) {
      guard process.isRunning || output.lines.contains(where: { $0.hasPrefix("attacking") })
      else { throw TestbedError("the attacker ended: \(output.lines.suffix(5))") }
      return output.lines.contains { $0.hasPrefix("attacking") }
    }
  }

  /// Whether it said what it held at its end (it ran the whole attack).
  var finished: Bool { output.lines.contains { $0.hasPrefix("done ") } }

  /// What it said it held (at the end, or as it began when it was stopped), or its last
  /// lines when it said nothing.
  var outcome: String {
    if let done = output.lines.last(where: { $0.hasPrefix("done ") }) {
      return String(done.dropFirst(5))
    }
    if let begun = output.lines.first(where: { $0.hasPrefix("attacking: ") }) {
      return String(begun.dropFirst(11))
    }
    return "ended without a word: \(output.lines.suffix(3))"
  }

  func stop() {
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
  }
}
