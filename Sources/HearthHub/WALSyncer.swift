import CLinux
import Foundation
import HearthService
import HearthTransport
import Synchronization

/// Makes the hub's commits durable off the hub's thread: pipelined group commit.
///
/// The writer commits with `synchronous = NORMAL`: a COMMIT appends its frames to the
/// write-ahead log and returns without waiting for the disk. After each commit the hub asks
/// for a sync up to its *ticket* (commits are numbered in order); this thread `fdatasync`s the
/// log through a descriptor of its own and then says which ticket is durable — every commit
/// whose ticket was asked for before that sync began — and rings its bell. The hub's thread
/// holds each commit's replies and events until then (`HubOutbox`) and sends them itself, and meanwhile goes on committing what arrives, so one sync covers every
/// group committed while the last one ran. (`fdatasync` flushes the file, whoever wrote it:
/// Linux keeps one page cache per file, not per descriptor.)
///
/// While one writer writes alone, the hub syncs on its own thread instead (`syncHere`): its
/// write then waits for no hand-off to this thread and back, and nothing else waits.
///
/// This is the one way the hub's commits reach the disk: the tickets are issued here
/// (`issueTicket`), and a thread that must know every commit so far is durable before it
/// goes on (the sync service, before it pushes what was committed) asks here too
/// (`makeDurable`). The first ticket is the log as the hub found it, synced as the thread
/// starts: a commit of an earlier hub that reached the page cache and not the disk is not
/// taken for durable.
///
/// A failed sync is final: the kernel may have dropped the pages it could not write, so no
/// later sync can vouch for them. The hub then stops without acknowledging anything more
/// (see `failure`); SQLite recovers what reached the disk at the next start.
final class WALSyncer: Service, @unchecked Sendable {
  // Safe to share: `requested`, `synced`, `issued`, `isStopping`, `hasEnded` and
  // `waitingForDurable` are read and written only with `condition` locked; `log` only by the
  // syncing thread and `hereLog` only by the hub's (each a descriptor of its own); the rest is
  // atomic or immutable.
  private let condition = NSCondition()
  private var requested = 1
  private var isStopping = false
  /// The syncing thread has returned: nothing more becomes durable.
  private var hasEnded = false
  private var synced = 0
  /// The last ticket issued.
  private var issued = 1
  /// How many threads wait in `makeDurable`: a sync made on the hub's thread wakes nobody
  /// else (the syncing thread, waiting for a ticket, would only wake to sleep again).
  private var waitingForDurable = 0
  private var log: LogFile
  private var hereLog: LogFile
  private let durableTicket = Atomic<Int>(0)
  private let failed = Mutex<String?>(nil)
  /// Rung after each sync (and after a failure): the hub's loop waits on it.
  let bell: Doorbell

  init(databasePath: String) throws {
    log = LogFile(databasePath: databasePath)
    hereLog = LogFile(databasePath: databasePath)
    bell = try Doorbell()
  }

  deinit {
    log.close()
    hereLog.close()
  }

  /// The highest ticket whose commit is durable.
  var durable: Int { durableTicket.load(ordering: .acquiring) }

  /// Why syncing failed, once it has; the hub must stop.
  var failure: String? { failed.withLock { $0 } }

  /// The ticket of a commit just made (the hub's thread): tickets number commits in order.
  func issueTicket() -> Int {
    condition.lock()
    defer { condition.unlock() }
    issued += 1
    return issued
  }

  /// Waits until every commit made so far is durable, on a thread other than the hub's (whose
  /// loop may be what makes it so). Throws when syncing failed or the syncer has ended.
  func makeDurable() throws {
    condition.lock()
    defer { condition.unlock() }
    let ticket = issued
    if ticket > requested {
      requested = ticket
      condition.broadcast()
    }
    waitingForDurable += 1
    defer { waitingForDurable -= 1 }
    while durable < ticket {
      if let failure { throw HubError("the write-ahead log could not be made durable: \(failure)") }
      if hasEnded { throw HubError("the hub is stopping") }
      condition.wait()
    }
  }

  /// Asks for the commits up to `ticket` to be made durable.
  func request(_ ticket: Int) {
    condition.lock()
    if ticket > requested {
      requested = ticket
      condition.broadcast()
    }
    condition.unlock()
  }

