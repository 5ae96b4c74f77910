import Foundation
import HearthData

// The queries of the feature, as the seeds write them.

extension Reminder.TableColumns {
  var isCompleted: some QueryExpression<Bool> {
    status.neq(Reminder.Status.incomplete)
  }

  var isPastDue: some QueryExpression<Bool> {
    @Dependency(\.date.now) var now
    return !isCompleted
      && #sql("coalesce(date(\(dueDate), 'localtime') < date(\(now), 'localtime'), 0)")
  }

  var isToday: some QueryExpression<Bool> {
    @Dependency(\.date.now) var now
    return !isCompleted
      && #sql("coalesce(date(\(dueDate), 'localtime') = date(\(now), 'localtime'), 0)")
  }

  var isScheduled: some QueryExpression<Bool> {
    !isCompleted && dueDate.isNot(nil)
  }
}

extension Reminder {
  static let incomplete = Self.where { !$0.isCompleted }
}

@Selection
struct Stats: Codable, Hashable {
  var allCount = 0
  var todayCount = 0
  var scheduledCount = 0
  var flaggedCount = 0
  var pastDueCount = 0
  var completedCount = 0
}

@Selection
struct ListSummary: Codable, Hashable {
  let list: RemindersList
  let openCount: Int
}

/// A list as `lists` shows it: with its open count and whom it is shared with (or by).
struct ListLine: Codable, Hashable {
  let list: RemindersList
  let openCount: Int
  let share: Share?
}

/// A reminder with what its lines show: its list's title and its tags.
struct ReminderRow: Codable, Hashable {
  var reminder: Reminder
  var listTitle: String
  var tags: [String]
}

package enum Queries {
  static func stats(_ db: Database) throws -> Stats {
    try Reminder.select {
      Stats.Columns(
        allCount: $0.count(filter: !$0.isCompleted),
        todayCount: $0.count(filter: $0.isToday),
        scheduledCount: $0.count(filter: $0.isScheduled),
        flaggedCount: $0.count(filter: !$0.isCompleted && $0.isFlagged),
        pastDueCount: $0.count(filter: $0.isPastDue),
        completedCount: $0.count(filter: $0.isCompleted))
    }
    .fetchOne(db) ?? Stats()
  }

  static func lists(_ db: Database) throws -> [ListSummary] {
    try RemindersList.order { ($0.position, $0.rowid) }
      .select { list in
        ListSummary.Columns(
          list: list,
          openCount: Reminder.where { $0.remindersListID.eq(list.id) && !$0.isCompleted }.count())
      }
      .fetchAll(db)
  }

  /// The lists with their shares (on a database no hub syncs, none).
  static func listLines(_ db: Database) throws -> [ListLine] {
    var shares: [String: Share] = [:]
    if try db.tableExists(SyncMetadata.tableName) {
      let shared = try SyncMetadata.where {
        $0.isShared && $0.id.recordType.eq(RemindersList.tableName)
      }
      .fetchAll(db)
      for metadata in shared { shares[metadata.recordPrimaryKey] = metadata.share }
    }
    return try lists(db).map { summary in
      ListLine(
        list: summary.list, openCount: summary.openCount,
        share: shares[summary.list.id.uuidString.lowercased()])
    }
  }

  /// Reminders with their list's title and tags, in list and position order.
  static func rows(_ db: Database, _ reminders: Where<Reminder>) throws -> [ReminderRow] {
    let found = try reminders.join(RemindersList.all) { $0.remindersListID.eq($1.id) }
      .order { r, l in (l.position, l.rowid, r.position, r.rowid) }
      .select { ($0, $1.title) }
      .fetchAll(db)
    return try withTags(db, found.map { (reminder: $0.0, listTitle: $0.1) })
  }

  static func withTags(_ db: Database, _ found: [(reminder: Reminder, listTitle: String)]) throws
    -> [ReminderRow]
  {
    let ids = found.map(\.reminder.id)
    var tags: [Reminder.ID: [String]] = [:]
    let pairs = try ReminderTag.where { $0.reminderID.in(ids) }
      .order(by: \.tagID)
      .select { ($0.reminderID, $0.tagID) }
      .fetchAll(db)
    for (id, title) in pairs { tags[id, default: []].append(title) }
    return found.map {
      ReminderRow(reminder: $0.reminder, listTitle: $0.listTitle, tags: tags[$0.reminder.id] ?? [])
    }
  }

  /// Full-text search over titles, notes and tags, best match first, the matches marked.
  package static func search(_ db: Database, _ text: String, limit: Int = 50) throws
    -> [SearchHit]
  {
    guard !ftsQuery(text).isEmpty else { return [] }
    return try searchStatement(text, limit: limit).fetchAll(db)
  }

  /// The statement of `search`.
  package static func searchStatement(_ text: String, limit: Int = 50) -> some Statement<SearchHit>
  {
    let query = ftsQuery(text)
    return ReminderText.where { $0.match(query) }
      .join(Reminder.all) { $0.rowid.eq($1.rowid) }
      .order { t, _ in t.rank }
      .limit(limit)
      .select {
        SearchHit.Columns(
          reminderID: $1.id,
          title: $0.title.highlight("[", "]"),
          snippet: $0.notes.snippet("[", "]", "…", 12),
          tags: $0.tags.highlight("[", "]"))
      }
  }

  /// The words of `text` as an FTS5 query: each a prefix match, all of them required, so
  /// that punctuation typed by a person is never FTS5 syntax.
  static func ftsQuery(_ text: String) -> String {
    text.split(whereSeparator: { !$0.isLetter && !$0.isNumber })
      .map { "\"\($0)\"*" }
      .joined(separator: " ")
  }
}

@Selection
package struct SearchHit: Codable, Hashable {
  package let reminderID: UUID
  package let title: String
  package let snippet: String
  package let tags: String
}
