// hearth-facts: number facts worked out locally; ask for one, list, search, delete, count;
// `run` picks a fact of the day.
import Foundation
import HearthData
import HearthPlugin

@Table
struct Fact: Codable, Hashable, Identifiable {
  let id: Int
  var number: Int
  var body = ""
  var createdAt: Date
}

/// The fact of a day, chosen by the `run` duty.
@Table("dailyFacts")
struct DailyFact: Codable, Hashable {
  @Column(primaryKey: true)
  var day: String
  var factID: Fact.ID
}

let ownedTables = ["facts", "dailyFacts"]

package var migrator: DatabaseMigrator {
  var migrator = DatabaseMigrator()
  migrator.registerMigration("Create facts") { db in
    try #sql(
      """
      CREATE TABLE "facts" (
        "id" INTEGER PRIMARY KEY AUTOINCREMENT,
        "number" INTEGER NOT NULL,
        "body" TEXT NOT NULL,
        "createdAt" TEXT NOT NULL
      ) STRICT;
      CREATE INDEX "facts_number" ON "facts"("number");
      CREATE TABLE "dailyFacts" (
        "day" TEXT PRIMARY KEY NOT NULL,
        "factID" INTEGER NOT NULL REFERENCES "facts"("id") ON DELETE CASCADE
      ) STRICT;
      """
    )
    .execute(db)
  }
  return migrator
}

/// The seeds' `Facts` request: the facts matching a search, newest first, with the search's
/// count and the total.
struct Facts: FetchKeyRequest {
  var query = ""
  struct Value: Codable {
    var facts: [Fact] = []
    var searchCount = 0
    var totalCount = 0
  }

  func fetch(_ db: Database) throws -> Value {
    let search =
      Fact
      .where { $0.body.contains(query) }
      .order { $0.id.desc() }
    return try Value(
      facts: search.fetchAll(db),
      searchCount: search.fetchCount(db),
      totalCount: Fact.fetchCount(db)
    )
  }
}

/// The hub connection of this process, registering the feature on first use.
func database() throws -> HubDatabase {
  try .shared(
    PluginRegistration(name: "facts", version: "1.0", tables: ownedTables, migrator: migrator))
}

func line(_ fact: Fact) -> String { String(format: "%4d  ", fact.id) + fact.body }

func render(_ value: Facts.Value, query: String) -> String {
  let lines = value.facts.isEmpty ? ["No facts yet: `hearth-facts add 42`."] : value.facts.map(line)
  let counts =
    query.isEmpty
    ? "\(value.totalCount) fact(s)"
    : "\(value.searchCount) of \(value.totalCount) fact(s) match \"\(query)\""
  return (lines + ["", counts]).joined(separator: "\n")
}

/// Stores a new fact about `number`: the first one it knows that is not stored yet, or the
/// next in turn when all are.
func addFact(about number: Int, _ db: Database, now: Date) throws -> Fact {
  let known = NumberFacts.all(about: number)
  let stored = try Fact.where { $0.number.eq(number) }.select(\.body).fetchAll(db)
  let body =
    known.first { !stored.contains($0) } ?? known[stored.count % known.count]
  return try Fact.insert { Fact.Draft(number: number, body: body, createdAt: now) }
    .returning(\.self).fetchOne(db)!
}

/// The `run` duty: picks today's fact (a fact about the day of the year), once a day.
func pickFactOfTheDay(_ db: Database, now: Date) throws -> Fact? {
  let formatter = DateFormatter()
  formatter.dateFormat = "yyyy-MM-dd"
  let day = formatter.string(from: now)
  guard try DailyFact.find(day).fetchOne(db) == nil else { return nil }
  let number = Calendar.current.ordinality(of: .day, in: .year, for: now) ?? 1
  let fact = try addFact(about: number, db, now: now)
  try DailyFact.insert { DailyFact(day: day, factID: fact.id) }.execute(db)
  return fact
}

