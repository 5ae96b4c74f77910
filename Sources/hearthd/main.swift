// hearthd: the Hearth hub. Owns the database, applies the plugins' writes, publishes the
// change bus. See `hearthd --help`, Protocols/README.md and etc/hearthd.service.
//
// parse → configuration → run: the settings become a `HubConfiguration`, the hub and the
// systemd watchdog run as one service group that SIGTERM or SIGINT stops.
import Foundation
import HearthCommandLine
import HearthHub
import HearthService
import HearthSupport
import HearthTransport
import HearthWire

let version = Tool.hearthVersion
let log = Logger(label: "hearthd")

let usage = """
  usage: hearthd [--database PATH] [--runtime-dir DIR] [--config FILE]
                 [--KEY VALUE]… [--version] [--help] [--man]
                 [--completion bash]

  Runs the Hearth hub: the one writer of the database, the request socket
  (ipc://DIR/hub.sock) and the change bus (ipc://DIR/bus.sock).

  Settings, later ones winning: the config file (key = value lines, # comments;
  default $XDG_CONFIG_HOME/hearth/hearthd.conf when it exists; a file named with
  --config must exist; --config none reads none), the environment (HEARTH_DATABASE,
  HEARTH_RUNTIME_DIR), then flags (--KEY VALUE for any key). Keys: database,
  runtime-dir, transaction-timeout (seconds, default 5), max-message-size (bytes,
  default 4194304), max-statements (default 10000), heartbeat-interval (seconds,
  default 1), retention-days (default 7), feed-keep (default 10000),
  prune-interval (seconds, default 60), bus-high-water-mark (default 10000),
  max-queued-requests (default 1000), wal-limit-mb (default 32), checkpoint-wait
  (seconds, default 0.05), checkpoint-retry (seconds, default 0.25),
  checkpoint-interval (seconds, default 0.2; 0 turns the checkpointer thread off),
  sync-server (a PostgreSQL connection string or URL; none: no sync), sync-zone
  (default "default"), sync-page (records a pull applies per commit, default
  1000; a page ends after the push that reaches it), sync-clock-offset-ms (for
  tests: the sync clock's skew, default 0).
  An unknown key or a value out of range: exit 2, nothing started.
  One hub per database: a second one on the same database or sockets exits 1.
  SIGTERM or SIGINT: finish what is in flight, checkpoint, exit 0.
  """

/// hearthd's manual page: its usage, every setting, the files it keeps and its signals.
func manPage() -> ManPage {
  let description = usage.split(separator: "\n", omittingEmptySubsequences: false)
    .drop { !$0.isEmpty }.dropFirst().joined(separator: "\n")
  return ManPage(
    name: "hearthd", summary: "the Hearth hub",
    synopsis: [
      "[--database PATH] [--runtime-dir DIR] [--config FILE|none] [--KEY VALUE]…",
      "--version | --help | --man | --completion bash",
    ],
    sections: [
      .verbatim("Description", description),
      .items(
        "Files",
        [
          .init(
            "$XDG_CONFIG_HOME/hearth/hearthd.conf",
            "The settings, one key = value a line; # starts a comment. Read when it exists."),
          .init(
            "DIR/hub.sock, DIR/hub.stream, DIR/bus.sock", "The sockets; removed on a clean stop."),
          .init("DIR/hub.pub", "The hub's public key, which clients check the hub by."),
          .init("keys/", "The keyring beside the database: the hub's key, each plugin's key."),
        ]),
      .items("Environment", Tool.environmentItems),
      .items(
        "Exit status",
        [
          .init("0", "Stopped cleanly (SIGTERM or SIGINT)."),
          .init(
            "1", "Could not start (another hub serves the database, a bad database) or failed."),
          .init("2", "A bad option or setting, named with its file and line; nothing started."),
        ]),
      .paragraphs("See also", ["hearth(1); Protocols/ and docs/hub.md in Hearth's source."]),
    ],
    version: version)
}

