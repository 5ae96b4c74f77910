// hearth-reminders: lists, reminders, tags, full-text search and stats, kept in the Hearth
// hub; `watch` redraws live, `run` is the background duty of hearth-feature@reminders.
// The feature is a library (so that the benchmarks can time its queries); the executable
// only calls `remindersTool().main()`.
import Foundation
import HearthData
import HearthPlugin

/// The hub connection of this process (registering the feature on first use, so that
/// `--help` works without a hub).
func database() throws -> HubDatabase {
  try .shared(
    PluginRegistration(name: "reminders", version: "1.0", tables: ownedTables, migrator: migrator))
}

/// The `run` duty: completes reminders whose completing delay has passed, and announces the
/// ones that fall due (once per reminder and due date).
func runDuty(completionDelay: TimeInterval) throws {
  let db = try database()
  let now = Date()
  try db.write { db in
    try Reminder.where {
      $0.status.eq(Reminder.Status.completing)
        && $0.completingAt.lte(now.addingTimeInterval(-completionDelay))
    }
    .update { $0.status = Reminder.Status.completed }
    .execute(db)
    let due = try Reminder.where {
      $0.status.eq(Reminder.Status.incomplete) && $0.dueDate.lte(now)
    }
    .where { reminder in
      !ReminderAlert.where {
        $0.reminderID.eq(reminder.id) && $0.dueDate.eq(reminder.dueDate)
      }.exists()
    }
    .fetchAll(db)
    for reminder in due {
      try ReminderAlert.insert {
        ReminderAlert.Draft(reminderID: reminder.id, dueDate: reminder.dueDate!, announcedAt: now)
      }
      .execute(db)
      Logger(label: "reminders").notice("due: \(reminder.id) \(reminder.title)")
    }
  }
}

/// The command line of the feature.
package func remindersTool() -> Tool {
  Tool.feature(
    name: "hearth-reminders",
    summary: "reminders in lists, with tags, due dates, search and stats",
    commands: commands(database) + [
      Command(
        "watch", arguments: "[filters]",
        summary: "shows the reminders, redrawn live as they change",
        details: filterOptions, valuedOptions: ["list", "tag"]
      ) { input in
        let db = try database()
        _ = try db.read { try filtered(input, $0) }  // bad filters fail now, not in the loop
        watch(
          db, tables: ["reminders", "remindersLists", "remindersTags", "tags"],
          title: "hearth-reminders"
        ) {
          try db.read { db in
            let stats = try Queries.stats(db)
            let rows = try Queries.rows(db, try filtered(input, db))
            return render(rows)
              + "\n\n\(stats.allCount) open · \(stats.todayCount) today · \(stats.pastDueCount) past due · \(stats.completedCount) completed"
          }
        }
      },
      Command(
        "run", arguments: "[--interval S] [--completion-delay S]",
        summary: "the background duty (what hearth-feature@reminders runs)",
        details: """
          Every S seconds (default 1): completes reminders marked completing more than the
          completion delay ago (default 3 s), and announces reminders that fall due in the
          reminderAlerts table, which every process sees on the change bus.
          """,
        valuedOptions: ["interval", "completion-delay"]
      ) { input in
        let interval =
          try input.seconds("interval", default: 1, in: 0.01...3600)
        let delay =
          try input.seconds("completion-delay", default: 3, in: 0...86_400)
        runDuties(name: "reminders", interval: .milliseconds(Int(interval * 1000))) {
          try runDuty(completionDelay: delay)
        }
      },
    ])
}
