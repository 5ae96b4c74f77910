import Foundation

/// A real PostgreSQL server for a test: `initdb` in a new temporary directory, `pg_ctl
/// start` listening on a unix socket there only (no tcp), trust authentication for the
/// superuser `hearth`; `stop()` (or the end of the object) stops it and removes the
/// directory.
///
/// `initdb` refuses to run as root, and CI runs as root: then the server runs as Debian's
/// `postgres` user (through `runuser`), which owns the directory.
public final class PostgresServer: @unchecked Sendable {
  // Safe to share: every stored property is set once in `init`; `stop` guards itself with
  // `lock`.
  public let directory: URL
  public let port: Int
  private let runAs: String?
  private let binaries: String
  private let lock = NSLock()
  private var isRunning = false

  /// The libpq connection string of database `database` on this server, as `user` (a
  /// login the test made; the superuser `hearth` unless said).
  public func conninfo(database: String = "postgres", user: String = "hearth") -> String {
    "host=\(directory.path) port=\(port) user=\(user) dbname=\(database)"
  }

  /// Whether the server syncs its writes to disk (`fsync`): off for tests, whose data need
  /// not survive a power cut; on for figures that must hold for a real server.
  public let fsync: Bool

  public init(fsync: Bool = false) throws {
    self.fsync = fsync
    binaries = try Self.binaryDirectory()
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("hearth-pg-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    port = Int.random(in: 20_000..<60_000)
    runAs = getuid() == 0 ? "postgres" : nil
    if let runAs {
      // The server's user owns its directory; root (the test) still reaches the socket.
      guard chown(directory.path, Self.uid(of: runAs), Self.gid(of: runAs)) == 0 else {
        throw TestbedError("cannot give \(directory.path) to \(runAs)")
      }
    }
    let data = directory.appendingPathComponent("data").path
    try run(
      "initdb", ["-D", data, "-U", "hearth", "--auth=trust", "--no-sync", "-E", "UTF8"])
    try run(
      "pg_ctl",
      [
        "-D", data, "-l", directory.appendingPathComponent("server.log").path, "-w", "-o",
        serverOptions, "start",
      ])
    isRunning = true
  }

  deinit { stop() }

  /// The server's options: its socket in the directory, on `port`, no tcp, fsync as said.
  private var serverOptions: String {
    "-k \(directory.path) -p \(port) -c listen_addresses='' -c fsync=\(fsync ? "on" : "off")"
  }

  /// Stops the server now (fast shutdown: open connections are cut) and removes its files.
  public func stop() {
    lock.lock()
    defer { lock.unlock() }
    guard isRunning else { return }
    isRunning = false
    _ = try? run(
      "pg_ctl", ["-D", directory.appendingPathComponent("data").path, "-m", "fast", "-w", "stop"])
    try? FileManager.default.removeItem(at: directory)
  }

  /// Restarts the server (the same data), cutting every connection: for tests of what a
  /// client does when its server goes away and comes back.
  public func restart() throws {
    try run(
      "pg_ctl",
      [
        "-D", directory.appendingPathComponent("data").path, "-m", "fast", "-w", "-o",
        serverOptions, "restart",
      ])
  }

  /// The server's log, for a failing test's message.
  public var log: String {
    (try? String(contentsOf: directory.appendingPathComponent("server.log"), encoding: .utf8))
      ?? ""
  }

  /// Runs one of the server's programs to its end, with `posix_spawn` rather than
  /// `Process`: the server `pg_ctl` starts inherits every open descriptor, and Foundation
  /// tells a child's end by a descriptor the child holds — so here the child keeps only
  /// stdin (/dev/null) and stdout and stderr (a file), and its end is `waitpid`'s.
  @discardableResult
  private func run(_ tool: String, _ arguments: [String]) throws -> String {
    let path = binaries + "/" + tool
    // bash closes every descriptor past stderr, then becomes the program (posix_spawn's
    // closefrom is not visible to Swift here).
    let closing =
      #"for fd in /proc/$$/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; exec "$@""#
    let argv =
      ["/bin/bash", "-c", closing, "bash"]
      + (runAs.map { ["/usr/sbin/runuser", "-u", $0, "--", path] } ?? [path]) + arguments
    let outputPath = directory.appendingPathComponent("\(tool).out").path
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    var pid: pid_t = 0
    let cArguments = argv.map { strdup($0) } + [nil]
    defer { for argument in cArguments { free(argument) } }
    let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
    guard spawned == 0 else {
      throw TestbedError("cannot start \(argv[0]): \(String(cString: strerror(spawned)))")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    // Exited normally with 0 (the status word's low byte is 0 and the exit code is 0).
    guard status == 0 else {
      throw TestbedError(
        "\(tool) failed (status \(status)): \(text.suffix(2000))\n" + log.suffix(2000))
    }
    return text
  }

  /// Where Debian keeps the server's programs (`pg_config --bindir`), e.g.
  /// /usr/lib/postgresql/15/bin.
  private static func binaryDirectory() throws -> String {
    let (status, output) = try runToEnd(path: "/usr/bin/pg_config", ["--bindir"])
    let directory = output.trimmingCharacters(in: .whitespacesAndNewlines)
    guard status == 0, FileManager.default.fileExists(atPath: directory + "/initdb") else {
      throw TestbedError(
        "no PostgreSQL server programs (pg_config --bindir: \(output)); scripts/setup installs "
          + "postgresql and libpq-dev")
    }
    return directory
  }

  private static func uid(of user: String) -> uid_t { getpwnam(user)?.pointee.pw_uid ?? 0 }
  private static func gid(of user: String) -> gid_t { getpwnam(user)?.pointee.pw_gid ?? 0 }
}
