// The reminders feature's data work: functions of a `Database`, which the commands run
// through the hub and the tests run on a local database.
import Foundation
import HearthData
import HearthPlugin

/// A reminder as `add` makes it.
struct NewReminder: Sendable {
  var title: String
  var notes = ""
  var dueDate: Date?
  var priority: Reminder.Priority?
  var isFlagged = false
  /// The list's id or title; nil: the first list (a new "Reminders" when there is none).
  var list: String?
  var tags: [String] = []
  /// Its id: nil for a new one (a CalDAV client's names its own).
  var id: Reminder.ID?

  init(title: String) { self.title = title }
}

/// What `edit` changes of a reminder: nil leaves a field as it is.
struct ReminderEdit: Sendable {
  var title: String?
  var notes: String?
  var dueDate: Date??
  var priority: Reminder.Priority??
  var list: String?
  var isFlagged: Bool?

  init() {}
}

enum RemindersActions {

  static func findReminder(_ id: Reminder.ID, _ db: Database) throws -> Reminder {
    guard let reminder = try Reminder.find(id).fetchOne(db) else {
      throw CommandError.notFound(
        "no reminder \(ShortID.of(id)); `hearth-reminders show --all` lists them")
    }
    return reminder
  }

  /// The reminder a typed handle (a prefix of its id, as `show` prints) names.
  static func reminderID(_ handle: String, _ db: Database) throws -> Reminder.ID {
    try ShortID.resolve(handle, what: "reminder", in: Reminder.tableName, db)
  }

  static func reminderIDs(_ handles: [String], _ db: Database) throws -> [Reminder.ID] {
    guard !handles.isEmpty else { throw CommandError.usage("missing ID") }
    return try handles.map { try reminderID($0, db) }
  }

