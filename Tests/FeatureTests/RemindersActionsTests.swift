import Foundation
import HearthData
import HearthDataTestSupport
import HearthPlugin
import Testing

@testable import RemindersFeature

/// The reminders feature's actions on a local database; "now" is fixed for the whole suite.
@Suite(.dependency(\.date.now, Date(timeIntervalSince1970: 1_767_268_800)))  // 2026-01-01 12:00 UTC
struct RemindersActionsTests {
  let database: DatabaseQueue
  @Dependency(\.date.now) var now

  init() throws {
    database = try DatabaseQueue()
    try migrator.migrate(database)
  }

  func add(_ title: String, _ change: (inout NewReminder) -> Void = { _ in }) throws -> ReminderRow
  {
    var new = NewReminder(title: title)
    change(&new)
    return try database.write { [new] in try RemindersActions.add(new, $0) }
  }

  @Test func addingGoesToTheFirstListOrANewOneWithItsTags() throws {
    let milk = try add("Milk") { $0.tags = ["#shop", "food"] }
    #expect(milk.listTitle == "Reminders")  // made, as there was no list
    #expect(milk.tags.sorted() == ["food", "shop"])
    let work = try database.write { try RemindersActions.addList(title: "Work", color: nil, $0) }
    let report = try add("Report") {
      $0.list = "work"
      $0.tags = ["Food"]
    }
    #expect(report.reminder.remindersListID == work.id)
    #expect(report.tags == ["food"])  // the tag found again, whatever its case
    try database.read { db in
      try assertQuery(
        Tag.order(by: \.title).select(\.title), in: db,
        sql: #"SELECT "tags"."title" FROM "tags" ORDER BY "tags"."title""#, rows: "food\nshop")
      try assertQuery(
        Reminder.order { $0.rowid }.select { ($0.title, $0.position) }, in: db,
        rows: "Milk | 0\nReport | 0")
    }
  }

  @Test func completingThenTheDutyCompletesAndAnnouncesWhatIsDue() throws {
    let due = try add("Call") { $0.dueDate = now.addingTimeInterval(-86_400) }
    let later = try add("Later") { $0.dueDate = now.addingTimeInterval(3600) }
    let done = try add("Done soon")
    try database.write {
      try RemindersActions.complete([done.reminder.id], status: .completing, now: now, $0)
    }
    // Not yet past the completion delay: completing stays; the due one is announced once.
    var announced = try database.write {
      try RemindersActions.runDuty(now: now, completionDelay: 3, $0)
    }
    #expect(announced.map(\.id) == [due.reminder.id])
    announced = try database.write {
      try RemindersActions.runDuty(now: now.addingTimeInterval(5), completionDelay: 3, $0)
    }
    #expect(announced.isEmpty)
    try database.read { db in
      try assertQuery(
        Reminder.order { $0.rowid }.select { ($0.title, $0.status) }, in: db,
        rows: "Call | 0\nLater | 0\nDone soon | 2")
      try assertQuery(
        ReminderAlert.select(\.reminderID), in: db, rows: due.reminder.id.uuidString.lowercased())
      #expect(try Queries.stats(db).pastDueCount == 1)
    }
    _ = later
  }

  @Test func editTagUntagMoveAndDelete() throws {
    let first = try add("First")
    let second = try add("Second")
    let third = try add("Third")
    var edit = ReminderEdit()
    edit.title = "Second, renamed"
    edit.priority = .some(.high)
    edit.isFlagged = true
    let edited = try database.write { [edit] in
      try RemindersActions.edit(second.reminder.id, edit, $0)
    }
    #expect(edited.reminder.title == "Second, renamed")
    #expect(edited.reminder.priority == .high)
    #expect(edited.reminder.isFlagged)
    let tagged = try database.write {
      try RemindersActions.tag(first.reminder.id, with: ["a", "b"], $0)
    }
    #expect(tagged.tags.sorted() == ["a", "b"])
    let untagged = try database.write { try RemindersActions.untag(first.reminder.id, ["#A"], $0) }
    #expect(untagged.tags == ["b"])
    let moved = try database.write { try RemindersActions.move(third.reminder.id, to: 0, $0) }
    #expect(moved.map(\.reminder.title).prefix(1) == ["Third"])
    try database.read { db in
      try assertQuery(
        Reminder.order { ($0.position, $0.rowid) }.select(\.title), in: db,
        rows: "Third\nFirst\nSecond, renamed")
    }
    let refusal = #expect(throws: CommandError.self) {
      try database.write { try RemindersActions.delete([first.reminder.id, UUID()], $0) }
    }
    #expect(refusal?.exitCode == .notFound)
    try database.write { try RemindersActions.delete([first.reminder.id], $0) }
    #expect(try database.read { try Reminder.fetchCount($0) } == 2)
  }

