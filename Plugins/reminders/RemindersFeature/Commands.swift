// The commands of hearth-reminders: each reads its input, runs `RemindersActions` (or a
// query) on the database the executable prepared (`@Dependency(\.defaultDatabase)`), and
// renders the result.
import Foundation
import HearthData
import HearthPlugin

func color(_ input: CommandInput) throws -> Color? {
  try input.option("color").map { text in
    guard let color = Color(parsing: text) else {
      throw CommandError.usage("'\(text)' is not a colour; use #rrggbb or a name like green")
    }
    return color
  }
}

/// The handles (id prefixes, as `show` prints them) of the command's positional IDs.
func handles(_ input: CommandInput) throws -> [String] {
  guard !input.positionals.isEmpty else { throw CommandError.usage("missing ID") }
  return input.positionals
}

/// Ids as commands print them.
func shown(_ ids: [Reminder.ID]) -> String { ids.map(ShortID.of).joined(separator: ", ") }

let lists = Command("lists", summary: "the lists, with how many reminders each has open") { _ in
  @Dependency(\.defaultDatabase) var database
  return .values(try database.read { try Queries.listLines($0) }, render: render)
}

let shareList = Command(
  "share", arguments: "LIST [--read-write] [--title TITLE]",
  summary: "shares a list and its reminders with another person; prints the invitation",
  details: """
    The other person accepts it on their hub: hearth sync accept INVITATION. They may only
    read it unless --read-write (sharing again sets the permission, and makes another
    invitation). The list's and its reminders' attachments go with them, images too;
    tags are not shared (a reminder's tags have two parents).
    """,
  valuedOptions: ["title"], flags: ["read-write"]
) { input in
  @Dependency(\.defaultDatabase) var database
  @Dependency(\.defaultSyncEngine) var syncEngine
  let list = try database.read {
    try RemindersActions.findList(try input.positional(0, name: "LIST"), $0)
  }
  let permission: Share.Permission = input.flag("read-write") ? .readWrite : .readOnly
  let title = input.option("title") ?? list.title
  let engine = syncEngine
  let shared = try waitFor {
    try await engine.share(record: list) { share in
      share[Share.SystemFieldKey.title] = title
      share.publicPermission = permission
    }
  }
  return .message(
    "Shared list \(ShortID.of(list.id)) \"\(list.title)\" (\(sharing(shared.share))).\n"
      + "Invitation (hearth sync accept it on the other person's hub):\n"
      + (shared.invitation ?? ""),
    json: ["id": list.id.uuidString, "invitation": shared.invitation as Any, "zone": shared.id])
}

let unshareList = Command(
  "unshare", arguments: "LIST", summary: "stops sharing a list: the others lose it, you keep it"
) { input in
  @Dependency(\.defaultDatabase) var database
  @Dependency(\.defaultSyncEngine) var syncEngine
  let list = try database.read {
    try RemindersActions.findList(try input.positional(0, name: "LIST"), $0)
  }
  let engine = syncEngine
  try waitFor { try await engine.unshare(record: list) }
  return .message(
    "List \(ShortID.of(list.id)) \"\(list.title)\" is no longer shared.",
    json: ["id": list.id.uuidString])
}

let listMembers = Command(
  "members", arguments: "LIST",
  summary: "who a shared list is shared with, and what each may do"
) { input in
  @Dependency(\.defaultDatabase) var database
  let (list, share) = try database.read { db in
    let list = try RemindersActions.findList(try input.positional(0, name: "LIST"), db)
    return (list, try Queries.listLines(db).first { $0.list.id == list.id }?.share)
  }
  guard let share else {
    return .message(
      "List \(ShortID.of(list.id)) \"\(list.title)\" is not shared.",
      json: ["id": list.id.uuidString.lowercased(), "shared": false])
  }
  let people =
    share.isOwner
    ? share.participants.map { "\($0.role)  \(memberPermission($0.permission))" }
    : ["\(share.owner)  owner", "you  \(memberPermission(share.publicPermission))"]
  return .message(
    "List \(ShortID.of(list.id)) \"\(list.title)\" (\(sharing(share))):\n"
      + (people.isEmpty ? "nobody has accepted it yet" : people.joined(separator: "\n")),
    json: [
      "id": list.id.uuidString.lowercased(), "shared": true, "owner": share.owner,
      "isOwner": share.isOwner,
      "members": share.participants.map {
        ["role": $0.role, "permission": $0.permission.rawValue]
      },
    ])
}

