import Foundation
import HearthSQLite
import HearthTransport
import HearthWire

/// One hub per database, and one per socket directory.
///
/// The database: an exclusive `flock` on `hearthd-<digest of the database's path>.lock` in
/// the keys directory, taken before the database is opened and held while the hub runs.
/// The kernel drops it when the process ends, however it ends, so a SIGKILLed hub never
/// leaves a stale lock behind. The lock file holds the pid of its holder, for the message a
/// second hub prints. It lives with the keys, which no plugin's unit can reach
/// (`InaccessiblePaths=`): a plugin that may read the database could otherwise lock the
/// file and keep the next hub from starting.
///
/// The socket directory: before a hub takes over `hub.sock` and `bus.sock` (unlinking what
/// a crashed hub left), it connects to them; when one answers, a live hub (of another
/// database) serves there, and the new one refuses to start instead of stealing its path.
final class HubLock: Sendable {
  let path: String
  private let descriptor = Locked<Int32>(-1)

  /// Takes the lock of `paths.databasePath`, or throws `HubError` naming who holds it.
  init(paths: HubPaths) throws {
    let databasePath = paths.databasePath
    path = Self.path(paths)
    try FileManager.default.createDirectory(
      atPath: paths.keysDirectory, withIntermediateDirectories: true,
      attributes: [.posixPermissions: 0o700])
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      throw HubError("cannot open the lock file \(path): \(String(cString: strerror(errno)))")
    }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
      let holder = (try? String(contentsOfFile: path, encoding: .utf8))?
        .trimmingCharacters(in: .whitespacesAndNewlines)
      close(fd)
      let who = holder.flatMap { $0.isEmpty ? nil : " (pid \($0))" } ?? ""
      throw HubError(
        "another hearthd\(who) is serving \(databasePath); it holds \(path). Stop it first "
          + "(systemctl --user stop hearthd), or give this one another database.")
    }
    let pid = "\(getpid())\n"
    ftruncate(fd, 0)
    _ = pid.withCString { write(fd, $0, strlen($0)) }
    descriptor.withLock { $0 = fd }
  }

  deinit { release() }

  /// The lock file of `paths.databasePath`: named by its absolute path's digest, so that
  /// databases sharing a keys directory (`keys-dir`) have a lock each.
  static func path(_ paths: HubPaths) -> String {
    let url = URL(fileURLWithPath: paths.databasePath)
    let directory = url.deletingLastPathComponent().path
    let absolute =
      (realpath(directory, nil).map { pointer in
        defer { free(pointer) }
        return String(cString: pointer)
      } ?? directory) + "/" + url.lastPathComponent
    return paths.keysDirectory + "/hearthd-" + SHA256.hex(Data(absolute.utf8)).prefix(16) + ".lock"
  }

  /// Lets the next hub start. Called when the hub stops; safe to call twice.
  func release() {
    descriptor.withLock { fd in
      guard fd >= 0 else { return }
      // The file stays: unlinking it would let a hub starting now lock a file that the
      // next one cannot see.
      close(fd)
      fd = -1
    }
  }

  /// Throws when a live hub answers on one of the ipc socket paths in `directory`.
  static func checkSocketsAreFree(in directory: String) throws {
    for name in ["hub.sock", "bus.sock"] {
      let path = directory + "/" + name
      guard HubPaths.socketAnswers(at: path) else { continue }
      throw HubError(
        "a hub is already serving at ipc://\(path) (of another database?); this one refuses "
          + "to take its sockets. Stop it first, or give this one another runtime directory.")
    }
  }
}
