import Foundation
import HearthQuery
import RemindersFeature

/// The reminders feature's full-text search (ranked, highlighted, with a snippet) over
/// 100,000 reminders, against the same SQL run by hand through `Row`. The feature's aim is an
/// answer in under 20 ms.
let remindersSearchBenchmark = Benchmark(
  name: "reminders-search",
  summary: "the reminders feature's full-text search over 100k reminders vs the same SQL by hand"
) { options in
  let count = options.value(options.rows, quick: 10_000, full: 100_000)
  let directory = try BenchmarkDirectory()
  let database = try DatabaseQueue(path: directory.path("reminders-search.sqlite"))
  try migrator.migrate(database)
  try database.write { db in try fillReminders(db, count: count) }
  // Common words, rare words, prefixes and two-word searches.
  let searches = [
    "milk", "call", "report", "garden", "quarterly", "dent", "tax", "zebra", "paint kitchen",
    "bank statement",
  ]
  var slowest = (ours: 0.0, baseline: 0.0)
  var total = (ours: 0.0, baseline: 0.0)
  try database.read { db in
    for text in searches {
      let query = Queries.searchStatement(text).query
      var hits = (ours: 0, baseline: 0)
      let times = try compare(
        rounds: options.value(options.rounds, quick: 2, full: 7),
        ours: { hits.ours = try Queries.search(db, text).count },
        baseline: {
          hits.baseline =
            try Row.fetchAll(db, sql: query.sql, arguments: StatementArguments(query.bindings))
            .count
        })
      guard hits.ours == hits.baseline else {
        throw BenchmarkError(
          "reminders-search: \(hits.ours) hits against \(hits.baseline) for \(text)")
      }
      slowest = (max(slowest.ours, times.ours), max(slowest.baseline, times.baseline))
      total = (total.ours + times.ours, total.baseline + times.baseline)
    }
  }
  let n = Double(searches.count)
  return [
    Figure(
      bench: "reminders-search-\(count)-mean", ours: total.ours / n, baseline: total.baseline / n,
      unit: "ms"),
    Figure(
      bench: "reminders-search-\(count)-slowest", ours: slowest.ours, baseline: slowest.baseline,
      unit: "ms"),
  ]
}

/// `count` reminders in 20 lists, with titles, notes and tags from a fixed vocabulary.
func fillReminders(_ db: Database, count: Int) throws {
  let verbs = [
    "buy", "call", "write", "fix", "paint", "clean", "book", "pay", "email", "plan", "read",
    "water",
  ]
  let things = [
    "milk", "bread", "mother", "report", "kitchen", "garden", "dentist", "taxes", "bank", "car",
    "roof", "tickets", "invoice", "plants", "statement", "quarterly review", "birthday cake",
    "insurance", "bike", "library books",
  ]
  let tags = ["home", "work", "errands", "family", "money", "health"]
  var seed: UInt64 = 42
  func next(_ bound: Int) -> Int {
    seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return Int((seed >> 33) % UInt64(bound))
  }
  let lists = (1...20).map { _ in UUID().uuidString.lowercased() }
  for (position, list) in lists.enumerated() {
    try db.execute(
      sql: "INSERT INTO remindersLists (id, title, position) VALUES (?, ?, ?)",
      arguments: [list, "List \(position + 1)", position + 1])
  }
  for tag in tags { try db.execute(sql: "INSERT INTO tags (title) VALUES (?)", arguments: [tag]) }
  let insert = try db.makeStatement(
    sql:
      "INSERT INTO reminders (id, remindersListID, title, notes, position) VALUES (?, ?, ?, ?, ?)")
  let tagInsert = try db.makeStatement(
    sql:
      "INSERT OR IGNORE INTO remindersTags (id, reminderID, tagID) VALUES (?1 || '/' || ?2, ?1, ?2)"
  )
  for index in 1...count {
    let title = "\(verbs[next(verbs.count)]) \(things[next(things.count)])"
    let notes =
      index.isMultiple(of: 3)
      ? "remember the \(things[next(things.count)]) and the \(things[next(things.count)]) before \(verbs[next(verbs.count)])ing"
      : ""
    let id = UUID().uuidString.lowercased()
    try insert.execute(arguments: [id, lists[next(20)], title, notes, index])
    if index.isMultiple(of: 2) { try tagInsert.execute(arguments: [id, tags[next(tags.count)]]) }
  }
}
