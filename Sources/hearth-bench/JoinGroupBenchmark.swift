import Foundation
import HearthQuery

// A three-table join with grouping, built with the query builder, against the same SQL
// written by hand and run through HearthSQLite's rows.

@Table("joinLists")
struct JoinList: Identifiable {
  let id: Int
  var title: String
}

@Table("joinReminders")
struct JoinReminder: Identifiable {
  let id: Int
  var listID: Int
  var title: String
  var isFlagged: Bool
}

@Table("joinTaggings")
struct JoinTagging {
  let reminderID: Int
  let tag: String
}

struct ListSummary: Hashable {
  var title: String
  var reminders: Int
  var flagged: Int
  var tags: Int
}

let joinGroupBenchmark = Benchmark(
  name: "join-group",
  summary: "3-table join + group by (100k reminders) via the query builder vs the same SQL by hand"
) { options in
  let reminderCount = options.value(options.rows, quick: 10_000, full: 100_000)
  let rounds = options.value(options.rounds, quick: 3, full: 15)
  let directory = try BenchmarkDirectory()
  let dbQueue = try DatabaseQueue(path: directory.path("join-group.sqlite"))
  try dbQueue.write { db in try fillJoinTables(db, reminderCount: reminderCount) }

  let query =
    JoinList
    .group(by: \.id)
    .join(JoinReminder.all) { $0.id.eq($1.listID) }
    .leftJoin(JoinTagging.all) { $1.id.eq($2.reminderID) }
    .order { list, _, _ in list.title }
    .select {
      (
        $0.title, $1.id.count(distinct: true), $1.id.count(distinct: true, filter: $1.isFlagged),
        $2.tag.count()
      )
    }
  let handWritten = """
    SELECT "joinLists"."title", count(DISTINCT "joinReminders"."id"), \
    count(DISTINCT "joinReminders"."id") FILTER (WHERE "joinReminders"."isFlagged"), \
    count("joinTaggings"."tag") \
    FROM "joinLists" \
    JOIN "joinReminders" ON ("joinLists"."id" = "joinReminders"."listID") \
    LEFT JOIN "joinTaggings" ON ("joinReminders"."id" = "joinTaggings"."reminderID") \
    GROUP BY "joinLists"."id" ORDER BY "joinLists"."title"
    """
  guard query.query.sql == handWritten else {
    throw BenchmarkError(
      "join-group: the builder's SQL is not the hand-written SQL:\n\(query.query.sql)")
  }

  var results = (ours: [ListSummary](), baseline: [ListSummary]())
  let times = try dbQueue.read { db in
    try compare(
      rounds: rounds,
      ours: {
        results.ours = try query.fetchAll(db).map {
          ListSummary(title: $0.0, reminders: $0.1, flagged: $0.2, tags: $0.3)
        }
      },
      baseline: {
        var summaries: [ListSummary] = []
        let rows = try Row.fetchCursor(db, sql: handWritten)
        while let row = try rows.next() {
          summaries.append(
            ListSummary(
              title: try row[0], reminders: try row[1], flagged: try row[2], tags: try row[3]))
        }
        results.baseline = summaries
      })
  }
  guard results.ours == results.baseline,
    results.ours.reduce(0, { $0 + $1.reminders }) == reminderCount
  else {
    throw BenchmarkError("join-group: the two sides' rows differ")
  }
  return [
    Figure(
      bench: "join-group-\(reminderCount)", ours: times.ours, baseline: times.baseline, unit: "ms")
  ]
}

/// 100 lists, `reminderCount` reminders spread over them, a tag on two reminders of three.
private func fillJoinTables(_ db: Database, reminderCount: Int) throws {
  try db.execute(
    sql: """
      CREATE TABLE joinLists (id INTEGER PRIMARY KEY, title TEXT NOT NULL);
      CREATE TABLE joinReminders (
        id INTEGER PRIMARY KEY, listID INTEGER NOT NULL REFERENCES joinLists(id),
        title TEXT NOT NULL, isFlagged INTEGER NOT NULL);
      CREATE INDEX joinRemindersByList ON joinReminders(listID);
      CREATE TABLE joinTaggings (
        reminderID INTEGER NOT NULL REFERENCES joinReminders(id), tag TEXT NOT NULL);
      CREATE INDEX joinTaggingsByReminder ON joinTaggings(reminderID);
      """)
  let listCount = 100
  let list = try db.makeStatement(sql: "INSERT INTO joinLists (id, title) VALUES (?, ?)")
  for id in 1...listCount { try list.execute(arguments: [id, "List \(id)"]) }
  let reminder = try db.makeStatement(
    sql: "INSERT INTO joinReminders (id, listID, title, isFlagged) VALUES (?, ?, ?, ?)")
  let tagging = try db.makeStatement(
    sql: "INSERT INTO joinTaggings (reminderID, tag) VALUES (?, ?)")
  for id in 1...reminderCount {
    try reminder.execute(arguments: [
      id, id % listCount + 1, "Reminder \(id)", id.isMultiple(of: 5),
    ])
    if !id.isMultiple(of: 3) { try tagging.execute(arguments: [id, "tag\(id % 7)"]) }
  }
}
