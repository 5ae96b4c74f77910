// hearth-reminders: lists, reminders, tags, full-text search and stats, kept in the Hearth
// hub; `watch` redraws live, `run` is the background duty of hearth-feature@reminders.
// The feature is a library (so that the benchmarks can time its queries and the tests run
// its actions); the executable prepares the database and calls `remindersTool().main()`.
import Foundation
import HearthData
import HearthPlugin

let watchReminders = Command(
  "watch", arguments: "[filters]", summary: "shows the reminders, redrawn live as they change",
  details: filterOptions, valuedOptions: ["list", "tag"], flags: filterFlags
) { input in
  @Dependency(\.defaultDatabase) var database
  _ = try database.read { try filtered(input, $0) }  // bad filters fail now, not in the loop
  let tables: Set = [
    Reminder.tableName, RemindersList.tableName, ReminderTag.tableName, Tag.tableName,
  ]
  watch(database, tables: tables, title: "hearth-reminders") {
    try database.read { db in
      let stats = try Queries.stats(db)
      let rows = try Queries.rows(db, try filtered(input, db))
      return render(rows)
        + "\n\n\(stats.allCount) open · \(stats.todayCount) today · \(stats.pastDueCount) past due · \(stats.completedCount) completed"
    }
  }
}

let run = Command(
  "run", arguments: "[--interval S] [--completion-delay S]",
  summary: "the background duty (what hearth-feature@reminders runs)",
  details: """
    Every S seconds (default 1): completes reminders marked completing more than the
    completion delay ago (default 3 s), and announces reminders that fall due in the
    reminderAlerts table, which every process sees on the change bus.
    """,
  valuedOptions: ["interval", "completion-delay"]
) { input in
  @Dependency(\.defaultDatabase) var database
  let interval = try input.seconds("interval", default: 1, in: 0.01...3600)
  let delay = try input.seconds("completion-delay", default: 3, in: 0...86_400)
  runDuties(name: "reminders", interval: .milliseconds(Int(interval * 1000))) {
    @Dependency(\.date) var date
    let due = try database.write {
      try RemindersActions.runDuty(now: date(), completionDelay: delay, $0)
    }
    for reminder in due {
      Logger(label: "reminders").notice("due: \(reminder.id) \(reminder.title)")
    }
  }
}

/// The command line of the feature.
package func remindersTool() -> Tool {
  Tool.feature(
    name: "hearth-reminders", summary: "reminders in lists, with tags, due dates, search and stats",
    commands: [
      lists, addList, editList, deleteList, shareList, unshareList, listMembers, revokeMember,
      add, show, info, edit, complete,
      reopen, delete, tag,
      untag, search, stats, move, watchReminders, run, caldav, caldavPassword,
    ])
}
