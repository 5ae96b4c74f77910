import Foundation
import HearthData
import HearthPlugin

/// The longest note the feature stores; a longer one is refused, nothing written.
let notesLimit = 1 << 20
let titleLimit = 1000

// MARK: - Reading input

/// A due date as a person types it.
func parseDate(_ text: String, now: Date) throws -> Date {
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

/// The flags of `filtered`.
let filterFlags: Set<String> = ["all", "completed", "flagged", "today", "scheduled", "past-due"]

/// What `show` and `watch` list.
func filtered(_ input: CommandInput, _ db: Database) throws -> Where<Reminder> {
  var query = input.flag("all") ? Reminder.where { _ in true } : Reminder.incomplete
  if input.flag("completed") { query = Reminder.where { $0.isCompleted } }
  if let text = input.option("list") {
    let id = try RemindersActions.findList(text, db).id
    query = query.where { $0.remindersListID.eq(id) }
  }
  if input.flag("flagged") { query = query.where { $0.isFlagged } }
  if input.flag("today") { query = query.where { $0.isToday } }
  if input.flag("scheduled") { query = query.where { $0.isScheduled } }
  if input.flag("past-due") { query = query.where { $0.isPastDue } }
  if let tagTitle = input.option("tag") {
    let tagged = ReminderTag.where { $0.tagID.collate(.nocase).eq(tagTitle) }
      .select(\.reminderID)
    query = query.where { $0.id.in(tagged) }
  }
  return query
}

let filterOptions = """
  --list LIST     one list (its title or id)
  --tag TAG       reminders with this tag
  --flagged, --today, --scheduled, --past-due
  --completed     completed ones instead of open ones; --all for both
  """
