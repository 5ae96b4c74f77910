import Foundation
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
/// crash takes byte 120 for a moment, which is why a warning waits for a lock seen twice.)
struct SharedMemoryLocks {
  let shmPath: String
  /// What the last `watch` saw, and when the last warning went out (the hub's clock).
  private var lastSeen: Set<ForeignLock> = []
  private var lastWarning: Duration?

  init(databasePath: String) { shmPath = databasePath + "-shm" }

  /// The locks on bytes 120 and 121 of the `-shm` held by other processes, now.
  func foreign() -> [ForeignLock] {
    var status = stat()
    guard stat(shmPath, &status) == 0,
      let table = try? String(contentsOfFile: "/proc/locks", encoding: .utf8)
    else { return [] }
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

  /// Looks (at each heartbeat) and logs a lock held across two looks, at most once a minute.
  mutating func watch(now: Duration) {
    let seen = Set(foreign())
    defer { lastSeen = seen }
    let held = seen.intersection(lastSeen)
    guard !held.isEmpty, lastWarning.map({ now - $0 >= .seconds(60) }) ?? true else { return }
    lastWarning = now
    let holders = held.map { lock in
      let who = lock.pid.map { "pid \($0)" } ?? "an open file description"
      let what = [lock.command, lock.unit].compactMap { $0 }.joined(separator: ", ")
      return "\(who)\(what.isEmpty ? "" : " (\(what))") holds a \(lock.mode) lock on the "
        + "\(lock.lock) lock"
    }
    let effect =
      held.contains { $0.lock == "write" }
      ? "every write fails while it is held" : "checkpoints wait while it is held"
    Logger(label: "hearthd").warning(
      "\(holders.sorted().joined(separator: "; ")) of \(shmPath): \(effect); stop that process")
  }

  private static func command(_ pid: Int) -> String? {
    (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// The systemd unit of `pid`: the last `.service` or `.scope` of its cgroup.
  private static func unit(_ pid: Int) -> String? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8),
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
    let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    return (open, Self.clamp(limit.rlim_cur), Self.clamp(limit.rlim_max))
  }

  static func clamp(_ value: rlim_t) -> Int { value >= rlim_t(Int.max) ? Int.max : Int(value) }
}
