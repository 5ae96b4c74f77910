import Foundation
import HearthQuery
import Testing

@Suite struct SmokeTests {
  @Test func selectsAll() throws {
    let db = try makeRemindersDatabase()
    let sql = Reminder.all.query.sql
    #expect(sql == #"SELECT "reminders"."id", "reminders"."dueDate", "reminders"."isFlagged", "reminders"."notes", "reminders"."priority", "reminders"."remindersListID", "reminders"."status", "reminders"."title" FROM "reminders""#)
    let reminders = try db.read { try Reminder.all.fetchAll($0) }
    #expect(reminders.map(\.title) == ["Groceries", "Haircut", "Send report"])
    let incomplete = try db.read { try Reminder.incomplete.order(by: \.title).fetchAll($0) }
    #expect(incomplete.map(\.id) == [1, 2])
  }
}
