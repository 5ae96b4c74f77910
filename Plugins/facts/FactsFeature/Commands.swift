// hearth-facts: number facts worked out locally; ask for one, list, search, delete, count;
// `run` picks a fact of the day. The commands read and render; `FactActions` does the work,
// on the database the executable prepared (`@Dependency(\.defaultDatabase)`).
import Foundation
import HearthData
import HearthPlugin

func line(_ fact: Fact) -> String { ShortID.of(fact.id) + "  " + fact.body }

func render(_ value: Facts.Value, query: String) -> String {
  let lines = value.facts.isEmpty ? ["No facts yet: `hearth-facts add 42`."] : value.facts.map(line)
  let counts =
    query.isEmpty
    ? "\(value.totalCount) fact(s)"
    : "\(value.searchCount) of \(value.totalCount) fact(s) match \"\(query)\""
  return (lines + ["", counts]).joined(separator: "\n")
}

func number(_ input: CommandInput) throws -> Int {
  let text = try input.positional(0, name: "NUMBER")
  guard let value = Int(text) else {
    throw CommandError.usage(
      "NUMBER must be a whole number between \(Int.min) and \(Int.max), not '\(text)'")
  }
  return value
}

let add = Command("add", arguments: "NUMBER", summary: "works out a fact about NUMBER and keeps it")
{
  input in
  @Dependency(\.defaultDatabase) var database
  @Dependency(\.date.now) var now
  let value = try number(input)
  let fact = try database.write { try FactActions.addFact(about: value, now: now, $0) }
  return .values(fact) { "Saved:\n" + line($0) }
}

let list = Command("list", summary: "the facts, newest first, with the count") { _ in
  @Dependency(\.defaultDatabase) var database
  return .values(try database.read { try Facts().fetch($0) }) { render($0, query: "") }
}

let search = Command(
  "search", arguments: "TEXT…", summary: "the facts containing TEXT, with counts"
) {
  input in
  @Dependency(\.defaultDatabase) var database
  let query = try input.text(from: 0, name: "TEXT")
  return .values(try database.read { try Facts(query: query).fetch($0) }) {
    render($0, query: query)
  }
}

let delete = Command("delete", arguments: "ID…", summary: "deletes facts") { input in
  @Dependency(\.defaultDatabase) var database
  let handles = input.positionals
  guard !handles.isEmpty else { throw CommandError.usage("missing ID") }
  let ids = try database.write { try FactActions.delete(handles, $0) }
  return .message(
    "Deleted \(ids.map(ShortID.of).joined(separator: ", ")).",
    json: ["ids": ids.map(\.uuidString)])
}

let count = Command("count", summary: "how many facts, and about how many numbers") { _ in
  @Dependency(\.defaultDatabase) var database
  let (facts, numbers) = try database.read(FactActions.counts)
  return .message(
    "\(facts) fact(s) about \(numbers) number(s).", json: ["facts": facts, "numbers": numbers])
}

let today = Command("today", summary: "the fact of the day, once the run duty has picked it") { _ in
  @Dependency(\.defaultDatabase) var database
  @Dependency(\.date.now) var now
  guard let fact = try database.read({ try FactActions.factOfTheDay(now: now, $0) }) else {
    throw CommandError.notFound(
      "no fact of the day yet; `hearth-facts run` (hearth-feature@facts) picks one")
  }
  return .values(fact) { "Fact of the day: \($0.body)" }
}

let watchFacts = Command(
  "watch", arguments: "[TEXT]", summary: "the facts, redrawn live as they change"
) {
  input in
  @Dependency(\.defaultDatabase) var database
  let query = input.positionals.joined(separator: " ")
  watch(database, tables: [Fact.tableName], title: "hearth-facts") {
    try render(database.read { try Facts(query: query).fetch($0) }, query: query)
  }
}

let run = Command(
  "run", arguments: "[--interval S]",
  summary: "the background duty: a fact of the day (what hearth-feature@facts runs)",
  valuedOptions: ["interval"]
) { input in
  @Dependency(\.defaultDatabase) var database
  let interval = try input.seconds("interval", default: 60, in: 0.01...3600)
  runDuties(name: "facts", interval: .milliseconds(Int(interval * 1000))) {
    @Dependency(\.date) var date
    if let fact = try database.write({ try FactActions.pickFactOfTheDay(now: date(), $0) }) {
      Logger(label: "facts").info("fact of the day: \(fact.body)")
    }
  }
}

/// The command line of the feature.
package func factsTool() -> Tool {
  Tool.feature(
    name: "hearth-facts", summary: "facts about numbers, worked out on this machine",
    commands: [add, list, search, delete, count, today, watchFacts, run])
}
