// hearth-syncups: sync-ups, their attendees and meetings; `start` runs the meeting timer in
// the terminal and saves the meeting. The commands read and render; `SyncUpActions` does the
// work, on the database the executable prepared (`@Dependency(\\.defaultDatabase)`).
import Foundation
import HearthData
import HearthPlugin

func checkedName(_ text: String, what: String) throws -> String {
  let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
  guard !name.isEmpty else { throw CommandError.usage("the \(what) is empty") }
  guard name.count <= 200 else {
    throw CommandError.usage("the \(what) is longer than 200 characters")
  }
  return name
}

func duration(_ input: CommandInput) throws -> Int? {
  guard let text = input.option("minutes") else { return nil }
  guard let minutes = Int(text), (1...1440).contains(minutes) else {
    throw CommandError.usage("--minutes takes a whole number from 1 to 1440, not '\(text)'")
  }
  return minutes * 60
}

func theme(_ input: CommandInput) throws -> SyncUp.Theme? {
  guard let text = input.option("theme") else { return nil }
  guard let theme = SyncUp.Theme(rawValue: text.lowercased()) else {
    throw CommandError.usage(
      "'\(text)' is not a theme; one of "
        + SyncUp.Theme.allCases.map(\.rawValue).joined(separator: ", "))
  }
  return theme
}

let meetingFormatter: DateFormatter = {
  let formatter = DateFormatter()
  formatter.locale = Locale(identifier: "en_US_POSIX")
  formatter.dateFormat = "EEE d MMM yyyy HH:mm"
  return formatter
}()

func meetingLine(_ meeting: Meeting) -> String {
  let first = meeting.transcript.split(separator: "\n").first.map(String.init) ?? "(no transcript)"
  return ShortID.of(meeting.id) + "  " + meetingFormatter.string(from: meeting.date) + "  "
    + first
}

let list = Command("list", summary: "the sync-ups, their attendees and meeting counts") { _ in
  @Dependency(\.defaultDatabase) var database
  return .values(try database.read { try Queries.summaries($0) }) { summaries in
    summaries.isEmpty
      ? "No sync-ups yet: `hearth-syncups add Daily --attendee Ana --attendee Bo`."
      : summaries.map(\.line).joined(separator: "\n")
  }
}

let add = Command(
  "add", arguments: "TITLE… [--minutes M] [--theme T] [--attendee NAME]…",
  summary: "creates a sync-up",
  details: "--minutes defaults to 5; themes: "
    + SyncUp.Theme.allCases.map(\.rawValue).joined(separator: ", "),
  valuedOptions: ["minutes", "theme", "attendee"]
) { input in
  @Dependency(\.defaultDatabase) var database
  let title = try checkedName(try input.text(from: 0, name: "TITLE"), what: "title")
  let (seconds, theme) = (try duration(input) ?? 300, try theme(input) ?? .bubblegum)
  let names = try input.options("attendee").map { try checkedName($0, what: "attendee's name") }
  let summary = try database.write {
    try SyncUpActions.add(title: title, seconds: seconds, theme: theme, attendees: names, $0)
  }
  return .values(summary) { "Created:\n" + $0.line }
}

let edit = Command(
  "edit", arguments: "ID [--title T] [--minutes M] [--theme T]", summary: "changes a sync-up",
  valuedOptions: ["title", "minutes", "theme"]
) { input in
  @Dependency(\.defaultDatabase) var database
  let handle = try input.positional(0, name: "ID")
  let title = try input.option("title").map { try checkedName($0, what: "title") }
  let (seconds, theme) = (try duration(input), try theme(input))
  let summary = try database.write { db in
    try SyncUpActions.edit(
      try SyncUpActions.syncUpID(handle, db), title: title, seconds: seconds, theme: theme, db)
  }
  return .values(summary) { "Changed:\n" + $0.line }
}

let addAttendee = Command("attendee-add", arguments: "ID NAME…", summary: "adds an attendee") {
  input in
  @Dependency(\.defaultDatabase) var database
  let handle = try input.positional(0, name: "ID")
  let name = try checkedName(try input.text(from: 1, name: "NAME"), what: "attendee's name")
  return .values(
    try database.write { db in
      try SyncUpActions.addAttendee(name, to: try SyncUpActions.syncUpID(handle, db), db)
    }
  ) { $0.line }
}

let removeAttendee = Command(
  "attendee-remove", arguments: "ID NAME…", summary: "removes an attendee"
) { input in
  @Dependency(\.defaultDatabase) var database
  let handle = try input.positional(0, name: "ID")
  let name = try input.text(from: 1, name: "NAME")
  return .values(
    try database.write { db in
      try SyncUpActions.removeAttendee(name, from: try SyncUpActions.syncUpID(handle, db), db)
    }
  ) { $0.line }
}

let delete = Command(
  "delete", arguments: "ID", summary: "deletes a sync-up, its attendees and meetings"
) { input in
  @Dependency(\.defaultDatabase) var database
  let handle = try input.positional(0, name: "ID")
  let syncUp = try database.write { db in
    try SyncUpActions.delete(try SyncUpActions.syncUpID(handle, db), db)
  }
  return .message(
    "Deleted sync-up \(ShortID.of(syncUp.id)) \"\(syncUp.title)\".",
    json: ["id": syncUp.id.uuidString])
}

