// The sync-ups feature's data work: functions of a `Database`, which the commands run through
// the hub and the tests run on a local database.
import Foundation
import HearthData
import HearthPlugin

package enum SyncUpActions {
  package static func find(_ id: SyncUp.ID, _ db: Database) throws -> SyncUp {
    guard let syncUp = try SyncUp.find(id).fetchOne(db) else {
      throw CommandError.notFound(
        "no sync-up \(ShortID.of(id)); `hearth-syncups list` shows them")
    }
    return syncUp
  }

  /// The sync-up a typed handle (a prefix of its id, as `list` shows) names.
  package static func syncUpID(_ handle: String, _ db: Database) throws -> SyncUp.ID {
    try ShortID.resolve(handle, what: "sync-up", in: SyncUp.tableName, db)
  }

  /// The meeting a typed handle (as `history` shows) names.
  package static func meetingID(_ handle: String, _ db: Database) throws -> Meeting.ID {
    try ShortID.resolve(handle, what: "meeting", in: Meeting.tableName, db)
  }

  /// Creates a sync-up with its attendees.
  package static func add(
    title: String, seconds: Int, theme: SyncUp.Theme, attendees: [String], _ db: Database
  ) throws -> SyncUpSummary {
    let id = try SyncUp.insert { SyncUp.Draft(seconds: seconds, theme: theme, title: title) }
      .returning(\.id).fetchOne(db)!
    for name in attendees {
      try Attendee.insert { Attendee.Draft(name: name, syncUpID: id) }.execute(db)
    }
    return try Queries.summaries(db, only: id)[0]
  }

  /// Changes what is given of a sync-up.
  package static func edit(
    _ id: SyncUp.ID, title: String?, seconds: Int?, theme: SyncUp.Theme?, _ db: Database
  ) throws -> SyncUpSummary {
    _ = try find(id, db)
    try SyncUp.find(id).update {
      if let title { $0.title = title }
      if let seconds { $0.seconds = seconds }
      if let theme { $0.theme = theme }
    }
    .execute(db)
    return try Queries.summaries(db, only: id)[0]
  }

  package static func addAttendee(_ name: String, to id: SyncUp.ID, _ db: Database) throws
    -> SyncUpSummary
  {
    _ = try find(id, db)
    try Attendee.insert { Attendee.Draft(name: name, syncUpID: id) }.execute(db)
    return try Queries.summaries(db, only: id)[0]
  }

  /// Removes the attendee called `name` (without regard to case).
  package static func removeAttendee(_ name: String, from id: SyncUp.ID, _ db: Database) throws
    -> SyncUpSummary
  {
    _ = try find(id, db)
    guard
      let attendee = try Attendee.where({ $0.syncUpID.eq(id) && $0.name.collate(.nocase).eq(name) })
        .fetchOne(db)
    else { throw CommandError.notFound("sync-up \(ShortID.of(id)) has no attendee '\(name)'") }
    try Attendee.find(attendee.id).delete().execute(db)
    return try Queries.summaries(db, only: id)[0]
  }

  /// Deletes a sync-up (its attendees and meetings go with it).
  package static func delete(_ id: SyncUp.ID, _ db: Database) throws -> SyncUp {
    let syncUp = try find(id, db)
    try SyncUp.find(id).delete().execute(db)
    return syncUp
  }

  /// The meetings of a sync-up, newest first.
  package static func history(of id: SyncUp.ID, _ db: Database) throws -> [Meeting] {
    _ = try find(id, db)
    return try Meeting.where { $0.syncUpID.eq(id) }.order { $0.date.desc() }.fetchAll(db)
  }

  package static func saveMeeting(
    of id: SyncUp.ID, transcript: String, date: Date, _ db: Database
  ) throws -> Meeting {
    _ = try find(id, db)
    return try Meeting.insert { Meeting.Draft(date: date, syncUpID: id, transcript: transcript) }
      .returning(\.self).fetchOne(db)!
  }

  /// A sync-up and its attendees' names, by name, the same on every device (the timer's order).
  package static func speakers(of id: SyncUp.ID, _ db: Database) throws -> (SyncUp, [String]) {
    let syncUp = try find(id, db)
    let names = try Attendee.where { $0.syncUpID.eq(id) }.order {
      ($0.name.collate(.nocase), $0.id)
    }.select(\.name)
      .fetchAll(db)
    return (syncUp, names)
  }

  /// The meetings that came after the one of rowid `rowid` (saved here, or pulled from
  /// another device), with their rowid and their sync-up's title (the `run` duty).
  package static func meetings(after rowid: Int, _ db: Database) throws
    -> [(rowid: Int, id: Meeting.ID, title: String)]
  {
    try Row.fetchAll(
      db,
      sql: """
        SELECT m.rowid, m.id, s.title FROM meetings m JOIN syncUps s ON s.id = m.syncUpID
        WHERE m.rowid > ? ORDER BY m.rowid
        """, arguments: [rowid]
    )
    .map { (rowid: try $0[0], id: try $0[1], title: try $0[2]) }
  }

  /// The newest meeting's rowid (0 when there is none).
  package static func newestMeeting(_ db: Database) throws -> Int {
    try Int.fetchOne(db, sql: "SELECT coalesce(max(rowid), 0) FROM meetings") ?? 0
  }
}