  @Test func aListGoesWithItsReminders() throws {
    let list = try database.write {
      try RemindersActions.addList(title: "Trip", color: Color(parsing: "green"), $0)
    }
    _ = try add("Passport") { $0.list = "Trip" }
    _ = try add("Tickets") { $0.list = ShortID.of(list.id) }
    let renamed = try database.write {
      try RemindersActions.editList("trip", title: "Holiday", color: nil, $0)
    }
    #expect(renamed.title == "Holiday")
    #expect(renamed.color == Color(parsing: "green"))
    let (deleted, count) = try database.write { try RemindersActions.deleteList("Holiday", $0) }
    #expect(deleted.id == list.id)
    #expect(count == 2)
    #expect(try database.read { try Reminder.fetchCount($0) } == 0)
  }

  @Test func searchFindsTitlesNotesAndTags() throws {
    _ = try add("Buy oat milk") { $0.notes = "the barista kind" }
    _ = try add("Call Ana") { $0.tags = ["family"] }
    func titles(_ text: String) throws -> [String] {
      try database.read { try Queries.search($0, text) }.map(\.title)
    }
    #expect(try titles("barista") == ["Buy oat milk"])
    #expect(try titles("family") == ["Call Ana"])
    #expect(try titles("nothing").isEmpty)
  }

  @Test func aHandleIsAnIdPrefixThatNamesOneReminder() throws {
    let milk = try add("Milk")
    let id = milk.reminder.id
    func resolve(_ handle: String) throws -> Reminder.ID {
      try database.read { try RemindersActions.reminderID(handle, $0) }
    }
    #expect(try resolve(ShortID.of(id)) == id)
    #expect(try resolve(String(ShortID.of(id).prefix(4)).uppercased()) == id)
    #expect(try resolve(id.uuidString) == id)
    let tooShort = #expect(throws: CommandError.self) { try resolve("ab") }
    #expect(tooShort?.exitCode == .usage)
    let missing = #expect(throws: CommandError.self) {
      try resolve(id.uuidString.first == "0" ? "1111" : "0000")
    }
    #expect(missing?.exitCode == .notFound)
  }

  @Test func theUUIDMigrationKeepsEveryRowAndRelation() throws {
    let old = try DatabaseQueue()
    try migrator.migrate(old, upTo: "Create reminders tables")
    try old.write { db in
      try db.execute(
        sql: """
          INSERT INTO remindersLists (id, title, position) VALUES (1, 'Home', 0), (2, 'Work', 1);
          INSERT INTO reminders (id, remindersListID, title, notes, position)
          VALUES (1, 1, 'Milk', 'oat', 0), (2, 2, 'Report', '', 0), (3, 1, 'Plants', '', 1);
          INSERT INTO tags (id, title) VALUES (1, 'shop'), (2, 'weekly');
          INSERT INTO remindersTags (reminderID, tagID) VALUES (1, 1), (1, 2), (2, 2);
          INSERT INTO reminderAlerts (reminderID, dueDate, announcedAt)
          VALUES (3, '2026-01-01 09:00:00.000', '2026-01-01 09:00:01.000');
          """)
    }
    try migrator.migrate(old)
    try old.read { db in
      let rows = try Queries.rows(db, Reminder.where { _ in true })
      #expect(rows.map(\.reminder.title) == ["Milk", "Plants", "Report"])
      #expect(rows.map(\.listTitle) == ["Home", "Home", "Work"])
      #expect(rows.map(\.tags) == [["shop", "weekly"], [], ["weekly"]])
      #expect(Set(rows.map(\.reminder.id)).count == 3)
      let alert = try ReminderAlert.fetchAll(db)
      #expect(alert.map(\.reminderID) == [rows[1].reminder.id])
      // The full-text index follows the reminders' rowids, kept from their old ids.
      #expect(try Queries.search(db, "oat").map(\.reminderID) == [rows[0].reminder.id])
      #expect(try Queries.search(db, "weekly").count == 2)
      #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
    }
    // And it goes on working: new rows get UUIDs, tags join them.
    let added = try old.write { db in
      var new = NewReminder(title: "Bread")
      new.tags = ["Shop"]
      return try RemindersActions.add(new, db)
    }
    #expect(added.tags == ["shop"])
    #expect(try old.read { try Queries.search($0, "bread").count } == 1)
  }
}
