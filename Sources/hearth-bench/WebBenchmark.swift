import Foundation
import HearthSQLite
import HearthTestbed
import HearthTransport
import HearthWire
import RemindersFeature

/// hearth-web in Chromium (Tests/python/web_bench.py measures in the page): a commit → its
/// row in the open page's DOM at 50 commits a second, against the same commit → a bus
/// subscriber; a burst of 1,000 commits on the feed page, all shown and none twice; the
/// `reminders` table's page loaded with 100,000 reminders, against the login page.
let webBenchmark = Benchmark(
  name: "web",
  summary: "hearth-web in Chromium: commit → DOM at 50/s, a 1,000-commit burst, page load"
) { options in
  let reminders = options.value(options.rows, quick: 10_000, full: 100_000)
  let commits = options.value(options.writes, quick: 100, full: 500)
  let loads = options.value(options.rounds, quick: 5, full: 20)
  let directory = try BenchmarkDirectory()
  let databasePath = directory.path("hearth.sqlite")
  // The reminders first, as the reminders feature's schema has them.
  do {
    let database = try DatabaseQueue(path: databasePath)
    try migrator.migrate(database)
    try database.write { db in try fillReminders(db, count: reminders) }
  }
  let hub = try HubProcess(directory: directory.url, databasePath: databasePath)
  _ = try hub.waitUntilReady()
  defer { _ = hub.terminate() }
  let keyring = HubPaths(databasePath: databasePath, runtimeDirectory: hub.runtimeDirectory)
    .keyring
  try keyring.issue("webbench")
  let (status, output) = try runPythonScript(
    "web_bench.py",
    [
      hub.runtimeDirectory, databasePath, keyring.keyPath(ofPlugin: "webbench"),
      try Executables.path("hearth-web"), String(commits), String(loads),
    ])
  guard status == 0, let result = lastJSONObject(output),
    let dom = result["dom_ms"] as? [Double], let bus = result["bus_ms"] as? [Double],
    let sent = result["burst_sent"] as? Int, let shown = result["burst_shown"] as? Int,
    let twice = result["burst_twice"] as? Int, let load = result["load_ms"] as? [Double],
    let login = result["login_ms"] as? [Double], let rows = result["reminders"] as? Int
  else {
    throw BenchmarkError("web: web_bench.py failed: \(output.suffix(3000))")
  }
  guard rows == reminders else {
    throw BenchmarkError("web: the page counted \(rows) reminders, not \(reminders)")
  }
  guard shown == sent, twice == 0 else {
    throw BenchmarkError("web: of \(sent) commits, the feed page showed \(shown), \(twice) twice")
  }
  return [
    Figure(
      bench: "web-commit-dom-p50", ours: percentile(dom, 0.5), baseline: percentile(bus, 0.5),
      unit: "ms"),
    Figure(
      bench: "web-commit-dom-p99", ours: percentile(dom, 0.99), baseline: percentile(bus, 0.99),
      unit: "ms"),
    Figure(
      bench: "web-burst-1000-shown", ours: Double(shown), baseline: Double(sent), unit: "commits"),
    Figure(
      bench: "web-page-load-\(reminders)-p95", ours: percentile(load, 0.95),
      baseline: percentile(login, 0.95), unit: "ms"),
  ]
}

/// The last line of a script's output that is a JSON object (its result; what came before
/// is its log).
func lastJSONObject(_ output: String) -> [String: Any]? {
  output.split(separator: "\n").last { $0.hasPrefix("{") }.flatMap {
    try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
  }
}
