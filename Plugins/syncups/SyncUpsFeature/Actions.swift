// The sync-ups feature's data work: functions of a `Database`, which the commands run through
// the hub and the tests run on a local database.
import Foundation
import HearthData
import HearthPlugin

package enum SyncUpActions {
  package static func find(_ id: SyncUp.ID, _ db: Database) throws -> SyncUp {
    guard let syncUp = try SyncUp.find(id).fetchOne(db) else {
      throw CommandError.notFound("no sync-up \(id); `hearth-syncups list` shows them")
    }
    return syncUp
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
    else { throw CommandError.notFound("sync-up \(id) has no attendee '\(name)'") }
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

  /// A sync-up and its attendees' names, in the order they were added (for the timer).
  package static func speakers(of id: SyncUp.ID, _ db: Database) throws -> (SyncUp, [String]) {
    let syncUp = try find(id, db)
    let names = try Attendee.where { $0.syncUpID.eq(id) }.order(by: \.id).select(\.name)
      .fetchAll(db)
    return (syncUp, names)
  }

  /// The meetings saved after meeting `id`, with their sync-up's title (the `run` duty).
  package static func meetings(after id: Meeting.ID, _ db: Database) throws
    -> [(Meeting.ID, String)]
  {
    try Meeting.where { $0.id.gt(id) }.order(by: \.id)
      .join(SyncUp.all) { $0.syncUpID.eq($1.id) }.select { ($0.id, $1.title) }.fetchAll(db)
  }

  /// The newest meeting's id (0 when there is none).
  package static func newestMeeting(_ db: Database) throws -> Meeting.ID {
    let newest: Int?? = try Meeting.select { $0.id.max() }.fetchOne(db)
    return (newest ?? nil) ?? 0
  }
}