let revokeMember = Command(
  "revoke", arguments: "LIST PERSON",
  summary: "takes a shared list from one person (their hubs drop it); the others keep it"
) { input in
  @Dependency(\.defaultDatabase) var database
  @Dependency(\.defaultSyncEngine) var syncEngine
  let person = try input.positional(1, name: "PERSON")
  let (list, share) = try database.read { db in
    let list = try RemindersActions.findList(try input.positional(0, name: "LIST"), db)
    return (list, try Queries.listLines(db).first { $0.list.id == list.id }?.share)
  }
  guard let share, share.isOwner else {
    throw CommandError.usage(
      "list \(ShortID.of(list.id)) \"\(list.title)\" is not shared by you: nothing to revoke")
  }
  guard share.participants.contains(where: { $0.role == person }) else {
    let members = share.participants.map(\.role).joined(separator: ", ")
    throw CommandError.notFound(
      "\(person) is not a member of list \"\(list.title)\""
        + (members.isEmpty ? " (nobody is yet)" : " (its members: \(members))"))
  }
  let engine = syncEngine
  try waitFor { try await engine.revoke(record: list, from: person) }
  return .message(
    "\(person) no longer has list \(ShortID.of(list.id)) \"\(list.title)\".",
    json: ["id": list.id.uuidString.lowercased(), "revoked": person])
}

private func memberPermission(_ permission: Share.Permission) -> String {
  permission == .readWrite ? "read-write" : "read-only"
}

let addList = Command(
  "list-add", arguments: "TITLE [--color COLOR]", summary: "creates a list",
  details: "COLOR: #rrggbb or red, orange, yellow, green, blue, purple, brown.",
  valuedOptions: ["color"]
) { input in
  @Dependency(\.defaultDatabase) var database
  let title = try checkedTitle(try input.text(from: 0, name: "TITLE"))
  let color = try color(input)
  let list = try database.write { try RemindersActions.addList(title: title, color: color, $0) }
  return .values(list) { "Created list \(ShortID.of($0.id)) \"\($0.title)\"." }
}

let editList = Command(
  "list-edit", arguments: "LIST [--title TITLE] [--color COLOR]",
  summary: "renames or recolours a list", valuedOptions: ["title", "color"]
) { input in
  @Dependency(\.defaultDatabase) var database
  let target = try input.positional(0, name: "LIST")
  let title = try input.option("title").map { try checkedTitle($0) }
  let color = try color(input)
  let edited = try database.write {
    try RemindersActions.editList(target, title: title, color: color, $0)
  }
  return .values(edited) { "List \(ShortID.of($0.id)) is \"\($0.title)\" (\($0.color.hex))." }
}

let deleteList = Command(
  "list-delete", arguments: "LIST", summary: "deletes a list and its reminders"
) { input in
  @Dependency(\.defaultDatabase) var database
  let target = try input.positional(0, name: "LIST")
  let (list, count) = try database.write { try RemindersActions.deleteList(target, $0) }
  return .message(
    "Deleted list \(ShortID.of(list.id)) \"\(list.title)\" and its \(count) reminder(s).",
    json: ["id": list.id.uuidString, "deletedReminders": count])
}

let add = Command(
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
  valuedOptions: ["list", "notes", "due", "priority", "tag"], flags: ["flag"]
) { input in
  @Dependency(\.defaultDatabase) var database
  @Dependency(\.date.now) var now
  var new = NewReminder(title: try checkedTitle(try input.text(from: 0, name: "TITLE")))
  new.notes = try notes(input) ?? ""
  new.dueDate = try input.option("due").map { try parseDate($0, now: now) }
  new.priority = try input.option("priority").flatMap { try parsePriority($0) }
  new.isFlagged = input.flag("flag")
  new.list = input.option("list")
  new.tags = input.options("tag")
  let row = try database.write { [new] in try RemindersActions.add(new, $0) }
  return .values(row) { "Added:\n" + line($0) }
}

let show = Command(
  "show", arguments: "[filters]", summary: "lists open reminders (or as filtered)",
  details: filterOptions, valuedOptions: ["list", "tag"], flags: filterFlags
) { input in
  @Dependency(\.defaultDatabase) var database
  let rows = try database.read { db in try Queries.rows(db, try filtered(input, db)) }
  return .values(rows, render: render)
}

let info = Command("info", arguments: "ID", summary: "one reminder, notes included") { input in
  @Dependency(\.defaultDatabase) var database
  let handle = try input.positional(0, name: "ID")
  let row = try database.read { db in
    try Queries.rows(db, Reminder.find(try RemindersActions.reminderID(handle, db))).first!
  }
  return .values(row) { row in
    line(row) + (row.reminder.notes.isEmpty ? "" : "\n\n" + row.reminder.notes)
  }
}

