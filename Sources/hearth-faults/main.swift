// hearth-faults: the fault suite. Real processes (hearthd, plugin writers, subscribers) are
// killed, stopped, starved of disk and fed bad files; after each scenario the database is
// checked: nothing acknowledged lost, nothing applied twice, nothing half-written.
//
//   hearth-faults [SCENARIO…] [--quick] [--kills N] [--soak-seconds N] [--soak-wal-limit-mb N]
//                 [--soak-rate N]
//
// `scripts/faults` runs it (release build) with the fuzzer; `--quick` is CI's short form.
import Foundation
import HearthCommandLine
import HearthTestbed

struct Options {
  var quick = false
  var kills: Int?
  var soakSeconds: Int?
  /// The hub's `wal-limit-mb` in the soak (to measure what the bound costs).
  var soakWALLimit: Int?
  /// Each soak writer's transactions a second (0: full speed).
  var soakRate: Int?
}

/// A scenario this machine cannot run (said, not counted as a failure).
struct Skipped: Error {
  var reason: String
  init(_ reason: String) { self.reason = reason }
}

struct Scenario {
  var name: String
  var summary: String
  /// Runs the scenario; returns what it established, throws what went wrong.
  var run: (Options) throws -> String
}

let scenarios = [
  Scenario(
    name: "hub-kills", summary: "SIGKILL the hub at random moments under 4 retrying writers",
    run: hubKills),
  Scenario(
    name: "feature-kills",
    summary: "SIGKILL and SIGSTOP plugins mid-transaction and mid-registration",
    run: featureKills),
  Scenario(
    name: "stalled-subscriber",
    summary: "a subscriber stopped past the bus high-water mark catches up exactly",
    run: stalledSubscriber),
  Scenario(
    name: "disk-full", summary: "the disk fills under a writer, then space returns",
    run: diskFull),
  Scenario(
    name: "bad-database",
    summary: "a corrupt or other-format database: refused, left untouched", run: badDatabase),
  Scenario(
    name: "hostile",
    summary: "a hostile local process attacks the hub while an honest plugin writes",
    run: hostile),
  Scenario(
    name: "soak",
    summary: "4 writers for 10 minutes (2 quick) under a live query: WAL, memory, latency hold",
    run: soak),
]

func printError(_ text: String) {
  FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// The options and scenarios of the command line; exits 2 when they are wrong.
@MainActor func parse(_ arguments: [String]) -> (Options, [String]) {
  if arguments.contains("--help") || arguments.contains("-h") {
    print(
      "usage: hearth-faults [SCENARIO…] [--quick] [--kills N] [--soak-seconds N]\n"
        + "                     [--soak-wal-limit-mb N] [--soak-rate N]\n\nscenarios:")
    for scenario in scenarios { print("  \(scenario.name)  \(scenario.summary)") }
    exit(0)
  }
  do {
    let input = try CommandInput(
      arguments, valued: ["kills", "soak-seconds", "soak-wal-limit-mb", "soak-rate"])
    try input.checkFlags(["quick"])
    var options = Options()
    options.quick = input.flag("quick")
    options.kills = try input.integer("kills", in: 1...10_000)
    options.soakSeconds = try input.integer("soak-seconds", in: 1...86_400)
    options.soakWALLimit = try input.integer("soak-wal-limit-mb", in: 1...Int.max)
    options.soakRate = try input.integer("soak-rate", in: 0...1_000_000)
    return (options, input.positionals)
  } catch {
    printError("hearth-faults: \(error); see --help")
    exit(2)
  }
}

let (options, selected) = parse(Array(CommandLine.arguments.dropFirst()))
let unknown = selected.filter { name in !scenarios.contains { $0.name == name } }
guard unknown.isEmpty else {
  printError("hearth-faults: no scenario named \(unknown.joined(separator: ", ")); see --help")
  exit(2)
}
// A child's broken pipe must not end the suite.
signal(SIGPIPE, SIG_IGN)

var failures = 0
for scenario in scenarios where selected.isEmpty || selected.contains(scenario.name) {
  printError("== \(scenario.name): \(scenario.summary)")
  let start = ContinuousClock.now
  do {
    let established = try scenario.run(options)
    let seconds = (ContinuousClock.now - start).components.seconds
    print("ok    \(scenario.name) (\(seconds) s): \(established)")
  } catch let skipped as Skipped {
    print("skip  \(scenario.name): \(skipped.reason)")
  } catch {
    failures += 1
    print("FAIL  \(scenario.name): \(error)")
  }
}
exit(failures == 0 ? 0 : 1)