func number(_ input: CommandInput) throws -> Int {
  let text = try input.positional(0, name: "NUMBER")
  guard let value = Int(text) else {
    throw CommandError.usage(
      "NUMBER must be a whole number between \(Int.min) and \(Int.max), not '\(text)'")
  }
  return value
}

package func factsTool() -> Tool {
  var commands: [Command] = []
  commands.append(
    Command("add", arguments: "NUMBER", summary: "works out a fact about NUMBER and keeps it") {
      input in
      let value = try number(input)
      let fact = try database().write { try addFact(about: value, $0, now: Date()) }
      return .values(fact) { "Saved:\n" + line($0) }
    })
  commands.append(
    Command("list", summary: "the facts, newest first, with the count") { _ in
      let value = try database().read { try Facts().fetch($0) }
      return .values(value) { render($0, query: "") }
    })
  commands.append(
    Command("search", arguments: "TEXT…", summary: "the facts containing TEXT, with counts") {
      input in
      let query = try input.text(from: 0, name: "TEXT")
      let value = try database().read { try Facts(query: query).fetch($0) }
      return .values(value) { render($0, query: query) }
    })
  commands.append(
    Command("delete", arguments: "ID…", summary: "deletes facts") { input in
      let ids = try input.positionals.indices.map {
        try input.positional($0, as: Int.self, name: "ID")
      }
      guard !ids.isEmpty else { throw CommandError.usage("missing ID") }
      try database().write { db in
        for id in ids where try Fact.find(id).fetchOne(db) == nil {
          throw CommandError.notFound("no fact \(id); `hearth-facts list` shows them")
        }
        try Fact.where { $0.id.in(ids) }.delete().execute(db)
      }
      return .message(
        "Deleted \(ids.map(String.init).joined(separator: ", ")).", json: ["ids": ids])
    })
  commands.append(
    Command("count", summary: "how many facts, and about how many numbers") { _ in
      let (total, numbers) = try database().read { db in
        (try Fact.fetchCount(db), try Fact.select(\.number).distinct().fetchCount(db))
      }
      return .message(
        "\(total) fact(s) about \(numbers) number(s).", json: ["facts": total, "numbers": numbers])
    })
  commands.append(
    Command("today", summary: "the fact of the day, once the run duty has picked it") { _ in
      let formatter = DateFormatter()
      formatter.dateFormat = "yyyy-MM-dd"
      let day = formatter.string(from: Date())
      let fact = try database().read { db in
        try DailyFact.where { $0.day.eq(day) }.join(Fact.all) { $0.factID.eq($1.id) }
          .select { _, f in f }.fetchOne(db)
      }
      guard let fact else {
        throw CommandError.notFound(
          "no fact of the day yet; `hearth-facts run` (hearth-feature@facts) picks one")
      }
      return .values(fact) { "Fact of the day: \($0.body)" }
    })
  commands.append(
    Command("watch", arguments: "[TEXT]", summary: "the facts, redrawn live as they change") {
      input in
      let db = try database()
      let query = input.positionals.joined(separator: " ")
      watch(db, tables: ["facts"], title: "hearth-facts") {
        try render(db.read { try Facts(query: query).fetch($0) }, query: query)
      }
    })
  commands.append(
    Command(
      "run", arguments: "[--interval S]",
      summary: "the background duty: a fact of the day (what hearth-feature@facts runs)",
      valuedOptions: ["interval"]
    ) { input in
      let interval =
        try input.seconds("interval", default: 60, in: 0.01...3600)
      let db = try database()
      runDuties(name: "facts", interval: .milliseconds(Int(interval * 1000))) {
        if let fact = try db.write({ try pickFactOfTheDay($0, now: Date()) }) {
          Logger(label: "facts").info("fact of the day: \(fact.body)")
        }
      }
    })
  return Tool.feature(
    name: "hearth-facts", summary: "facts about numbers, worked out on this machine",
    commands: commands)
}
