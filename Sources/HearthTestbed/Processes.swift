// Real processes for tests, benchmarks and the fault suite: hearthd with a NOTIFY_SOCKET
// listener, hearth-loadgen writers, `hearth subscribe` followers, and what to measure of
// them. Everything here starts executables of this build (beside the running binary).
import Foundation
import HearthTransport

/// The executables of this build, beside the running binary (the test runner, hearth-bench,
/// hearth-faults).
public enum Executables {
  public static let directory = URL(fileURLWithPath: CommandLine.arguments[0])
    .resolvingSymlinksInPath().deletingLastPathComponent()

  public static func path(_ name: String) throws -> String {
    let path = directory.appendingPathComponent(name).path
    guard FileManager.default.isExecutableFile(atPath: path) else {
      throw TestbedError("\(name) is not built at \(path); build it first (`swift build`)")
    }
    return path
  }

  public static let packageRoot = URL(fileURLWithPath: #filePath)  // <root>/Sources/<target>/<file>
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

/// Something a process-level test or fault scenario did not get.
public struct TestbedError: Error, CustomStringConvertible, Sendable {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// A datagram socket that plays systemd's NOTIFY_SOCKET.
public final class NotifyListener {
  public var path: String { socket.path }
  private let socket: UnixDatagram.Receiver

  public init(path: String) throws {
    socket = try UnixDatagram.Receiver(path: path)
  }

  /// Waits until a datagram containing `text` arrives; returns every message seen.
  public func wait(for text: String, timeout: Duration = .seconds(20)) throws -> [String] {
    var seen: [String] = []
    let deadline = ContinuousClock.now + timeout
    while case let left = deadline - ContinuousClock.now, left > .zero {
      guard let datagram = try socket.receive(timeout: left) else { continue }
      let message = String(decoding: datagram, as: UTF8.self)
      seen.append(message)
      if message.contains(text) { return seen }
    }
    throw TestbedError("no \(text) from the hub within \(timeout); got \(seen)")
  }
}

/// A hearthd process over a directory.
public final class HubProcess {
  public let directory: URL
  public let process = Process()
  public let notify: NotifyListener
  public let log: URL

  public let databasePath: String
  public let runtimeDirectory: String

  /// Starts hearthd over `directory` (its log and, unless `databasePath` and
  /// `runtimeDirectory` say otherwise, its database and its sockets in `run/`).
  public init(
    directory: URL, databasePath: String? = nil, runtimeDirectory: String? = nil,
    transactionTimeout: Double = 2, config: String? = nil
  ) throws {
    self.directory = directory
    self.databasePath = databasePath ?? directory.appendingPathComponent("hearth.sqlite").path
    self.runtimeDirectory = runtimeDirectory ?? directory.appendingPathComponent("run").path
    notify = try NotifyListener(
      path: directory.appendingPathComponent("notify-\(UUID().uuidString.prefix(6)).sock").path)
    log = directory.appendingPathComponent("hub-\(UUID().uuidString.prefix(6)).log")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    process.executableURL = URL(fileURLWithPath: try Executables.path("hearthd"))
    process.arguments = [
      "--database", self.databasePath, "--runtime-dir", self.runtimeDirectory,
      "--transaction-timeout", String(transactionTimeout), "--config", "none",
    ]
    if let config {
      let file = directory.appendingPathComponent("hearthd.conf")
      try config.write(to: file, atomically: true, encoding: .utf8)
      process.arguments! += ["--config", file.path]
    }
    var environment = ProcessInfo.processInfo.environment
    environment["NOTIFY_SOCKET"] = notify.path
    process.environment = environment
    process.standardError = try FileHandle(forWritingTo: log)
    try process.run()
  }

  public func waitUntilReady() throws -> [String] { try notify.wait(for: "READY=1") }

  public func terminate() -> Int32 {
    process.terminate()
    process.waitUntilExit()
    return process.terminationStatus
  }

  public func kill() {
    Foundation.kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  public var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
}

/// Collects the lines a child process writes to a pipe.
public final class LineCollector: @unchecked Sendable {
  // Safe: `buffer` and `collected` are only touched under `lock`.
  private let lock = NSLock()
  private var buffer: [UInt8] = []
  private var collected: [String] = []

  public init() {}

  /// A pipe whose lines end up in `lines`, read by a thread of its own until the end of the
  /// output. (Not a `readabilityHandler`: on Linux its dispatch source races with the
  /// handle's release and can crash the whole test process.)
  public func pipe() -> Pipe {
    let pipe = Pipe()
    let descriptor = pipe.fileHandleForReading.fileDescriptor
    let thread = Thread { [self] in
      var chunk = [UInt8](repeating: 0, count: 65_536)
      while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { break }
        append(chunk[..<count])
      }
      // The pipe (and so the descriptor read) lives until the end of the output.
      withExtendedLifetime(pipe) {}
    }
    thread.name = "hearth.testbed.lines"
    thread.start()
    return pipe
  }

  private func append(_ bytes: ArraySlice<UInt8>) {
    lock.lock()
    defer { lock.unlock() }
    // Bytes until a whole line: a character may be split between two reads.
    buffer += bytes
    while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
      collected.append(String(decoding: buffer[..<newline], as: UTF8.self))
      buffer.removeSubrange(...newline)
    }
  }

  public var lines: [String] {
    lock.lock()
    defer { lock.unlock() }
    return collected
  }
}

/// A hearth-loadgen process; its output lines are collected.
public final class LoadgenProcess: Sendable {
  public let process = Process()
  private let output = LineCollector()

  public init(hub: HubProcess, arguments: [String]) throws {
    process.executableURL = URL(fileURLWithPath: try Executables.path("hearth-loadgen"))
    process.arguments =
      arguments + ["--database", hub.databasePath, "--runtime-dir", hub.runtimeDirectory]
    let pipe = output.pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
  }

  public var lines: [String] { output.lines }

  /// Waits until the process has printed `line`.
  public func waitForLine(_ line: String, timeout: Duration = .seconds(30)) throws {
    try waitUntil("hearth-loadgen printing \(line) (\(lines.suffix(3)))", timeout: timeout) {
      lines.contains(line)
    }
  }

  public func signal(_ number: Int32) { kill(process.processIdentifier, number) }

  public var acknowledged: [Int] {
    lines.compactMap { line in
      let parts = line.split(separator: " ")
      return parts.first == "ack" ? Int(parts[1]) : nil
    }
  }

  public func waitForExit(timeout: Duration = .seconds(120)) throws -> Int32 {
    let deadline = ContinuousClock.now + timeout
    while process.isRunning {
      if ContinuousClock.now > deadline {
        process.terminate()
        throw TestbedError(
          "hearth-loadgen still running after \(timeout); output: \(lines.suffix(5))")
      }
      Thread.sleep(forTimeInterval: 0.01)
    }
    Thread.sleep(forTimeInterval: 0.05)  // the last output
    return process.terminationStatus
  }
}

public func temporaryDirectory() throws -> URL {
  let directory = FileManager.default.temporaryDirectory
    .appendingPathComponent("hearth-proc-\(UUID().uuidString.prefix(8))")
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  return directory
}

/// `hearth subscribe` as a process; its JSON lines are collected.
public final class SubscriberProcess: Sendable {
  public let process = Process()
  private let output = LineCollector()

  public init(hub: HubProcess, arguments: [String]) throws {
    process.executableURL = URL(fileURLWithPath: try Executables.path("hearth"))
    process.arguments =
      ["subscribe"] + arguments + [
        "--database", hub.databasePath, "--runtime-dir", hub.runtimeDirectory,
      ]
    process.standardOutput = output.pipe()
    try process.run()
  }

  /// The sequence numbers of the commits printed so far.
  public var sequences: [Int64] {
    output.lines.compactMap { line in
      let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      return (object?["seq"] as? NSNumber)?.int64Value
    }
  }

  public func signal(_ number: Int32) { kill(process.processIdentifier, number) }

  /// Ends the process with SIGKILL: a child may inherit an ignored SIGTERM from the test
  /// runner.
  public func stop() {
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }
}

/// Resident memory of a process, in kilobytes (`VmRSS`; `VmHWM` for its peak).
public func residentKilobytes(_ pid: Int32, peak: Bool = false) throws -> Int {
  let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
  let field = peak ? "VmHWM:" : "VmRSS:"
  guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
    let kilobytes = line.split(separator: " ").compactMap({ Int($0) }).first
  else { throw TestbedError("no \(field) for \(pid)") }
  return kilobytes
}

/// Waits for `condition`, checking every few milliseconds; throws after `timeout`.
public func waitUntil(
  _ what: @autoclosure () -> String, timeout: Duration = .seconds(30),
  _ condition: () throws -> Bool
) throws {
  let deadline = ContinuousClock.now + timeout
  while try !condition() {
    guard ContinuousClock.now < deadline else {
      throw TestbedError("\(what()) did not happen within \(timeout)")
    }
    Thread.sleep(forTimeInterval: 0.005)
  }
}

/// Runs an executable of this build to its end; its status and what it printed (stdout and
/// stderr together).
public func runToEnd(_ name: String, _ arguments: [String]) throws -> (
  status: Int32, output: String
) {
  try runToEnd(path: try Executables.path(name), arguments)
}

/// Runs the executable at `path` to its end, in `environment` (this process's when nil);
/// its status and what it printed (stdout and stderr together).
public func runToEnd(path: String, _ arguments: [String], environment: [String: String]? = nil)
  throws -> (status: Int32, output: String)
{
  let process = Process()
  process.executableURL = URL(fileURLWithPath: path)
  process.arguments = arguments
  if let environment { process.environment = environment }
  let pipe = Pipe()
  process.standardOutput = pipe
  process.standardError = pipe
  try process.run()
  let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  process.waitUntilExit()
  return (process.terminationStatus, output)
}

/// Runs one of `Tests/python`'s scripts with Debian's Python (whose modules — pyzmq,
/// selenium, caldav — the scripts need) to its end; its status and what it printed.
public func runPythonScript(
  _ script: String, _ arguments: [String], environment: [String: String]? = nil
) throws -> (status: Int32, output: String) {
  try runToEnd(
    path: "/usr/bin/python3",
    [Executables.packageRoot.appendingPathComponent("Tests/python/\(script)").path] + arguments,
    environment: environment)
}

/// The first time each key was seen (on the monotonic clock, the same in every thread and
/// process): when a commit, an event or a live query's new value arrived.
public final class Recorder: @unchecked Sendable {
  // Safe: `times` is only touched under `condition`'s lock.
  private let condition = NSCondition()
  private var times: [Int64: UInt64] = [:]

  public init() {}

  public func record(_ key: Int64) {
    let now = DispatchTime.now().uptimeNanoseconds
    condition.lock()
    if times[key] == nil { times[key] = now }
    condition.broadcast()
    condition.unlock()
  }

  public func time(of key: Int64) -> UInt64? {
    condition.lock()
    defer { condition.unlock() }
    return times[key]
  }

  /// When `key` was seen, waiting (asleep, not polling) until `deadline` for it; nil when it
  /// was not seen by then.
  public func waitForTime(of key: Int64, until deadline: Date) -> UInt64? {
    condition.lock()
    defer { condition.unlock() }
    while times[key] == nil, condition.wait(until: deadline) {}
    return times[key]
  }
}