/// The settings of the command line and the config file, as a configuration; exits 2 when
/// they are wrong.
func readConfiguration(from arguments: [String]) -> HubConfiguration {
  if arguments.contains("--help") || arguments.contains("-h") {
    print(usage)
    exit(0)
  }
  if arguments.contains("--version") {
    print("hearthd \(version) (protocol \(WireProtocol.version))")
    exit(0)
  }
  if arguments == ["--man"] {
    print(manPage().roff, terminator: "")
    exit(0)
  }
  if arguments == ["--completion", "bash"] {
    let options = HubConfiguration.settingKeys + ["config", "help", "version", "man"]
    print(bashCompletion(name: "hearthd", options: options), terminator: "")
    exit(0)
  }
  let environment = ProcessInfo.processInfo.environment
  do {
    let input = try CommandInput(
      arguments, valued: Set(HubConfiguration.settingKeys + ["config"]))
    try input.checkFlags([])
    guard input.positionals.isEmpty else {
      throw CommandError.usage("unexpected argument \(input.positionals[0]); see --help")
    }
    // The default file is read when it exists; a file named with --config must exist, and
    // `--config none` reads none (defaults, the environment and flags only).
    let named = input.option("config")
    let file = named ?? HubPaths.defaultConfigFile(environment)
    var text: String?
    if named != "none" {
      if FileManager.default.fileExists(atPath: file) {
        do {
          text = try String(contentsOfFile: file, encoding: .utf8)
        } catch {
          throw CommandError.usage("\(file): cannot be read as UTF-8 text")
        }
      } else if named != nil {
        throw CommandError.usage(
          "\(file): no such config file (--config none starts on the defaults)")
      }
    }
    var flags: [String: String] = [:]
    for key in HubConfiguration.settingKeys { flags[key] = input.option(key) }
    let configuration = try HubConfiguration(
      file: text, fileName: file, environment: environment, flags: flags)
    if text != nil { log.info("settings from \(file)") }
    return configuration
  } catch {
    log.error("\(error); see --help")
    exit(2)
  }
}

let configuration = readConfiguration(from: Array(CommandLine.arguments.dropFirst()))
// Every plugin connection is a descriptor: the soft limit (often 1,024) goes up to the hard
// one, which the unit sets (LimitNOFILE=).
var files = rlimit()
if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &files) == 0, files.rlim_cur < files.rlim_max {
  files.rlim_cur = files.rlim_max
  if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &files) != 0 {
    log.warning("cannot raise the file descriptor limit: \(String(cString: strerror(errno)))")
  }
}
let notifier = SystemdNotifier()
let hub: Hub
do {
  hub = try Hub(configuration: configuration)
} catch {
  log.error("cannot start: \(error)")
  _ = notifier.notify("STATUS=cannot start: \(error)")
  exit(1)
}

// The hub's services (the request loop and its helpers, in the order they stop), then the
// watchdog: one group, stopped by SIGTERM or by any of them ending.
var services: [any Service]
do {
  services = try hub.services {
    let endpoints = "\(configuration.requestEndpoint), bus \(configuration.busEndpoint)"
    log.info(
      "hearthd \(version): serving \(configuration.databasePath) at \(endpoints), "
        + "sequence \(hub.lastSequence)")
    _ = notifier.notify(
      "READY=1\nSTATUS=serving \(configuration.databasePath), sequence \(hub.lastSequence)")
  }
} catch {
  log.error("cannot start: \(error)")
  _ = notifier.notify("STATUS=cannot start: \(error)")
  exit(1)
}
// The first to stop: systemd hears that the stop has begun before the hub's helpers end.
services.insert(
  LoopService("stopping") { loop in
    while loop.wait(for: .seconds(3600)) {}
    _ = notifier.notify("STOPPING=1")
  }, at: 0)
if let interval = notifier.watchdogInterval {
  services.append(
    LoopService("watchdog") { loop in
      while loop.wait(for: interval) {
        if hub.ready { _ = notifier.notify("WATCHDOG=1") }
      }
    })
}
do {
  try ServiceGroup(services, logger: log).run()
  log.info("stopped at sequence \(hub.lastSequence)")
  exit(0)
} catch {
  exit(1)
}
