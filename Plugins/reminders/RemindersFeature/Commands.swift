import Foundation
import HearthData
import HearthPlugin

/// The longest note the feature stores; a longer one is refused, nothing written.
let notesLimit = 1 << 20
let titleLimit = 1000

// MARK: - Reading input

/// A due date as a person types it.
func parseDate(_ text: String, now: Date = Date()) throws -> Date {
  let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
  let calendar = Calendar.current
  switch trimmed {
  case "now": return now
  case "today": return calendar.date(bySettingHour: 9, minute: 0, second: 0, of: now)!
  case "tomorrow":
    let tomorrow = calendar.date(byAdding: .day, value: 1, to: now)!
    return calendar.date(bySettingHour: 9, minute: 0, second: 0, of: tomorrow)!
  default: break
  }
  if trimmed.hasPrefix("+"), let unit = trimmed.last,
    let amount = Int(trimmed.dropFirst().dropLast()),
    amount >= 0, amount < 100_000
  {
    switch unit {
    case "m": return now.addingTimeInterval(Double(amount) * 60)
    case "h": return now.addingTimeInterval(Double(amount) * 3600)
    case "d": return calendar.date(byAdding: .day, value: amount, to: now)!
    default: break
    }
  }
  for format in ["yyyy-MM-dd HH:mm", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd"] {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = .current
    formatter.dateFormat = format
    formatter.isLenient = false
    if let date = formatter.date(from: trimmed) {
      // A bare date is due at 9:00 that day.
      return format == "yyyy-MM-dd"
        ? calendar.date(bySettingHour: 9, minute: 0, second: 0, of: date)! : date
    }
  }
  throw CommandError.usage(
    "'\(text)' is not a date; write 2026-12-24, '2026-12-24 18:30', today, tomorrow, +30m, +2h or +3d"
  )
}

func parsePriority(_ text: String) throws -> Reminder.Priority? {
  switch text.lowercased() {
  case "none", "0": return nil
  case "low", "1", "!": return .low
  case "medium", "2", "!!": return .medium
  case "high", "3", "!!!": return .high
  default: throw CommandError.usage("'\(text)' is not a priority; use low, medium, high or none")
  }
}

func checkedTitle(_ title: String, what: String = "title") throws -> String {
  let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
  guard !trimmed.isEmpty else { throw CommandError.usage("the \(what) is empty") }
  guard trimmed.count <= titleLimit else {
    throw CommandError.usage(
      "the \(what) is \(trimmed.count) characters long; the limit is \(titleLimit)")
  }
  return trimmed
}

/// `--notes TEXT`, or `--notes -` to read them from standard input.
func notes(_ input: CommandInput) throws -> String? {
  guard let value = input.option("notes") else { return nil }
  let text = value == "-" ? try readStandardInput(limit: notesLimit) : value
  guard text.utf8.count <= notesLimit else {
    throw CommandError.usage(
      "the notes are \(byteCount(text.utf8.count)); the limit is \(byteCount(notesLimit)); nothing was saved"
    )
  }
  return text
}

// MARK: - Looking things up

func findReminder(_ id: Int, _ db: Database) throws -> Reminder {
  guard let reminder = try Reminder.find(id).fetchOne(db) else {
    throw CommandError.notFound("no reminder \(id); `hearth-reminders show --all` lists them")
  }
  return reminder
}

/// A list by id or (case-insensitive) title.
func findList(_ text: String, _ db: Database) throws -> RemindersList {
  if let id = Int(text), let list = try RemindersList.find(id).fetchOne(db) { return list }
  if let list = try RemindersList.where({ $0.title.collate(.nocase).eq(text) }).fetchOne(db) {
    return list
  }
  throw CommandError.notFound("no list '\(text)'; `hearth-reminders lists` shows them")
}

/// The list new reminders go to: `--list`, else the first list, else a new "Reminders".
func targetList(_ input: CommandInput, _ db: Database) throws -> RemindersList.ID {
  if let text = input.option("list") { return try findList(text, db).id }
  if let first = try RemindersList.order({ ($0.position, $0.id) }).fetchOne(db) { return first.id }
  return try RemindersList.insert { RemindersList.Draft(title: "Reminders") }
    .returning(\.id).fetchOne(db)!
}