let edit = Command(
  "edit",
  arguments:
    "ID [--title T] [--notes TEXT|-] [--due DATE|none] [--priority P|none] [--list LIST] [--flag|--unflag]",
  summary: "changes a reminder",
  valuedOptions: ["title", "notes", "due", "priority", "list"], flags: ["flag", "unflag"]
) { input in
  @Dependency(\.defaultDatabase) var database
  @Dependency(\.date.now) var now
  let handle = try input.positional(0, name: "ID")
  var edit = ReminderEdit()
  edit.title = try input.option("title").map { try checkedTitle($0) }
  edit.notes = try notes(input)
  edit.dueDate = try input.option("due").map {
    $0.lowercased() == "none" ? nil : try parseDate($0, now: now)
  }
  edit.priority = try input.option("priority").map { try parsePriority($0) }
  edit.list = input.option("list")
  if input.flag("flag") { edit.isFlagged = true }
  if input.flag("unflag") { edit.isFlagged = false }
  let row = try database.write { [edit] db in
    try RemindersActions.edit(try RemindersActions.reminderID(handle, db), edit, db)
  }
  return .values(row) { "Changed:\n" + line($0) }
}

let complete = Command(
  "complete", arguments: "ID… [--now]",
  summary: "marks reminders completing (completed shortly after, by the run duty)",
  details: "--now completes them at once.", flags: ["now"]
) { input in
  @Dependency(\.defaultDatabase) var database
  @Dependency(\.date.now) var now
  let handles = try handles(input)
  let status: Reminder.Status = input.flag("now") ? .completed : .completing
  let ids = try database.write { db in
    let ids = try RemindersActions.reminderIDs(handles, db)
    try RemindersActions.complete(ids, status: status, now: now, db)
    return ids
  }
  return .message(
    "\(status == .completed ? "Completed" : "Completing") \(shown(ids)).",
    json: [
      "ids": ids.map { $0.uuidString },
      "status": status == .completed ? "completed" : "completing",
    ])
}

let reopen = Command("reopen", arguments: "ID", summary: "marks a reminder not completed") {
  input in
  @Dependency(\.defaultDatabase) var database
  let handle = try input.positional(0, name: "ID")
  let id = try database.write { db in
    let id = try RemindersActions.reminderID(handle, db)
    try RemindersActions.reopen(id, db)
    return id
  }
  return .message("Reopened \(ShortID.of(id)).", json: ["id": id.uuidString])
}

let delete = Command("delete", arguments: "ID…", summary: "deletes reminders") { input in
  @Dependency(\.defaultDatabase) var database
  let handles = try handles(input)
  let ids = try database.write { db in
    let ids = try RemindersActions.reminderIDs(handles, db)
    try RemindersActions.delete(ids, db)
    return ids
  }
  return .message(
    "Deleted \(shown(ids)).", json: ["ids": ids.map { $0.uuidString }])
}

let tag = Command("tag", arguments: "ID TAG…", summary: "tags a reminder") { input in
  @Dependency(\.defaultDatabase) var database
  let handle = try input.positional(0, name: "ID")
  let titles = Array(input.positionals.dropFirst())
  guard !titles.isEmpty else { throw CommandError.usage("missing TAG") }
  return .values(
    try database.write { db in
      try RemindersActions.tag(try RemindersActions.reminderID(handle, db), with: titles, db)
    }
  ) { line($0) }
}

let untag = Command("untag", arguments: "ID TAG…", summary: "removes tags from a reminder") {
  input in
  @Dependency(\.defaultDatabase) var database
  let handle = try input.positional(0, name: "ID")
  let titles = Array(input.positionals.dropFirst())
  guard !titles.isEmpty else { throw CommandError.usage("missing TAG") }
  return .values(
    try database.write { db in
      try RemindersActions.untag(try RemindersActions.reminderID(handle, db), titles, db)
    }
  ) { line($0) }
}

let search = Command(
  "search", arguments: "TEXT…", summary: "full-text search over titles, notes and tags, best first"
) { input in
  @Dependency(\.defaultDatabase) var database
  let text = try input.text(from: 0, name: "TEXT")
  let hits = try database.read { try Queries.search($0, text) }
  return .values(hits) { hits in
    hits.isEmpty ? "Nothing matches \"\(text)\"." : hits.map(line).joined(separator: "\n")
  }
}

let stats = Command("stats", summary: "counts: all, today, scheduled, flagged, past due, completed")
{ _ in
  @Dependency(\.defaultDatabase) var database
  return .values(try database.read { try Queries.stats($0) }, render: render)
}

let move = Command(
  "move", arguments: "ID POSITION", summary: "moves a reminder within its list (0 is the top)"
) { input in
  @Dependency(\.defaultDatabase) var database
  let handle = try input.positional(0, name: "ID")
  let position = try input.positional(1, as: Int.self, name: "POSITION")
  guard position >= 0 else { throw CommandError.usage("POSITION must be 0 or more") }
  return .values(
    try database.write { db in
      try RemindersActions.move(try RemindersActions.reminderID(handle, db), to: position, db)
    }, render: render)
}