  /// Makes the commits up to `ticket` durable on the calling thread (the hub's), if the
  /// syncing thread has nothing to do; false, having done nothing, when it has (then ask it
  /// with `request`). True also when the sync failed: `failure` says so. The bell rings
  /// only for a failure: the caller sends what became durable itself.
  func syncHere(upTo ticket: Int) -> Bool {
    condition.lock()
    guard requested <= synced, !isStopping, failure == nil else {
      condition.unlock()
      return false
    }
    // Taken from the thread: it waits until a ticket past this one is asked for. A sync it
    // makes later begins after this one's commits, so it vouches for them too.
    requested = max(requested, ticket)
    synced = requested
    condition.unlock()
    if let error = hereLog.sync() {
      fail(error)
    } else {
      // No bell: the caller sends what this made durable at once.
      durableTicket.max(ticket, ordering: .releasing)
      condition.lock()
      if waitingForDurable > 0 { condition.broadcast() }
      condition.unlock()
    }
    return true
  }

  let name = "hearthd.sync-wal"

  /// Ends `run` once what was asked for is synced.
  func stop() {
    condition.lock()
    isStopping = true
    condition.broadcast()
    condition.unlock()
  }

  /// The syncing thread's loop: until `stop`, one sync whenever a ticket past the last one
  /// is asked for.
  func run() {
    defer {
      condition.lock()
      hasEnded = true
      condition.broadcast()
      condition.unlock()
    }
    while true {
      condition.lock()
      while requested <= synced, !isStopping { condition.wait() }
      let target = requested
      let isLeft = target > synced
      condition.unlock()
      guard isLeft else { return }  // stopping, and nothing is left to sync
      if let error = log.sync() {
        fail(error)
        return
      }
      condition.lock()
      synced = max(synced, target)
      condition.unlock()
      vouch(for: target)
    }
  }

  /// The commits up to `ticket` are durable (a ticket below the highest vouched for changes
  /// nothing).
  private func vouch(for ticket: Int) {
    durableTicket.max(ticket, ordering: .releasing)
    condition.lock()
    condition.broadcast()
    condition.unlock()
    bell.ring()
  }

  private func fail(_ error: String) {
    failed.withLock { $0 = error }
    condition.lock()
    condition.broadcast()
    condition.unlock()
    bell.ring()
  }
}

/// The write-ahead log as one thread syncs it: a descriptor held while its file is linked
/// (else the one the path names now).
private struct LogFile {
  let walPath: String
  let databasePath: String
  private var descriptor: Int32 = -1
  private var identity: (device: UInt64, inode: UInt64)?

  init(databasePath: String) {
    self.databasePath = databasePath
    walPath = databasePath + "-wal"
  }

  /// Syncs the log as it is now; nil when it is on the disk, else what failed.
  mutating func sync() -> String? {
    // The file held is still linked: SQLite only ever deletes its log (never renames one
    // over it), so it is still the log, and no path look-up is needed. Only the link count
    // is asked for: asking for the file's times before each sync would have every write
    // after it dirty the inode, and every sync write the inode as well (`hearth_link_count`).
    if descriptor >= 0, hearth_link_count(descriptor) > 0 {
      return fdatasync(descriptor) == 0
        ? nil : "fdatasync \(walPath): \(String(cString: strerror(errno)))"
    }
    var status = stat()
    guard stat(walPath, &status) == 0 else {
      // No log: SQLite removed it after a full checkpoint, which synced the database file;
      // syncing the file again costs little and vouches for it.
      close()
      return Self.dataSync(databasePath)
    }
    // The descriptor held while the path still names its file, else a new one.
    let current = (device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    if descriptor < 0 || identity.map({ $0 != current }) ?? true {
      close()
      descriptor = open(walPath, O_RDONLY | O_CLOEXEC)
      guard descriptor >= 0, fstat(descriptor, &status) == 0 else {
        identity = nil
        return "cannot open \(walPath): \(String(cString: strerror(errno)))"
      }
      identity = (UInt64(status.st_dev), UInt64(status.st_ino))
    }
    return fdatasync(descriptor) == 0
      ? nil : "fdatasync \(walPath): \(String(cString: strerror(errno)))"
  }

  mutating func close() {
    if descriptor >= 0 { Glibc.close(descriptor) }
    (descriptor, identity) = (-1, nil)
  }

  /// Syncs the file at `path` through a descriptor opened for it.
  static func dataSync(_ path: String) -> String? {
    let file = open(path, O_RDONLY | O_CLOEXEC)
    guard file >= 0 else { return "cannot open \(path): \(String(cString: strerror(errno)))" }
    defer { Glibc.close(file) }
    return fdatasync(file) == 0 ? nil : "fdatasync \(path): \(String(cString: strerror(errno)))"
  }
}