/// The tags named, created when new.
func tagIDs(_ titles: [String], _ db: Database) throws -> [Tag.ID] {
  try titles.map { raw in
    let title = try checkedTitle(raw.hasPrefix("#") ? String(raw.dropFirst()) : raw, what: "tag")
    guard title.count <= 100 else { throw CommandError.usage("the tag '\(title)' is too long") }
    if let tag = try Tag.where({ $0.title.collate(.nocase).eq(title) }).fetchOne(db) {
      return tag.id
    }
    return try Tag.insert { Tag.Draft(title: title) }.returning(\.id).fetchOne(db)!
  }
}

// MARK: - Showing things

let dayFormatter: DateFormatter = {
  let formatter = DateFormatter()
  formatter.locale = Locale(identifier: "en_US_POSIX")
  formatter.dateFormat = "EEE d MMM yyyy HH:mm"
  return formatter
}()

func line(_ row: ReminderRow, now: Date = Date()) -> String {
  let reminder = row.reminder
  let box =
    switch reminder.status {
    case .incomplete: "[ ]"
    case .completing: "[~]"
    case .completed: "[x]"
    }
  var parts = [String(format: "%4d", reminder.id), box, reminder.title]
  if let priority = reminder.priority {
    parts.append(String(repeating: "!", count: priority.rawValue))
  }
  if reminder.isFlagged { parts.append("⚑") }
  if let due = reminder.dueDate {
    let late = reminder.status == .incomplete && due < now ? " (past due)" : ""
    parts.append("due \(dayFormatter.string(from: due))\(late)")
  }
  parts += row.tags.map { "#" + $0 }
  parts.append("· " + row.listTitle)
  return parts.joined(separator: "  ")
}

func render(_ rows: [ReminderRow]) -> String {
  rows.isEmpty ? "No reminders." : rows.map { line($0) }.joined(separator: "\n")
}

func render(_ stats: Stats) -> String {
  """
  all        \(stats.allCount)
  today      \(stats.todayCount)
  scheduled  \(stats.scheduledCount)
  flagged    \(stats.flaggedCount)
  past due   \(stats.pastDueCount)
  completed  \(stats.completedCount)
  """
}

func render(_ lists: [ListSummary]) -> String {
  guard !lists.isEmpty else { return "No lists yet: `hearth-reminders list-add Groceries`." }
  return lists.map {
    String(format: "%4d  ", $0.list.id)
      + "\($0.list.title)  \($0.list.color.hex)  \($0.openCount) open"
  }
  .joined(separator: "\n")
}

/// What `show` and `watch` list.
func filtered(_ input: CommandInput, _ db: Database) throws -> Where<Reminder> {
  var query = input.flag("all") ? Reminder.where { _ in true } : Reminder.incomplete
  if input.flag("completed") { query = Reminder.where { $0.isCompleted } }
  if let text = input.option("list") {
    let id = try findList(text, db).id
    query = query.where { $0.remindersListID.eq(id) }
  }
  if input.flag("flagged") { query = query.where { $0.isFlagged } }
  if input.flag("today") { query = query.where { $0.isToday } }
  if input.flag("scheduled") { query = query.where { $0.isScheduled } }
  if input.flag("past-due") { query = query.where { $0.isPastDue } }
  if let tagTitle = input.option("tag") {
    let tagged = ReminderTag.join(Tag.all) { $0.tagID.eq($1.id) }
      .where { _, t in t.title.collate(.nocase).eq(tagTitle) }
      .select { r, _ in r.reminderID }
    query = query.where { $0.id.in(tagged) }
  }
  return query
}

let filterOptions = """
  --list LIST     one list (its id or title)
  --tag TAG       reminders with this tag
  --flagged, --today, --scheduled, --past-due
  --completed     completed ones instead of open ones; --all for both
  """

// MARK: - The commands

