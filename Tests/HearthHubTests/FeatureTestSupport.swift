import Foundation
import HearthData
import HearthDataTestSupport
import HearthPlugin
import HearthTestbed
import HearthWire
import Testing

/// One run of a feature's command line against a hub.
struct FeatureRun {
  var status: Int32
  var output: String
  var errors: String

  /// The output as JSON.
  func json() throws -> Any {
    try JSONSerialization.jsonObject(with: Data(output.utf8), options: [.fragmentsAllowed])
  }
}

/// Runs the feature executables of this build against one hub.
struct FeatureCLI {
  let executable: String
  let hub: HubProcess

  init(_ name: String, hub: HubProcess) throws {
    executable = try Executables.path(name)
    self.hub = hub
  }

  /// A feature built elsewhere (a plugin outside this package).
  init(path: String, hub: HubProcess) {
    executable = path
    self.hub = hub
  }

  var environment: [String: String] {
    var environment = ProcessInfo.processInfo.environment
    environment["HEARTH_DATABASE"] = hub.databasePath
    environment["HEARTH_RUNTIME_DIR"] = hub.runtimeDirectory
    return environment
  }

  /// Runs the command to its end (`input` on its standard input).
  @discardableResult
  func callAsFunction(_ arguments: String..., input: Data? = nil) throws -> FeatureRun {
    try run(executable, arguments, input: input)
  }

  /// Runs a command that makes a row (`add`, `list-add`…) with `--json` and returns the
  /// made row's id: the `id` of the output, or of its `key` member (`reminder`…).
  func made(_ arguments: String..., key: String? = nil) throws -> String {
    let run = try self.run(executable, arguments + ["--json"])
    #expect(run.status == 0, "\(arguments): \(run.errors)")
    var object = try #require(try run.json() as? [String: Any])
    if let key { object = try #require(object[key] as? [String: Any]) }
    return try #require(object["id"] as? String)
  }

  func run(_ path: String, _ arguments: [String], input: Data? = nil) throws -> FeatureRun {
    // A command that refuses its input exits before reading it all: a write to its closed
    // pipe must fail, not kill the test process.
    signal(SIGPIPE, SIG_IGN)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.environment = environment
    let output = Pipe()
    let errors = Pipe()
    let stdin = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = stdin
    try process.run()
    // Read while it runs, so a large output cannot fill a pipe and stall it; on dispatch
    // threads, not tasks: the test blocks here, and blocked tasks can starve the pool.
    let (outputData, errorData) = (LockedBox(Data()), LockedBox(Data()))
    let reading = DispatchGroup()
    DispatchQueue.global().async(group: reading) {
      outputData.value = output.fileHandleForReading.readDataToEndOfFile()
    }
    DispatchQueue.global().async(group: reading) {
      errorData.value = errors.fileHandleForReading.readDataToEndOfFile()
    }
    if let input { try? stdin.fileHandleForWriting.write(contentsOf: input) }
    try? stdin.fileHandleForWriting.close()
    process.waitUntilExit()
    reading.wait()
    return FeatureRun(
      status: process.terminationStatus,
      output: String(decoding: outputData.value, as: UTF8.self),
      errors: String(decoding: errorData.value, as: UTF8.self))
  }

  /// Starts a long-running command (`run`); its output lines are collected.
  func start(_ arguments: [String]) throws -> (Process, LineCollector) {
    let process = Process()
    let collector = LineCollector()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = environment
    let pipe = collector.pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    return (process, collector)
  }

  /// Starts a command in a terminal of its own (a tmux session on a private server), whose
  /// screen the test reads as a person would see it.
  func startInTerminal(_ arguments: [String]) throws -> TerminalScreen {
    let assignments = ["HEARTH_DATABASE", "HEARTH_RUNTIME_DIR"].map { "\($0)=\(environment[$0]!)" }
    return try TerminalScreen(command: ["env"] + assignments + [executable] + arguments)
  }
}

/// A tmux session running one command on a private tmux server.
final class TerminalScreen {
  let server = "hearth-test-\(UUID().uuidString.prefix(8))"

  init(command: [String]) throws {
    // The tmux server forks from this first client and inherits its descriptors, among them
    // the one through which Foundation's `Process` learns that a child ended: spawn and
    // reap this client directly instead.
    let argv =
      [
        "/usr/bin/tmux", "-L", server, "new-session", "-d", "-s", "main", "-x", "120",
        "-y", "50",
      ] + command
    var pid: pid_t = 0
    var cArguments = argv.map { strdup($0) } + [nil]
    defer { for argument in cArguments { free(argument) } }
    guard posix_spawn(&pid, argv[0], nil, nil, &cArguments, environ) == 0 else {
      throw TestbedError("cannot start tmux")
    }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    guard status == 0 else { throw TestbedError("tmux new-session failed (\(status))") }
  }

  /// Types `keys` (tmux key names: `n`, `Enter`, `Escape`, or text with `-l`).
  func send(_ keys: String...) { _ = try? tmux(["send-keys", "-t", "main"] + keys) }

  /// What the terminal shows now.
  var text: String { (try? tmux(["capture-pane", "-p", "-t", "main"])) ?? "" }

  /// Ends the session: the command, then the server (both killed outright if they linger).
  func stop() {
    let pids = ((try? tmux(["display-message", "-p", "-t", "main", "#{pane_pid} #{pid}"])) ?? "")
      .split(whereSeparator: \.isWhitespace).compactMap { pid_t($0) }
    _ = try? tmux(["kill-server"])
    for pid in pids { kill(pid, SIGKILL) }
  }

  @discardableResult
  private func tmux(_ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/tmux")
    process.arguments = ["-L", server] + arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
  }
}

/// A hearthd process on a fresh directory, ready for requests; `stop()` ends it and removes
/// the directory.
final class LiveHub {
  let directory: URL
  let process: HubProcess

  init() throws {
    directory = try temporaryDirectory()
    process = try HubProcess(directory: directory)
    _ = try process.waitUntilReady()
  }

  func stop() {
    _ = process.terminate()
    try? FileManager.default.removeItem(at: directory)
  }
}

/// A value shared with a task, under a lock.
final class LockedBox<Value>: @unchecked Sendable {
  // Safe: `storage` is only touched under `lock`.
  private let lock = NSLock()
  private var storage: Value
  init(_ value: Value) { storage = value }
  var value: Value {
    get { lock.withLock { storage } }
    set { lock.withLock { storage = newValue } }
  }
}

extension Process {
  func stop() {
    if isRunning { kill(processIdentifier, SIGKILL) }
    waitUntilExit()
  }
}