let history = Command(
  "history", arguments: "ID", summary: "the meetings of a sync-up, newest first"
) { input in
  @Dependency(\.defaultDatabase) var database
  let handle = try input.positional(0, name: "ID")
  let meetings = try database.read { db in
    try SyncUpActions.history(of: try SyncUpActions.syncUpID(handle, db), db)
  }
  return .values(meetings) { meetings in
    meetings.isEmpty
      ? "No meetings yet: `hearth-syncups start \(handle)`."
      : meetings.map(meetingLine).joined(separator: "\n")
  }
}

let meeting = Command(
  "meeting", arguments: "MEETING_ID", summary: "one meeting with its transcript"
) { input in
  @Dependency(\.defaultDatabase) var database
  let handle = try input.positional(0, name: "MEETING_ID")
  let meeting = try database.read { db in
    try Meeting.find(try SyncUpActions.meetingID(handle, db)).fetchOne(db)!
  }
  return .values(meeting) { meeting in
    meetingFormatter.string(from: meeting.date) + "\n\n"
      + (meeting.transcript.isEmpty ? "(no transcript)" : meeting.transcript)
  }
}

let start = Command(
  "start", arguments: "ID", summary: "runs the meeting timer in this terminal, then saves it",
  details: """
    Each attendee speaks in turn for an equal share of the sync-up's length.
    Keys: n or space next speaker · t type a line of transcript (Enter keeps it)
    · q end and save · x or Ctrl-C discard.
    """
) { input in
  @Dependency(\.defaultDatabase) var database
  @Dependency(\.date) var date
  let handle = try input.positional(0, name: "ID")
  let (syncUp, names) = try database.read { db in
    try SyncUpActions.speakers(of: try SyncUpActions.syncUpID(handle, db), db)
  }
  let id = syncUp.id
  guard !names.isEmpty else {
    throw CommandError.usage("sync-up \(handle) has no attendees; add one with attendee-add")
  }
  let started = date()
  switch try MeetingTimer(syncUp: syncUp, speakers: names).run() {
  case .discarded:
    return .message("Meeting discarded.", json: ["saved": false])
  case .saved(let transcript, let elapsed):
    let meeting = try database.write {
      try SyncUpActions.saveMeeting(of: id, transcript: transcript, date: started, $0)
    }
    return .message(
      "Saved meeting \(ShortID.of(meeting.id)) (\(elapsed / 60) min \(elapsed % 60) s).",
      json: ["saved": true, "id": meeting.id.uuidString])
  }
}

let record = Command(
  "record", arguments: "ID [--transcript TEXT|-] [--date DATE]",
  summary: "saves a meeting without the timer (for scripts)",
  valuedOptions: ["transcript", "date"]
) { input in
  @Dependency(\.defaultDatabase) var database
  @Dependency(\.date) var now
  let handle = try input.positional(0, name: "ID")
  var transcript = input.option("transcript") ?? ""
  if transcript == "-" { transcript = try readStandardInput(limit: 1 << 20) }
  guard transcript.utf8.count <= 1 << 20 else {
    throw CommandError.usage("the transcript is longer than 1 MiB; nothing was saved")
  }
  let date = try input.option("date").map(meetingDate) ?? now()
  let meeting = try database.write { [transcript] db in
    try SyncUpActions.saveMeeting(
      of: try SyncUpActions.syncUpID(handle, db), transcript: transcript, date: date, db)
  }
  return .values(meeting) { "Saved meeting \(ShortID.of($0.id))." }
}

/// `2026-12-24 09:30`.
func meetingDate(_ text: String) throws -> Date {
  let formatter = DateFormatter()
  formatter.locale = Locale(identifier: "en_US_POSIX")
  formatter.dateFormat = "yyyy-MM-dd HH:mm"
  formatter.isLenient = false
  guard let date = formatter.date(from: text) else {
    throw CommandError.usage("'\(text)' is not a date; write '2026-12-24 09:30'")
  }
  return date
}

let watchSyncUps = Command("watch", summary: "the sync-ups, redrawn live as they change") { _ in
  @Dependency(\.defaultDatabase) var database
  let tables: Set = [SyncUp.tableName, Attendee.tableName, Meeting.tableName]
  watch(database, tables: tables, title: "hearth-syncups") {
    let summaries = try database.read { try Queries.summaries($0) }
    return summaries.isEmpty ? "No sync-ups." : summaries.map(\.line).joined(separator: "\n")
  }
}

let run = Command(
  "run", arguments: "[--interval S]",
  summary: "the background duty: logs each meeting saved (what hearth-feature@syncups runs)",
  valuedOptions: ["interval"]
) { input in
  @Dependency(\.defaultDatabase) var database
  let interval = try input.seconds("interval", default: 5, in: 0.01...3600)
  let lastMeeting = Locked(try database.read(SyncUpActions.newestMeeting))
  runDuties(name: "syncups", interval: .milliseconds(Int(interval * 1000))) {
    let after = lastMeeting.withLock { $0 }
    for meeting in try database.read({ try SyncUpActions.meetings(after: after, $0) }) {
      Logger(label: "syncups").info(
        "meeting \(ShortID.of(meeting.id)) of \"\(meeting.title)\" saved")
      lastMeeting.withLock { $0 = meeting.rowid }
    }
  }
}

/// The command line of the feature.
package func syncUpsTool() -> Tool {
  Tool.feature(
    name: "hearth-syncups", summary: "sync-ups: who speaks, for how long, and what was said",
    commands: [
      list, add, edit, addAttendee, removeAttendee, delete, history, meeting, start, record,
      watchSyncUps, run,
    ])
}
