// hearth-syncups: sync-ups, their attendees and meetings; `start` runs the meeting timer in
// the terminal and saves the meeting.
import Foundation
import HearthData
import HearthPlugin

func findSyncUp(_ id: Int, _ db: Database) throws -> SyncUp {
  guard let syncUp = try SyncUp.find(id).fetchOne(db) else {
    throw CommandError.notFound("no sync-up \(id); `hearth-syncups list` shows them")
  }
  return syncUp
}

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

func saveMeeting(_ syncUpID: SyncUp.ID, transcript: String, date: Date) throws -> Meeting {
  try database().write { db in
    _ = try findSyncUp(syncUpID, db)
    return try Meeting.insert {
      Meeting.Draft(date: date, syncUpID: syncUpID, transcript: transcript)
    }
    .returning(\.self).fetchOne(db)!
  }
}

let meetingFormatter: DateFormatter = {
  let formatter = DateFormatter()
  formatter.locale = Locale(identifier: "en_US_POSIX")
  formatter.dateFormat = "EEE d MMM yyyy HH:mm"
  return formatter
}()

func meetingLine(_ meeting: Meeting) -> String {
  let first = meeting.transcript.split(separator: "\n").first.map(String.init) ?? "(no transcript)"
  return String(format: "%4d  ", meeting.id) + meetingFormatter.string(from: meeting.date) + "  "
    + first
}

