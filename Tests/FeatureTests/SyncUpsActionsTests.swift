import Foundation
import HearthData
import HearthDataTestSupport
import HearthPlugin
import Testing

@testable import SyncUpsFeature

@Suite struct SyncUpsActionsTests {
  let database: DatabaseQueue

  init() throws {
    database = try DatabaseQueue()
    try migrator.migrate(database)
  }

  @Test func aSyncUpWithAttendeesMeetingsAndEdits() throws {
    let created = try database.write {
      try SyncUpActions.add(
        title: "Daily", seconds: 600, theme: .navy, attendees: ["Ana", "Bo"], $0)
    }
    #expect(created.attendees == ["Ana", "Bo"])
    #expect(created.meetingCount == 0)
    let id = created.syncUp.id
    let edited = try database.write {
      try SyncUpActions.edit(id, title: "Standup", seconds: nil, theme: nil, $0)
    }
    #expect(edited.syncUp.title == "Standup")
    #expect(edited.syncUp.seconds == 600)
    _ = try database.write { try SyncUpActions.addAttendee("Cy", to: id, $0) }
    let removed = try database.write { try SyncUpActions.removeAttendee("ana", from: id, $0) }
    #expect(removed.attendees == ["Bo", "Cy"])

    let early = Date(timeIntervalSince1970: 1_000)
    let late = Date(timeIntervalSince1970: 2_000)
    try database.write { db in
      _ = try SyncUpActions.saveMeeting(of: id, transcript: "first", date: early, db)
      _ = try SyncUpActions.saveMeeting(of: id, transcript: "second", date: late, db)
    }
    try database.read { db in
      #expect(try SyncUpActions.history(of: id, db).map(\.transcript) == ["second", "first"])
      #expect(try Queries.summaries(db, only: id)[0].meetingCount == 2)
      try assertQuery(
        Meeting.where { $0.syncUpID.eq(id) }.order(by: \.date).select(\.transcript), in: db,
        sql:
          #"SELECT "meetings"."transcript" FROM "meetings" WHERE ("meetings"."syncUpID" = ?) ORDER BY "meetings"."date""#,
        rows: "first\nsecond")
      let speakers = try SyncUpActions.speakers(of: id, db)
      #expect(speakers.1 == ["Bo", "Cy"])
      #expect(try SyncUpActions.meetings(after: 1, db).map(\.title) == ["Standup"])
      #expect(try SyncUpActions.newestMeeting(db) == 2)
    }
    // Deleting the sync-up takes its attendees and meetings with it.
    _ = try database.write { try SyncUpActions.delete(id, $0) }
    try database.read { db in
      try assertQuery(Attendee.select { $0.id.count() }, in: db, rows: "0")
      try assertQuery(Meeting.select { $0.id.count() }, in: db, rows: "0")
    }
  }

  @Test func unknownIDsAndNamesAreNotFound() throws {
    let missing = #expect(throws: CommandError.self) {
      try database.write { try SyncUpActions.addAttendee("Ana", to: UUID(), $0) }
    }
    #expect(missing?.exitCode == .notFound)
    let summary = try database.write {
      try SyncUpActions.add(title: "Weekly", seconds: 300, theme: .teal, attendees: [], $0)
    }
    let nobody = #expect(throws: CommandError.self) {
      try database.write { try SyncUpActions.removeAttendee("Zed", from: summary.syncUp.id, $0) }
    }
    #expect(nobody?.message == "sync-up \(ShortID.of(summary.syncUp.id)) has no attendee 'Zed'")
  }

  @Test func theUUIDMigrationKeepsEverySyncUpAttendeeAndMeeting() throws {
    let old = try DatabaseQueue()
    try migrator.migrate(old, upTo: "Create sync-ups")
    try old.write { db in
      try db.execute(
        sql: """
          INSERT INTO syncUps (id, seconds, theme, title) VALUES (1, 600, 'navy', 'Daily'),
            (2, 300, 'teal', 'Weekly');
          INSERT INTO attendees (id, name, syncUpID) VALUES (1, 'Bo', 1), (2, 'Ana', 1),
            (3, 'Cy', 2);
          INSERT INTO meetings (id, date, syncUpID, transcript)
          VALUES (1, '2026-01-01 09:00:00.000', 1, 'first'), (2, '2026-01-02 09:00:00.000', 2, 'x');
          """)
    }
    try migrator.migrate(old)
    try old.read { db in
      let summaries = try Queries.summaries(db)
      #expect(summaries.map(\.syncUp.title) == ["Daily", "Weekly"])
      #expect(summaries.map(\.attendees) == [["Ana", "Bo"], ["Cy"]])
      #expect(summaries.map(\.meetingCount) == [1, 1])
      #expect(
        try SyncUpActions.history(of: summaries[0].syncUp.id, db).map(\.transcript) == ["first"])
      // Old ids live on as rowids (the duty and older attachments follow them).
      #expect(try SyncUpActions.newestMeeting(db) == 2)
      #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
    }
  }
}
