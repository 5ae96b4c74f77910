// hearthd: the Hearth hub. Owns the database, applies the plugins' writes, publishes the
// change bus. See `hearthd --help`, Protocols/README.md and etc/hearthd.service.
import Dispatch
import Foundation
import HearthHub
import HearthWire

let version = "0.1.0"

func log(_ priority: Int, _ message: String) {
  // journald reads the <N> prefix as the priority (3 error, 4 warning, 6 info).
  FileHandle.standardError.write(Data("<\(priority)>\(message)\n".utf8))
}

let usage = """
  usage: hearthd [--database PATH] [--runtime-dir DIR] [--config FILE]
                 [--transaction-timeout SECONDS] [--version] [--help]

  Runs the Hearth hub: the one writer of the database, the request socket
  (ipc://DIR/hub.sock) and the change bus (ipc://DIR/bus.sock).

  Settings, later ones winning: the config file (key = value lines; default
  $XDG_CONFIG_HOME/hearth/hearthd.conf), the environment (HEARTH_DATABASE,
  HEARTH_RUNTIME_DIR), then these flags. Keys: database, runtime-dir,
  transaction-timeout, max-message-size, heartbeat-interval, retention-days,
  feed-keep, prune-interval, bus-high-water-mark, max-queued-requests,
  wal-limit-mb (default 32),
  checkpoint-wait (seconds, default 0.05), checkpoint-retry (seconds, default
  0.25), checkpoint-interval (seconds, default 0.2; 0 turns the checkpointer
  thread off).
  One hub per database: a second one on the same database or sockets exits 1.
  SIGTERM or SIGINT: finish what is in flight, checkpoint, exit 0.
  """

var configuration = HubConfiguration()
var settings: [String: String] = [:]
let environment = ProcessInfo.processInfo.environment
let configHome =
  environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
  ?? (NSHomeDirectory() + "/.config")
var configFile = configHome + "/hearth/hearthd.conf"
var flags: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  switch argument {
  case "--help", "-h":
    print(usage)
    exit(0)
  case "--version":
    print("hearthd \(version) (protocol \(WireProtocol.version))")
    exit(0)
  case "--config", "--database", "--runtime-dir", "--transaction-timeout":
    guard let value = arguments.popFirst() else {
      log(3, "hearthd: \(argument) needs a value; see --help")
      exit(2)
    }
    if argument == "--config" {
      configFile = value
    } else {
      flags[String(argument.dropFirst(2))] = value
    }
  default:
    log(3, "hearthd: unknown argument \(argument); see --help")
    exit(2)
  }
}

if let text = try? String(contentsOfFile: configFile, encoding: .utf8) {
  for line in text.split(separator: "\n") {
    let trimmed = line.trimmingCharacters(in: .whitespaces)
    guard !trimmed.isEmpty, !trimmed.hasPrefix("#"), let equals = trimmed.firstIndex(of: "=") else {
      continue
    }
    settings[trimmed[..<equals].trimmingCharacters(in: .whitespaces)] =
      trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
  }
}
if let value = environment["HEARTH_DATABASE"], !value.isEmpty { settings["database"] = value }
if let value = environment["HEARTH_RUNTIME_DIR"], !value.isEmpty { settings["runtime-dir"] = value }
settings.merge(flags) { $1 }

func seconds(_ key: String, in settings: [String: String]) -> Duration? {
  guard let text = settings[key] else { return nil }
  guard let value = Double(text), value > 0 else {
    log(3, "hearthd: \(key) must be a positive number of seconds, not \(text)")
    exit(2)
  }
  return .milliseconds(Int64(value * 1000))
}

if let path = settings["database"] { configuration.paths.databasePath = path }
if let directory = settings["runtime-dir"] { configuration.paths.runtimeDirectory = directory }
if let timeout = seconds("transaction-timeout", in: settings) {
  configuration.transactionTimeout = timeout
}
if let interval = seconds("heartbeat-interval", in: settings) {
  configuration.heartbeatInterval = interval
}
if let days = settings["retention-days"].flatMap(Double.init) {
  configuration.feedRetention = .seconds(Int64(days * 86_400))
}
if let count = settings["feed-keep"].flatMap(Int64.init), count >= 0 {
  configuration.feedKeepRecent = count
}
if let interval = seconds("prune-interval", in: settings) {
  configuration.pruneInterval = interval
}
if let text = settings["max-queued-requests"] {
  guard let count = Int(text), count > 0 else {
    log(3, "hearthd: max-queued-requests must be a positive number, not \(text)")
    exit(2)
  }
  configuration.maximumQueuedRequests = count
}
if let mark = settings["bus-high-water-mark"].flatMap(Int32.init), mark > 0 {
  configuration.busHighWaterMark = Int(mark)
}
if let size = settings["max-message-size"].flatMap(Int.init) {
  configuration.maximumMessageSize = size
}
if let text = settings["wal-limit-mb"] {
  guard let megabytes = Double(text), megabytes >= 1 else {
    log(3, "hearthd: wal-limit-mb must be a number of megabytes, at least 1, not \(text)")
    exit(2)
  }
  configuration.walLimit = Int(megabytes * 1_048_576)
}
if let wait = seconds("checkpoint-wait", in: settings) {
  configuration.checkpointWait = wait
}
if let delay = seconds("checkpoint-retry", in: settings) {
  configuration.checkpointRetryDelay = delay
}
if settings["checkpoint-interval"].flatMap(Double.init) == 0 {
  configuration.checkpointInterval = .zero
} else if let interval = seconds("checkpoint-interval", in: settings) {
  configuration.checkpointInterval = interval
}

let notifier = SystemdNotifier()
let hub: Hub
do {
  hub = try Hub(configuration: configuration)
} catch {
  log(3, "hearthd: cannot start: \(error)")
  notifier.notify("STATUS=cannot start: \(error)")
  exit(1)
}

// Signals arrive on a dispatch queue; the hub's loop notices the stop within 50 ms. The
// sources live as long as the program (top-level constants).
/// The handler of a stop signal, made outside top-level code so that it is not tied to the
/// main actor (it runs on a dispatch queue).
func stopHandler(_ hub: Hub, _ notifier: SystemdNotifier, _ signalNumber: Int32)
  -> @Sendable () -> Void
{
  return {
    log(6, "hearthd: stopping (signal \(signalNumber))")
    notifier.notify("STOPPING=1")
    hub.stop()
  }
}

let signalSources = [SIGTERM, SIGINT].map { signalNumber in
  signal(signalNumber, SIG_IGN)
  let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
  source.setEventHandler(handler: stopHandler(hub, notifier, signalNumber))
  source.resume()
  return source
}

if let interval = notifier.watchdogInterval {
  Thread.detachNewThread {
    while true {
      Thread.sleep(forTimeInterval: interval.timeInterval)
      if hub.ready { notifier.notify("WATCHDOG=1") }
    }
  }
}

do {
  try hub.run {
    log(
      6,
      "hearthd \(version): serving \(configuration.databasePath) at \(configuration.requestEndpoint), bus \(configuration.busEndpoint), sequence \(hub.lastSequence)"
    )
    notifier.notify(
      "READY=1\nSTATUS=serving \(configuration.databasePath), sequence \(hub.lastSequence)")
  }
  log(6, "hearthd: stopped at sequence \(hub.lastSequence)")
  withExtendedLifetime(signalSources) {}
  exit(0)
} catch {
  log(3, "hearthd: \(error)")
  exit(1)
}
