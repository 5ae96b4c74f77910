// hearth-loadgen: a small plugin process that writes through the hub and watches other
// plugins' writes. The hub's process tests and benchmarks drive it.
//
//   hearth-loadgen --plugin NAME [--count N] [--watch PLUGIN --expect M] [--try-write PLUGIN]
//                  [--database PATH] [--runtime-dir DIR]
//
// It owns the table `<NAME>_rows (id INTEGER PRIMARY KEY, key TEXT NOT NULL)` and inserts
// rows keyed `<NAME>-<i>`, printing `ack <i> <seq>` after each acknowledged write (so a test
// can check that every acknowledged write is present exactly once). `--watch` keeps a
// @FetchAll on another plugin's rows and prints `saw <count>` as it changes until it reaches
// M; `--try-write` tries to write another plugin's table and prints `refused <code>`.
import Foundation
import HearthBus
import HearthData
import HearthPlugin

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("hearth-loadgen: \(message)\n".utf8))
  exit(1)
}

func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

var plugin = ""
var count = 0
var watch: String?
var expect = 0
var tryWrite: String?
var paths = HubPaths.fromEnvironment()
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
  let argument = arguments.removeFirst()
  guard let value = arguments.first else { fail("\(argument) needs a value") }
  arguments.removeFirst()
  switch argument {
  case "--plugin": plugin = value
  case "--count": count = Int(value) ?? 0
  case "--watch": watch = value
  case "--expect": expect = Int(value) ?? 0
  case "--try-write": tryWrite = value
  case "--database": paths.databasePath = value
  case "--runtime-dir": paths.runtimeDirectory = value
  default: fail("unknown argument \(argument)")
  }
}
guard !plugin.isEmpty else { fail("--plugin is required") }

let table = "\(plugin)_rows"
let registration = PluginRegistration(
  name: plugin, version: "1.0", tables: [table],
  migrations: [
    .init(id: "1", sql: "CREATE TABLE \"\(table)\" (id INTEGER PRIMARY KEY, key TEXT NOT NULL)")
  ])
let database: HubDatabase
do {
  database = try HubDatabase(
    registration, paths: paths, requestTimeout: .seconds(2), maximumAttempts: 200)
} catch {
  fail("cannot register: \(error)")
}
say("registered \(plugin)")

for index in 0..<count {
  do {
    try database.write { db in
      try db.execute(
        sql: "INSERT INTO \"\(table)\" (key) VALUES (?)", arguments: ["\(plugin)-\(index)"])
    }
    say("ack \(index) \(database.lastCommittedSequence)")
  } catch {
    fail("write \(index) failed: \(error)")
  }
}

if let other = tryWrite {
  do {
    try database.write { db in
      try db.execute(sql: "INSERT INTO \"\(other)_rows\" (key) VALUES ('intruder')")
    }
    say("accepted")
  } catch let error as ErrorReply {
    say("refused \(error.code.rawValue)")
  } catch {
    say("refused \(error)")
  }
}

if let other = watch {
  let sql = "SELECT count(*) FROM \"\(other)_rows\""
  let rows = FetchOne(
    wrappedValue: 0, SQLQueryExpression(QueryFragment(raw: sql), as: Int.self), database: database,
    scheduler: .immediate)
  var last = -1
  let deadline = Date().addingTimeInterval(60)
  while Date() < deadline {
    let seen = rows.wrappedValue
    if seen != last {
      say("saw \(seen)")
      last = seen
    }
    if seen >= expect { exit(0) }
    Thread.sleep(forTimeInterval: 0.01)
  }
  fail("saw only \(last) of \(expect) rows of \(other) within 60 s")
}
exit(0)
