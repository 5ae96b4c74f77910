import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// Every clause after a grouped join takes a closure of both tables' columns, as the
// reference's users chain them; each statement runs on the conformance database. Some of
// these forms, absent, made Swift 6.3.1's type checker fail rather than report an error.

@Suite struct JoinChainingTests {
  @Test func everyClauseAfterAGroupedJoinTakesBothTables() throws {
    let base = Reminder.group(by: \.id).join(ReminderTag.all) { $0.id.eq($1.reminderID) }
    try conformanceDatabase().read { db in
      #expect(try base.select { r, _ in r.isCompleted }.fetchAll(db) == [false, false])
      // Still one row a reminder: the select is grouped by the reminder.
      #expect(try base.join(RemindersList.all) { _, _, _ in true }.fetchAll(db).count == 2)
      #expect(try base.leftJoin(RemindersList.all) { _, _, _ in true }.fetchAll(db).count == 2)
      _ = try base.rightJoin(RemindersList.all) { _, _, _ in true }.fetchAll(db)
      _ = try base.fullJoin(RemindersList.all) { _, _, _ in true }.fetchAll(db)
      // The same table twice needs an alias to run; the chain itself type-checks.
      let twice = base.join(RemindersList.all) { _, _, _ in true }
        .join(RemindersList.all) { _, _, _, _ in true }
      #expect(twice.query.sql.contains(#"JOIN "remindersLists" ON ? JOIN "remindersLists""#))
      #expect(try base.where { r, _ in r.isFlagged }.fetchAll(db).isEmpty)
      #expect(try base.group { r, _ in r.isCompleted }.fetchAll(db).count == 2)
      #expect(try base.having { r, _ in r.isCompleted }.fetchAll(db).isEmpty)
      #expect(try base.order { r, _ in r.title }.fetchAll(db).map(\.0.id) == [1, 5])
      // SQLite's LIMIT takes no column; the closure takes both tables all the same.
      #expect(
        base.limit { r, _ in r.title.length() }.query.sql.hasSuffix(
          #"LIMIT length("reminders"."title")"#))
      #expect(try base.limit { _, _ in 1 }.fetchAll(db).count == 1)
      #expect(try base.offset { _, _ in 1 }.fetchAll(db).map(\.0.id) == [5])
      #expect(try base.limit(nil).offset(nil).fetchAll(db).count == 2)
      #expect(try base.count().fetchAll(db) == [2, 1])
      #expect(try base.count { _, tag in tag.tagID.eq(3) }.fetchAll(db) == [1, 0])
      // Every row the subquery selects, not its first alone.
      let completed = Reminder.select { ($0.id, $0.title) }
        .find(Reminder.where(\.isCompleted).select(\.id))
      #expect(
        completed.query.sql.hasSuffix(
          #"WHERE ("reminders"."id" IN (SELECT "reminders"."id" FROM "reminders" WHERE "reminders"."isCompleted"))"#
        ))
      #expect(try completed.fetchAll(db).map(\.1) == ["Take a walk", "Call accountant"])
      #expect(try Reminder.Draft.select { ($0.id, $0.title) }.find(2).fetchAll(db).count == 1)
      #expect(try Reminder.Draft.select(\.id).find([1, 3]).fetchAll(db) == [1, 3])
    }
  }
}
