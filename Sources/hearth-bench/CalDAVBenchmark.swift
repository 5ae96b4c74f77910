import Foundation
import HearthPlugin
import HearthSQLite
import HearthTestbed
import HearthWire
import RemindersFeature

/// The reminders' CalDAV bridge against Radicale, the self-hosted server people use: the same
/// 10,000 tasks (Tests/python/caldav_bench.py copies Hearth's, text for text, into Radicale's
/// store), the same client (Debian's vdirsyncer): its first full sync, and its sync after one
/// task changed, with its directory in memory, servers alternated, the best of two rounds.
/// Radicale twice: Debian's 3.1.8, and (in a full run) the current one from PyPI, in a
/// virtual environment the bench keeps in .build/radicale-venv.
let calDAVBenchmark = Benchmark(
  name: "caldav",
  summary: "CalDAV: vdirsyncer's first sync and one-change sync, Hearth vs Radicale"
) { options in
  let count = options.value(options.rows, quick: 1_000, full: 10_000)
  let directory = try BenchmarkDirectory()
  let databasePath = directory.path("hearth.sqlite")
  let listID = UUID().uuidString.lowercased()
  let hub = try HubProcess(directory: directory.url, databasePath: databasePath)
  _ = try hub.waitUntilReady()
  defer { _ = hub.terminate() }
  // The tasks, written as the reminders feature through the hub (one write closure).
  do {
    let paths = HubPaths(databasePath: databasePath, runtimeDirectory: hub.runtimeDirectory)
    let database = try HubDatabase(remindersRegistration(), paths: paths)
    try database.write { db in try fillTasks(db, list: listID, count: count) }
  }
  var environment = ProcessInfo.processInfo.environment
  environment["HEARTH_DATABASE"] = databasePath
  environment["HEARTH_RUNTIME_DIR"] = hub.runtimeDirectory
  let reminders = try Executables.path("hearth-reminders")
  let (status, text) = try runToEnd(
    path: reminders, ["caldav-password", "add", "bench", "--json"], environment: environment)
  guard status == 0,
    let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
    let password = object["password"] as? String
  else { throw BenchmarkError("caldav: no app password: \(text)") }
  let server = Process()
  server.executableURL = URL(fileURLWithPath: reminders)
  server.arguments = ["caldav", "--port", "0"]
  server.environment = environment
  let lines = LineCollector()
  server.standardOutput = lines.pipe()
  server.standardError = FileHandle.nullDevice
  try server.run()
  defer {
    server.terminate()
    server.waitUntilExit()
  }
  let deadline = ContinuousClock.now + .seconds(20)
  var root: String?
  while root == nil, ContinuousClock.now < deadline {
    root = lines.lines.first.flatMap { line in
      line.range(of: "http://").map { String(line[$0.lowerBound...].prefix { $0 != " " }) }
    }
    usleep(50_000)
  }
  guard let root else { throw BenchmarkError("caldav: hearth-reminders caldav did not start") }

  var peers = ["radicale-debian=/usr/bin/python3"]
  if !options.quick { peers.append("radicale-pypi=" + (try radicaleVenv())) }
  for peer in peers {
    let python = String(peer.drop { $0 != "=" }.dropFirst())
    let version = try runToEnd(path: python, ["-c", "import radicale; print(radicale.VERSION)"])
    printError(
      "caldav: \(peer.prefix { $0 != "=" }) is Radicale \(version.output.trimmingCharacters(in: .whitespacesAndNewlines))"
    )
  }
  var benchEnvironment = environment
  benchEnvironment["HOME"] = directory.url.path  // vdirsyncer's own files
  benchEnvironment["CALDAV_BENCH_ROUNDS"] = options.quick ? "1" : "2"
  let (benchStatus, output) = try runPythonScript(
    "caldav_bench.py",
    [root + "calendars/\(listID)/", "bench", password, directory.path("clients")] + peers,
    environment: benchEnvironment)
  for line in output.split(separator: "\n") where line.hasPrefix("serve ") {
    printError("caldav: \(line)")
  }
  guard benchStatus == 0, let result = lastJSONObject(output),
    let hearth = result["hearth"] as? [String: Double], result["tasks"] as? Int == count
  else {
    throw BenchmarkError("caldav: caldav_bench.py failed: \(output.suffix(3000))")
  }
  var figures: [Figure] = []
  for peer in peers.map({ String($0.prefix { $0 != "=" }) }) {
    guard let times = result[peer] as? [String: Double] else { continue }
    figures.append(
      Figure(
        bench: "caldav-first-sync-\(count)-vs-\(peer)", ours: hearth["first"]!,
        baseline: times["first"]!, unit: "s"))
    figures.append(
      Figure(
        bench: "caldav-one-change-\(count)-vs-\(peer)", ours: hearth["one"]!,
        baseline: times["one"]!, unit: "s"))
  }
  return figures
}

/// One list of `count` tasks: titles, notes on every third, due dates on every other, some
/// priorities and flags, tags on every fourth.
private func fillTasks(_ db: Database, list: String, count: Int) throws {
  try db.execute(
    sql: "INSERT INTO remindersLists (id, title, position) VALUES (?, 'Tasks', 0)",
    arguments: [list])
  for tag in ["home", "work", "errands"] {
    try db.execute(sql: "INSERT INTO tags (title) VALUES (?)", arguments: [tag])
  }
  let insert = """
    INSERT INTO reminders (id, remindersListID, title, notes, dueDate, isFlagged, priority,
      position) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
    """
  let tagged = "INSERT INTO remindersTags (id, reminderID, tagID) VALUES (?1 || '/' || ?2, ?1, ?2)"
  for index in 0..<count {
    let id = UUID().uuidString.lowercased()
    let due: String? =
      index.isMultiple(of: 2)
      ? String(format: "2027-%02d-%02d 09:00:00.000", index % 12 + 1, index % 28 + 1) : nil
    try db.execute(
      sql: insert,
      arguments: [
        id, list, "Task \(index)", index.isMultiple(of: 3) ? "Notes for task \(index)" : "", due,
        index.isMultiple(of: 7) ? 1 : 0, index.isMultiple(of: 5) ? index % 3 + 1 : nil, index,
      ])
    if index.isMultiple(of: 4) {
      try db.execute(sql: tagged, arguments: [id, ["home", "work", "errands"][index % 3]])
    }
  }
}

/// The Python of a virtual environment with the current Radicale from PyPI, made once.
private func radicaleVenv() throws -> String {
  let venv = Executables.packageRoot.appendingPathComponent(".build/radicale-venv").path
  let python = venv + "/bin/python3"
  if FileManager.default.isExecutableFile(atPath: python),
    (try? runToEnd(path: python, ["-c", "import radicale"]).status) == 0
  {
    return python
  }
  for (path, arguments) in [
    ("/usr/bin/python3", ["-m", "venv", "--clear", venv]),
    (python, ["-m", "pip", "install", "--quiet", "radicale"]),
  ] {
    let (status, output) = try runToEnd(path: path, arguments)
    guard status == 0 else {
      throw BenchmarkError("caldav: \(path) \(arguments.joined(separator: " ")): \(output)")
    }
  }
  return python
}
