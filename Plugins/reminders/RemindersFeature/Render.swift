import Foundation
import HearthCommandLine
import HearthData
import HearthPlugin

// MARK: - Showing things

let dayFormatter: DateFormatter = {
  let formatter = DateFormatter()
  formatter.locale = Locale(identifier: "en_US_POSIX")
  formatter.dateFormat = "EEE d MMM yyyy HH:mm"
  return formatter
}()

/// Now, for whether a reminder is past due (read once per rendering, not per line).
func currentDate() -> Date {
  @Dependency(\.date.now) var now
  return now
}

func line(_ row: ReminderRow, now: Date = currentDate()) -> String {
  let reminder = row.reminder
  let box =
    switch reminder.status {
    case .incomplete: "[ ]"
    case .completing: "[~]"
    case .completed: "[x]"
    }
  var parts = [ShortID.of(reminder.id), box, reminder.title.shownOnOneLine]
  if let priority = reminder.priority {
    parts.append(String(repeating: "!", count: priority.rawValue))
  }
  if reminder.isFlagged { parts.append("⚑") }
  if let due = reminder.dueDate {
    let late = reminder.status == .incomplete && due < now ? " (past due)" : ""
    parts.append("due \(dayFormatter.string(from: due))\(late)")
  }
  parts += row.tags.map { "#" + $0.shownOnOneLine }
  parts.append("· " + row.listTitle.shownOnOneLine)
  return parts.joined(separator: "  ")
}

func render(_ rows: [ReminderRow]) -> String {
  let now = currentDate()
  return rows.isEmpty ? "No reminders." : rows.map { line($0, now: now) }.joined(separator: "\n")
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

func render(_ lists: [ListLine]) -> String {
  guard !lists.isEmpty else { return "No lists yet: `hearth-reminders list-add Groceries`." }
  return lists.map {
    ShortID.of($0.list.id) + "  \($0.list.title.shownOnOneLine)  \($0.list.color.hex)  "
      + "\($0.openCount) open"
      + ($0.share.map { "  · " + sharing($0) } ?? "")
  }
  .joined(separator: "\n")
}

/// `shared with bob (read-only)`, `shared by alice (read-write)`.
func sharing(_ share: Share) -> String {
  func permission(_ permission: Share.Permission) -> String {
    permission == .readWrite ? "read-write" : "read-only"
  }
  guard share.isOwner else {
    return "shared by \(share.owner) (\(permission(share.publicPermission)))"
  }
  guard !share.participants.isEmpty else {
    return "shared (\(permission(share.publicPermission))), not accepted yet"
  }
  return "shared with "
    + share.participants.map { "\($0.role) (\(permission($0.permission)))" }
    .joined(separator: ", ")
}

func line(_ hit: SearchHit) -> String {
  var text = ShortID.of(hit.reminderID) + "  " + hit.title
  if !hit.tags.isEmpty { text += "  #" + hit.tags.split(separator: " ").joined(separator: " #") }
  if hit.snippet.contains("[") { text += "\n          " + hit.snippet }
  return text
}