package func syncUpsTool() -> Tool {
  var commands: [Command] = []
  commands.append(
    Command("list", summary: "the sync-ups, their attendees and meeting counts") { _ in
      let summaries = try database().read { try Queries.summaries($0) }
      return .values(summaries) { summaries in
        summaries.isEmpty
          ? "No sync-ups yet: `hearth-syncups add Daily --attendee Ana --attendee Bo`."
          : summaries.map(\.line).joined(separator: "\n")
      }
    })
  commands.append(
    Command(
      "add", arguments: "TITLE… [--minutes M] [--theme T] [--attendee NAME]…",
      summary: "creates a sync-up",
      details: "--minutes defaults to 5; themes: "
        + SyncUp.Theme.allCases.map(\.rawValue).joined(separator: ", "),
      valuedOptions: ["minutes", "theme", "attendee"]
    ) { input in
      let title = try checkedName(try input.text(from: 0, name: "TITLE"), what: "title")
      let seconds = try duration(input) ?? 300
      let theme = try theme(input) ?? .bubblegum
      let names = try input.options("attendee").map { try checkedName($0, what: "attendee's name") }
      let summary = try database().write { db in
        let id = try SyncUp.insert { SyncUp.Draft(seconds: seconds, theme: theme, title: title) }
          .returning(\.id).fetchOne(db)!
        for name in names {
          try Attendee.insert { Attendee.Draft(name: name, syncUpID: id) }.execute(db)
        }
        return try Queries.summaries(db, only: id)[0]
      }
      return .values(summary) { "Created:\n" + $0.line }
    })
  commands.append(
    Command(
      "edit", arguments: "ID [--title T] [--minutes M] [--theme T]", summary: "changes a sync-up",
      valuedOptions: ["title", "minutes", "theme"]
    ) { input in
      let id = try input.positional(0, as: Int.self, name: "ID")
      let title = try input.option("title").map { try checkedName($0, what: "title") }
      let seconds = try duration(input)
      let theme = try theme(input)
      let summary = try database().write { db in
        _ = try findSyncUp(id, db)
        try SyncUp.find(id).update {
          if let title { $0.title = title }
          if let seconds { $0.seconds = seconds }
          if let theme { $0.theme = theme }
        }
        .execute(db)
        return try Queries.summaries(db, only: id)[0]
      }
      return .values(summary) { "Changed:\n" + $0.line }
    })
  commands.append(
    Command("attendee-add", arguments: "ID NAME…", summary: "adds an attendee") { input in
      let id = try input.positional(0, as: Int.self, name: "ID")
      let name = try checkedName(try input.text(from: 1, name: "NAME"), what: "attendee's name")
      let summary = try database().write { db in
        _ = try findSyncUp(id, db)
        try Attendee.insert { Attendee.Draft(name: name, syncUpID: id) }.execute(db)
        return try Queries.summaries(db, only: id)[0]
      }
      return .values(summary) { $0.line }
    })
  commands.append(
    Command("attendee-remove", arguments: "ID NAME…", summary: "removes an attendee") { input in
      let id = try input.positional(0, as: Int.self, name: "ID")
      let name = try input.text(from: 1, name: "NAME")
      let summary = try database().write { db in
        _ = try findSyncUp(id, db)
        let attendee = try Attendee.where {
          $0.syncUpID.eq(id) && $0.name.collate(.nocase).eq(name)
        }
        .fetchOne(db)
        guard let attendee else {
          throw CommandError.notFound("sync-up \(id) has no attendee '\(name)'")
        }
        try Attendee.find(attendee.id).delete().execute(db)
        return try Queries.summaries(db, only: id)[0]
      }
      return .values(summary) { $0.line }
    })
  commands.append(
    Command("delete", arguments: "ID", summary: "deletes a sync-up, its attendees and meetings") {
      input in
      let id = try input.positional(0, as: Int.self, name: "ID")
      let syncUp = try database().write { db in
        let syncUp = try findSyncUp(id, db)
        try SyncUp.find(id).delete().execute(db)
        return syncUp
      }
      return .message("Deleted sync-up \(id) \"\(syncUp.title)\".", json: ["id": id])
    })
  commands.append(
    Command("history", arguments: "ID", summary: "the meetings of a sync-up, newest first") {
      input in
      let id = try input.positional(0, as: Int.self, name: "ID")
      let meetings = try database().read { db in
        _ = try findSyncUp(id, db)
        return try Meeting.where { $0.syncUpID.eq(id) }.order { $0.date.desc() }.fetchAll(db)
      }
      return .values(meetings) { meetings in
        meetings.isEmpty
          ? "No meetings yet: `hearth-syncups start \(id)`."
          : meetings.map(meetingLine).joined(separator: "\n")
      }
    })
  commands.append(
    Command("meeting", arguments: "MEETING_ID", summary: "one meeting with its transcript") {
      input in
      let id = try input.positional(0, as: Int.self, name: "MEETING_ID")
      guard let meeting = try database().read({ try Meeting.find(id).fetchOne($0) }) else {
        throw CommandError.notFound("no meeting \(id); `hearth-syncups history ID` lists them")
      }
      return .values(meeting) { meeting in
        meetingFormatter.string(from: meeting.date) + "\n\n"
          + (meeting.transcript.isEmpty ? "(no transcript)" : meeting.transcript)
      }
    })
  commands.append(
    Command(
      "start", arguments: "ID", summary: "runs the meeting timer in this terminal, then saves it",
      details: """
        Each attendee speaks in turn for an equal share of the sync-up's length.
        Keys: n or space next speaker · t type a line of transcript (Enter keeps it)
        · q end and save · x or Ctrl-C discard.
        """
    ) { input in
      let id = try input.positional(0, as: Int.self, name: "ID")
      let (syncUp, names) = try database().read { db in
        let syncUp = try findSyncUp(id, db)
        return (
          syncUp,
          try Attendee.where { $0.syncUpID.eq(id) }.order(by: \.id).select(\.name).fetchAll(db)
        )
      }
      guard !names.isEmpty else {
        throw CommandError.usage("sync-up \(id) has no attendees; add one with attendee-add")
      }
      let started = Date()
      switch try MeetingTimer(syncUp: syncUp, speakers: names).run() {
      case .discarded:
        return .message("Meeting discarded.", json: ["saved": false])
      case .saved(let transcript, let elapsed):
        let meeting = try saveMeeting(id, transcript: transcript, date: started)
        return .message(
          "Saved meeting \(meeting.id) (\(elapsed / 60) min \(elapsed % 60) s).",
          json: ["saved": true, "id": meeting.id])
      }
    })
  commands.append(
    Command(
      "record", arguments: "ID [--transcript TEXT|-] [--date DATE]",
      summary: "saves a meeting without the timer (for scripts)",
      valuedOptions: ["transcript", "date"]
    ) { input in
      let id = try input.positional(0, as: Int.self, name: "ID")
      var transcript = input.option("transcript") ?? ""
      if transcript == "-" { transcript = try readStandardInput(limit: 1 << 20) }
      guard transcript.utf8.count <= 1 << 20 else {
        throw CommandError.usage("the transcript is longer than 1 MiB; nothing was saved")
      }
      var date = Date()
      if let text = input.option("date") {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        formatter.isLenient = false
        guard let parsed = formatter.date(from: text) else {
          throw CommandError.usage("'\(text)' is not a date; write '2026-12-24 09:30'")
        }
        date = parsed
      }
      let meeting = try saveMeeting(id, transcript: transcript, date: date)
      return .values(meeting) { "Saved meeting \($0.id)." }
    })
  commands.append(
    Command("watch", summary: "the sync-ups, redrawn live as they change") { _ in
      let db = try database()
      watch(db, tables: ["syncUps", "attendees", "meetings"], title: "hearth-syncups") {
        let summaries = try db.read { try Queries.summaries($0) }
        return summaries.isEmpty ? "No sync-ups." : summaries.map(\.line).joined(separator: "\n")
      }
    })
  commands.append(
    Command(
      "run", arguments: "[--interval S]",
      summary: "the background duty: logs each meeting saved (what hearth-feature@syncups runs)",
      valuedOptions: ["interval"]
    ) { input in
      let interval = try input.seconds("interval", default: 5, in: 0.01...3600)
      let db = try database()
      let newest: Int?? = try db.read { try Meeting.select { $0.id.max() }.fetchOne($0) }
      let lastMeeting = Locked((newest ?? nil) ?? 0)
      runDuties(name: "syncups", interval: .milliseconds(Int(interval * 1000))) {
        let after = lastMeeting.withLock { $0 }
        let meetings = try db.read { db in
          try Meeting.where { $0.id.gt(after) }.order(by: \.id)
            .join(SyncUp.all) { $0.syncUpID.eq($1.id) }.select { ($0.id, $1.title) }.fetchAll(db)
        }
        for (id, title) in meetings {
          Logger(label: "syncups").info("meeting \(id) of \"\(title)\" saved")
          lastMeeting.withLock { $0 = id }
        }
      }
    })
  return Tool.feature(
    name: "hearth-syncups", summary: "sync-ups: who speaks, for how long, and what was said",
    commands: commands)
}