func commands(_ database: @escaping () throws -> HubDatabase) -> [Command] {
  var all: [Command] = []
  all.append(
    Command("lists", summary: "the lists, with how many reminders each has open") { _ in
      let lists = try database().read { try Queries.lists($0) }
      return .values(lists, render: render)
    })
  all.append(
    Command(
      "list-add", arguments: "TITLE [--color COLOR]", summary: "creates a list",
      details: "COLOR: #rrggbb or red, orange, yellow, green, blue, purple, brown.",
      valuedOptions: ["color"]
    ) { input in
      let title = try checkedTitle(try input.text(from: 0, name: "TITLE"))
      let color = try input.option("color").map { text in
        guard let color = Color(parsing: text) else {
          throw CommandError.usage("'\(text)' is not a colour; use #rrggbb or a name like green")
        }
        return color
      }
      let list = try database().write { db in
        let position = try RemindersList.select { ($0.position.max() ?? -1) + 1 }.fetchOne(db) ?? 0
        return try RemindersList.insert {
          RemindersList.Draft(color: color ?? .blue, position: position, title: title)
        }
        .returning(\.self).fetchOne(db)!
      }
      return .values(list) { "Created list \($0.id) \"\($0.title)\"." }
    })
  all.append(
    Command(
      "list-edit", arguments: "LIST [--title TITLE] [--color COLOR]",
      summary: "renames or recolours a list", valuedOptions: ["title", "color"]
    ) { input in
      let target = try input.positional(0, name: "LIST")
      let title = try input.option("title").map { try checkedTitle($0) }
      let color = try input.option("color").map { text in
        guard let color = Color(parsing: text) else {
          throw CommandError.usage("'\(text)' is not a colour; use #rrggbb or a name like green")
        }
        return color
      }
      let edited = try database().write { db in
        let id = try findList(target, db).id
        try RemindersList.find(id).update {
          if let title { $0.title = title }
          if let color { $0.color = Color.HexRepresentation(queryOutput: color) }
        }
        .execute(db)
        return try RemindersList.find(id).fetchOne(db)!
      }
      return .values(edited) { "List \($0.id) is \"\($0.title)\" (\($0.color.hex))." }
    })
  all.append(
    Command(
      "list-delete", arguments: "LIST", summary: "deletes a list and its reminders"
    ) { input in
      let target = try input.positional(0, name: "LIST")
      let (list, count) = try database().write { db in
        let list = try findList(target, db)
        let count = try Reminder.where { $0.remindersListID.eq(list.id) }.count().fetchOne(db) ?? 0
        try RemindersList.find(list.id).delete().execute(db)
        return (list, count)
      }
      return .message(
        "Deleted list \(list.id) \"\(list.title)\" and its \(count) reminder(s).",
        json: ["id": list.id, "deletedReminders": count])
    })
  all.append(
    Command(
      "add",
      arguments:
        "TITLE… [--list LIST] [--notes TEXT|-] [--due DATE] [--priority P] [--flag] [--tag TAG]…",
      summary: "adds a reminder",
      details: """
        --notes -       reads the notes from standard input (UTF-8, at most 1 MiB)
        --due DATE      2026-12-24, '2026-12-24 18:30', today, tomorrow, +30m, +2h, +3d
        --priority P    low, medium, high
        --tag TAG       repeatable; new tags are created
        """,
      valuedOptions: ["list", "notes", "due", "priority", "tag"]
    ) { input in
      let title = try checkedTitle(try input.text(from: 0, name: "TITLE"))
      let notes = try notes(input) ?? ""
      let due = try input.option("due").map { try parseDate($0) }
      let priority = try input.option("priority").flatMap { try parsePriority($0) }
      let row = try database().write { db in
        let listID = try targetList(input, db)
        let position =
          try Reminder.where { $0.remindersListID.eq(listID) }
          .select { ($0.position.max() ?? -1) + 1 }.fetchOne(db) ?? 0
        let id = try Reminder.insert {
          Reminder.Draft(
            remindersListID: listID, title: title, notes: notes, dueDate: due,
            isFlagged: input.flag("flag"), priority: priority, position: position)
        }
        .returning(\.id).fetchOne(db)!
        for tagID in try tagIDs(input.options("tag"), db) {
          try ReminderTag.insert { ReminderTag(reminderID: id, tagID: tagID) }.execute(db)
        }
        return try Queries.rows(db, Reminder.find(id)).first!
      }
      return .values(row) { "Added:\n" + line($0) }
    })
  all.append(
    Command(
      "show", arguments: "[filters]", summary: "lists open reminders (or as filtered)",
      details: filterOptions, valuedOptions: ["list", "tag"]
    ) { input in
      let rows = try database().read { db in try Queries.rows(db, try filtered(input, db)) }
      return .values(rows, render: render)
    })
  all.append(
    Command("info", arguments: "ID", summary: "one reminder, notes included") { input in
      let id = try input.positional(0, as: Int.self, name: "ID")
      let row = try database().read { db in
        _ = try findReminder(id, db)
        return try Queries.rows(db, Reminder.find(id)).first!
      }
      return .values(row) { row in
        line(row) + (row.reminder.notes.isEmpty ? "" : "\n\n" + row.reminder.notes)
      }
    })
  all.append(
    Command(
      "edit",
      arguments:
        "ID [--title T] [--notes TEXT|-] [--due DATE|none] [--priority P|none] [--list LIST] [--flag|--unflag]",
      summary: "changes a reminder",
      valuedOptions: ["title", "notes", "due", "priority", "list"]
    ) { input in
      let id = try input.positional(0, as: Int.self, name: "ID")
      let title = try input.option("title").map { try checkedTitle($0) }
      let notes = try notes(input)
      let due: Date?? = try input.option("due").map {
        $0.lowercased() == "none" ? nil : try parseDate($0)
      }
      let priority: Reminder.Priority?? = try input.option("priority").map { try parsePriority($0) }
      let row = try database().write { db in
        _ = try findReminder(id, db)
        let listID = try input.option("list").map { try findList($0, db).id }
        try Reminder.find(id).update {
          if let title { $0.title = title }
          if let notes { $0.notes = notes }
          if let due { $0.dueDate = due }
          if let priority { $0.priority = priority }
          if let listID { $0.remindersListID = listID }
          if input.flag("flag") { $0.isFlagged = true }
          if input.flag("unflag") { $0.isFlagged = false }
        }
        .execute(db)
        return try Queries.rows(db, Reminder.find(id)).first!
      }
      return .values(row) { "Changed:\n" + line($0) }
    })
  all.append(
    Command(
      "complete", arguments: "ID… [--now]",
      summary: "marks reminders completing (completed shortly after, by the run duty)",
      details: "--now completes them at once."
    ) { input in
      let ids = try input.positionals.indices.map {
        try input.positional($0, as: Int.self, name: "ID")
      }
      guard !ids.isEmpty else { throw CommandError.usage("missing ID") }
      @Dependency(\.date.now) var now
      let status: Reminder.Status = input.flag("now") ? .completed : .completing
      try database().write { db in
        for id in ids { _ = try findReminder(id, db) }
        try Reminder.where { $0.id.in(ids) && $0.status.eq(Reminder.Status.incomplete) }
          .update {
            $0.status = status
            $0.completingAt = Optional(now)
          }
          .execute(db)
      }
      return .message(
        "\(status == .completed ? "Completed" : "Completing") \(ids.map(String.init).joined(separator: ", ")).",
        json: ["ids": ids, "status": status == .completed ? "completed" : "completing"])
    })
  all.append(
    Command("reopen", arguments: "ID", summary: "marks a reminder not completed") { input in
      let id = try input.positional(0, as: Int.self, name: "ID")
      try database().write { db in
        _ = try findReminder(id, db)
        try Reminder.find(id).update {
          $0.status = Reminder.Status.incomplete
          $0.completingAt = Date?.none
        }
        .execute(db)
      }
      return .message("Reopened \(id).", json: ["id": id])
    })
  all.append(
    Command("delete", arguments: "ID…", summary: "deletes reminders") { input in
      let ids = try input.positionals.indices.map {
        try input.positional($0, as: Int.self, name: "ID")
      }
      guard !ids.isEmpty else { throw CommandError.usage("missing ID") }
      try database().write { db in
        for id in ids { _ = try findReminder(id, db) }
        try Reminder.where { $0.id.in(ids) }.delete().execute(db)
      }
      return .message(
        "Deleted \(ids.map(String.init).joined(separator: ", ")).", json: ["ids": ids])
    })
  all.append(
    Command("tag", arguments: "ID TAG…", summary: "tags a reminder") { input in
      let id = try input.positional(0, as: Int.self, name: "ID")
      let titles = Array(input.positionals.dropFirst())
      guard !titles.isEmpty else { throw CommandError.usage("missing TAG") }
      let row = try database().write { db in
        _ = try findReminder(id, db)
        for tagID in try tagIDs(titles, db) {
          try ReminderTag.insert(or: .ignore) { ReminderTag(reminderID: id, tagID: tagID) }
            .execute(db)
        }
        return try Queries.rows(db, Reminder.find(id)).first!
      }
      return .values(row) { line($0) }
    })
  all.append(
    Command("untag", arguments: "ID TAG…", summary: "removes tags from a reminder") { input in
      let id = try input.positional(0, as: Int.self, name: "ID")
      let titles = input.positionals.dropFirst().map {
        $0.hasPrefix("#") ? String($0.dropFirst()) : $0
      }
      guard !titles.isEmpty else { throw CommandError.usage("missing TAG") }
      let row = try database().write { db in
        _ = try findReminder(id, db)
        let tagIDs = try Tag.where { $0.title.collate(.nocase).in(titles) }.select(\.id).fetchAll(
          db)
        try ReminderTag.where { $0.reminderID.eq(id) && $0.tagID.in(tagIDs) }.delete().execute(db)
        return try Queries.rows(db, Reminder.find(id)).first!
      }
      return .values(row) { line($0) }
    })
  all.append(
    Command(
      "search", arguments: "TEXT…",
      summary: "full-text search over titles, notes and tags, best first"
    ) { input in
      let text = try input.text(from: 0, name: "TEXT")
      let hits = try database().read { try Queries.search($0, text) }
      return .values(hits) { hits in
        hits.isEmpty
          ? "Nothing matches \"\(text)\"."
          : hits.map { hit in
            var text = String(format: "%4d  ", hit.reminderID) + hit.title
            if !hit.tags.isEmpty {
              text += "  #" + hit.tags.split(separator: " ").joined(separator: " #")
            }
            if hit.snippet.contains("[") { text += "\n      " + hit.snippet }
            return text
          }
          .joined(separator: "\n")
      }
    })
  all.append(
    Command("stats", summary: "counts: all, today, scheduled, flagged, past due, completed") { _ in
      let stats = try database().read { try Queries.stats($0) }
      return .values(stats, render: render)
    })
  all.append(
    Command(
      "move", arguments: "ID POSITION", summary: "moves a reminder within its list (0 is the top)"
    ) { input in
      let id = try input.positional(0, as: Int.self, name: "ID")
      let position = try input.positional(1, as: Int.self, name: "POSITION")
      guard position >= 0 else { throw CommandError.usage("POSITION must be 0 or more") }
      let rows = try database().write { db in
        let moved = try findReminder(id, db)
        var ids = try Reminder.where { $0.remindersListID.eq(moved.remindersListID) }
          .order { ($0.position, $0.id) }.select(\.id).fetchAll(db)
        ids.removeAll { $0 == id }
        ids.insert(id, at: min(position, ids.count))
        try reorder(ids, db)
        return try Queries.rows(db, Reminder.where { $0.remindersListID.eq(moved.remindersListID) })
      }
      return .values(rows, render: render)
    })
  return all
}

/// Gives the reminders `ids` the positions 0, 1, 2… in one UPDATE (the seeds' batch
/// reordering with `Case`).
func reorder(_ ids: [Reminder.ID], _ db: Database) throws {
  guard let first = ids.first else { return }
  try Reminder.where { $0.id.in(ids) }
    .update {
      $0.position = ids.enumerated().dropFirst()
        .reduce(Case($0.id).when(first, then: 0)) { cases, pair in
          cases.when(pair.element, then: pair.offset)
        }
        .else($0.position)
    }
    .execute(db)
}