  /// A list by (case-insensitive) title, or by a prefix of its id.
  static func findList(_ text: String, _ db: Database) throws -> RemindersList {
    if let list = try RemindersList.where({ $0.title.collate(.nocase).eq(text) }).fetchOne(db) {
      return list
    }
    let pattern = try? ShortID.pattern(text, what: "list")
    if let pattern {
      let found = try RemindersList.where { #sql("\($0.id) LIKE \(pattern)") }.limit(2)
        .fetchAll(db)
      if found.count == 1 { return found[0] }
      if found.count > 1 {
        throw CommandError.usage("'\(text)' names more than one list; type more of its id")
      }
    }
    throw CommandError.notFound("no list '\(text)'; `hearth-reminders lists` shows them")
  }

  /// The list new reminders go to: `name`, else the first list, else a new "Reminders".
  static func targetList(_ name: String?, _ db: Database) throws -> RemindersList.ID {
    if let name { return try findList(name, db).id }
    if let first = try RemindersList.order({ ($0.position, $0.rowid) }).fetchOne(db) {
      return first.id
    }
    return try RemindersList.insert { RemindersList.Draft(title: "Reminders") }
      .returning(\.id).fetchOne(db)!
  }

  /// The tags named (an existing tag whatever the case it is typed in), created when new.
  static func tagIDs(_ titles: [String], _ db: Database) throws -> [Tag.ID] {
    try titles.map { raw in
      let title = try checkedTitle(raw.hasPrefix("#") ? String(raw.dropFirst()) : raw, what: "tag")
      guard title.count <= 100 else { throw CommandError.usage("the tag '\(title)' is too long") }
      if let tag = try Tag.where({ $0.title.collate(.nocase).eq(title) }).fetchOne(db) {
        return tag.id
      }
      try Tag.insert { Tag(title: title) }.execute(db)
      return title
    }
  }

  /// Creates a list at the end of the lists.
  static func addList(
    title: String, color: Color?, id: RemindersList.ID? = nil, _ db: Database
  ) throws -> RemindersList {
    let position = try RemindersList.select { ($0.position.max() ?? -1) + 1 }.fetchOne(db) ?? 0
    return try RemindersList.insert {
      RemindersList.Draft(id: id, color: color ?? .blue, position: position, title: title)
    }
    .returning(\.self).fetchOne(db)!
  }

  static func editList(_ name: String, title: String?, color: Color?, _ db: Database)
    throws -> RemindersList
  {
    let id = try findList(name, db).id
    try RemindersList.find(id).update {
      if let title { $0.title = title }
      if let color { $0.color = Color.HexRepresentation(queryOutput: color) }
    }
    .execute(db)
    return try RemindersList.find(id).fetchOne(db)!
  }

  /// Deletes a list and its reminders; returns it and how many reminders went with it.
  static func deleteList(_ name: String, _ db: Database) throws
    -> (list: RemindersList, reminders: Int)
  {
    let list = try findList(name, db)
    let count = try Reminder.where { $0.remindersListID.eq(list.id) }.count().fetchOne(db) ?? 0
    try RemindersList.find(list.id).delete().execute(db)
    return (list, count)
  }

  /// Adds a reminder at the end of its list, with its tags (new ones are created).
  static func add(_ new: NewReminder, _ db: Database) throws -> ReminderRow {
    let listID = try targetList(new.list, db)
    let position =
      try Reminder.where { $0.remindersListID.eq(listID) }
      .select { ($0.position.max() ?? -1) + 1 }.fetchOne(db) ?? 0
    let id = try Reminder.insert {
      Reminder.Draft(
        id: new.id, remindersListID: listID, title: new.title, notes: new.notes,
        dueDate: new.dueDate,
        isFlagged: new.isFlagged, priority: new.priority, position: position)
    }
    .returning(\.id).fetchOne(db)!
    for tagID in try tagIDs(new.tags, db) {
      try ReminderTag.insert { ReminderTag(reminderID: id, tagID: tagID) }.execute(db)
    }
    return try Queries.rows(db, Reminder.find(id)).first!
  }

  static func edit(_ id: Reminder.ID, _ edit: ReminderEdit, _ db: Database) throws
    -> ReminderRow
  {
    _ = try findReminder(id, db)
    let listID = try edit.list.map { try findList($0, db).id }
    try Reminder.find(id).update {
      if let title = edit.title { $0.title = title }
      if let notes = edit.notes { $0.notes = notes }
      if let due = edit.dueDate { $0.dueDate = due }
      if let priority = edit.priority { $0.priority = priority }
      if let listID { $0.remindersListID = listID }
      if let flagged = edit.isFlagged { $0.isFlagged = flagged }
    }
    .execute(db)
    return try Queries.rows(db, Reminder.find(id)).first!
  }

  /// Marks the open reminders of `ids` `status` (completing, or completed at once) at `now`.
  static func complete(
    _ ids: [Reminder.ID], status: Reminder.Status, now: Date, _ db: Database
  ) throws {
    for id in ids { _ = try findReminder(id, db) }
    try Reminder.where { $0.id.in(ids) && $0.status.eq(Reminder.Status.incomplete) }
      .update {
        $0.status = status
        $0.completingAt = Optional(now)
      }
      .execute(db)
  }

  static func reopen(_ id: Reminder.ID, _ db: Database) throws {
    _ = try findReminder(id, db)
    try Reminder.find(id).update {
      $0.status = Reminder.Status.incomplete
      $0.completingAt = Date?.none
    }
    .execute(db)
  }

  static func delete(_ ids: [Reminder.ID], _ db: Database) throws {
    for id in ids { _ = try findReminder(id, db) }
    try Reminder.where { $0.id.in(ids) }.delete().execute(db)
  }

  static func tag(_ id: Reminder.ID, with titles: [String], _ db: Database) throws
    -> ReminderRow
  {
    _ = try findReminder(id, db)
    for tagID in try tagIDs(titles, db) {
      try ReminderTag.insert(or: .ignore) { ReminderTag(reminderID: id, tagID: tagID) }
        .execute(db)
    }
    return try Queries.rows(db, Reminder.find(id)).first!
  }

  static func untag(_ id: Reminder.ID, _ titles: [String], _ db: Database) throws
    -> ReminderRow
  {
    _ = try findReminder(id, db)
    let titles = titles.map { $0.hasPrefix("#") ? String($0.dropFirst()) : $0 }
    let tagIDs = try Tag.where { $0.title.collate(.nocase).in(titles) }.select(\.title)
      .fetchAll(db)
    try ReminderTag.where { $0.reminderID.eq(id) && $0.tagID.in(tagIDs) }.delete().execute(db)
    return try Queries.rows(db, Reminder.find(id)).first!
  }

  /// Moves a reminder to `position` within its list (0 is the top); returns the list.
  static func move(_ id: Reminder.ID, to position: Int, _ db: Database) throws
    -> [ReminderRow]
  {
    let moved = try findReminder(id, db)
    var ids = try Reminder.where { $0.remindersListID.eq(moved.remindersListID) }
      .order { ($0.position, $0.rowid) }.select(\.id).fetchAll(db)
    ids.removeAll { $0 == id }
    ids.insert(id, at: min(position, ids.count))
    try reorder(ids, db)
    return try Queries.rows(db, Reminder.where { $0.remindersListID.eq(moved.remindersListID) })
  }

  /// Gives the reminders `ids` the positions 0, 1, 2… in one UPDATE (the seeds' batch
  /// reordering with `Case`).
  static func reorder(_ ids: [Reminder.ID], _ db: Database) throws {
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

  /// The `run` duty: completes the reminders whose completing delay has passed, and records
  /// an alert for each reminder that has fallen due (once per reminder and due date);
  /// returns the reminders that fell due.
  static func runDuty(now: Date, completionDelay: TimeInterval, _ db: Database) throws
    -> [Reminder]
  {
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
    }
    return due
  }
}
