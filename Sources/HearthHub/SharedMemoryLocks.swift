import Foundation
import HearthDependencies
import HearthSupport
import HearthWire

/// Locks other processes hold on the database's `-shm` that stop the writer.
///
/// In WAL mode every connection to the file shares its wal-index, the `-shm`, and SQLite
/// coordinates them by `fcntl` locks on its bytes 120 to 128. Any process that can read the
/// database can open the `-shm` and lock any of them; nothing in SQLite or the kernel stops
/// it. A shared or exclusive lock on byte 120 (the write lock) makes every write fail with
/// "database is locked" once the busy timeout passes; one on byte 121 (the checkpoint lock)
/// stops checkpoints, so the log grows. The hub cannot take such a lock away; it finds the
/// holder in `/proc/locks`, logs it and shows it in `hearth status` (`welcome.locks`).
///
/// Honest readers never hold either byte: they lock the read marks (123 to 127) and byte
/// 128, and the hub's readers never checkpoint. (A reader recovering the wal-index after a
/// crash takes byte 120 for a moment.)
///
/// The hub looks when asked (`hello` with `locks`) and when a write fails with
/// `SQLITE_BUSY`, at most once a second, never on a timer: reading `/proc/locks` takes the
/// kernel's lock-table lock for writing, which holds up every `fcntl` lock on the machine —
/// SQLite's own, on every commit — for milliseconds (8 ms on this project's VMs; read once a
/// second, it costs the hub 5 % of its throughput at 16 writers).
final class SharedMemoryLocks: Sendable {
  let shmPath: String
  private let state = Locked<(seen: [ForeignLock], at: Duration?, warned: Duration?)>(
    ([], nil, nil))
  /// What "once a second" is measured on (the hub's clock).
  private let clock: Stopwatch

  init(databasePath: String, clock: Stopwatch) {
    shmPath = databasePath + "-shm"
    self.clock = clock
  }

  /// The locks held against the writer: looked at now, unless the last look is under a
  /// second old.
  func current() -> [ForeignLock] {
    if let (seen, at) = state.withLock({ state in state.at.map { (state.seen, $0) } }),
      clock.elapsed - at < .seconds(1)
    {
      return seen
    }
    let seen = foreign()
    let now = clock.elapsed
    state.withLock {
      $0.seen = seen
      $0.at = now
    }
    return seen
  }

  /// A write failed with `SQLITE_BUSY`: when another process holds the write lock, says
  /// who in the log (at most once a minute).
  func writerWasBusy() {
    let held = current().filter { $0.lock == "write" }
    guard !held.isEmpty else { return }
    let now = clock.elapsed
    let due = state.withLock { state in
      guard state.warned.map({ now - $0 >= .seconds(60) }) ?? true else { return false }
      state.warned = now
      return true
    }
    if due { warn(held) }
  }

  /// The locks on bytes 120 and 121 of the `-shm` held by other processes, now.
  func foreign() -> [ForeignLock] {
    var status = stat()
    guard stat(shmPath, &status) == 0, let table = Self.read("/proc/locks") else { return [] }
    let device = String(
      format: "%02x:%02x:%llu", Self.major(status.st_dev), Self.minor(status.st_dev),
      UInt64(status.st_ino))
    let me = Int(getpid())
    var found: [ForeignLock] = []
    for line in table.split(separator: "\n") {
      // "1: POSIX  ADVISORY  READ 1234 08:01:131075 120 120"; a waiter's line has "->".
      let fields = line.split(separator: " ")
      guard fields.count >= 8, !fields.contains("->"), fields[5] == device,
        let start = Int(fields[6])
      else { continue }
      let end = fields[7] == "EOF" ? Int.max : Int(fields[7]) ?? start
      let pid = Int(fields[4]).flatMap { $0 > 0 ? $0 : nil }
      guard pid != me else { continue }
      for (byte, name) in [(120, "write"), (121, "checkpoint")] where start <= byte && byte <= end {
        found.append(
          ForeignLock(
            pid: pid, command: pid.flatMap(Self.command), unit: pid.flatMap(Self.unit),
            lock: name, mode: fields[3] == "WRITE" ? "exclusive" : "shared"))
      }
    }
    return found
  }

  private func warn(_ held: [ForeignLock]) {
    let holders = held.map { lock in
      let who = lock.pid.map { "pid \($0)" } ?? "an open file description"
      let what = [lock.command, lock.unit].compactMap { $0 }.joined(separator: ", ")
      return "\(who)\(what.isEmpty ? "" : " (\(what))") holds a \(lock.mode) lock on the "
        + "\(lock.lock) lock"
    }
    Logger(label: "hearthd").warning(
      "\(holders.sorted().joined(separator: "; ")) of \(shmPath): every write fails while it "
        + "is held; stop that process")
  }

  /// A small file of /proc, read with plain system calls.
  static func read(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16_384)
    while true {
      let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { break }
      bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  private static func command(_ pid: Int) -> String? {
    read("/proc/\(pid)/comm")?.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// The systemd unit of `pid`: the last `.service` or `.scope` of its cgroup.
  private static func unit(_ pid: Int) -> String? {
    guard let text = read("/proc/\(pid)/cgroup"),
      let path = text.split(separator: "\n").first(where: { $0.hasPrefix("0::") })
    else { return nil }
    return path.split(separator: "/").last {
      $0.hasSuffix(".service") || $0.hasSuffix(".scope")
    }.map(String.init)
  }

  // glibc's gnu_dev_major and gnu_dev_minor, which Swift does not import.
  private static func major(_ device: dev_t) -> UInt32 {
    UInt32(truncatingIfNeeded: ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff))
  }

  private static func minor(_ device: dev_t) -> UInt32 {
    UInt32(truncatingIfNeeded: (device & 0xff) | ((device >> 12) & ~0xff))
  }
}

/// The process's descriptors: how many are open, and its soft and hard limits.
enum OpenFiles {
  static func now() -> (open: Int, soft: Int, hard: Int) {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    var open = 0
    if let directory = opendir("/proc/self/fd") {
      while let entry = readdir(directory) {
        if entry.pointee.d_name.0 != UInt8(ascii: ".") { open += 1 }
      }
      closedir(directory)
    }
    return (open, Self.clamp(limit.rlim_cur), Self.clamp(limit.rlim_max))
  }

  static func clamp(_ value: rlim_t) -> Int { value >= rlim_t(Int.max) ? Int.max : Int(value) }
}
