import Foundation
import HearthQuery
import Testing

// Selects, as the reference's "Selects" article writes them.
@Suite struct SelectConformanceTests {
  @Test func selectOneColumn() throws {
    try assertConformance(
      Reminder.select(\.id).order(by: \.id).limit(3),
      sql: #"SELECT "reminders"."id" FROM "reminders" ORDER BY "reminders"."id" LIMIT ?"#,
      rows: "1\n2\n3")
  }

  @Test func selectTuple() throws {
    try assertConformance(
      Reminder.select { ($0.id, $0.title, $0.isCompleted) }.where { $0.id.eq(4) },
      sql:
        #"SELECT "reminders"."id", "reminders"."title", "reminders"."isCompleted" FROM "reminders" WHERE ("reminders"."id" = ?)"#,
      rows: "4 | Take a walk | 1")
  }

  @Test func selectIsIncremental() throws {
    let q1 = Reminder.select(\.id)
    let q2 = q1.select(\.title)
    let q3 = q2.select(\.isCompleted)
    let rows: [(Int, String, Bool)] = try conformanceDatabase().read { db in
      try q3.where { $0.id.eq(4) }.fetchAll(db)
    }
    #expect(rows.map(\.1) == ["Take a walk"])
    #expect(rows.map(\.2) == [true])
    try assertConformance(
      q3.where { $0.id.eq(4) },
      sql:
        #"SELECT "reminders"."id", "reminders"."title", "reminders"."isCompleted" FROM "reminders" WHERE ("reminders"."id" = ?)"#,
      rows: "4 | Take a walk | 1")
  }

  @Test func distinctThenSelect() throws {
    try assertConformance(
      Reminder.distinct().select(\.remindersListID),
      sql: #"SELECT DISTINCT "reminders"."remindersListID" FROM "reminders""#,
      rows: "1\n2")
  }

  @Test func mapBundlesSelectedColumns() throws {
    let query = Reminder.select(\.id).select(\.title).select(\.isCompleted)
    let mapped = query.map { _, title, isCompleted in
      ReminderResult.Columns(title: title, isCompleted: isCompleted)
    }
    try assertConformance(
      mapped.where { $0.id.eq(6) },
      sql:
        #"SELECT "reminders"."title", "reminders"."isCompleted" FROM "reminders" WHERE ("reminders"."id" = ?)"#,
      rows: "Call accountant | 1")
    let results = try conformanceDatabase().read { db in try mapped.fetchAll(db) }
    #expect(results.count == 6)
    #expect(results.filter(\.isCompleted).map(\.title) == ["Take a walk", "Call accountant"])
  }

  @Test func joinWithEqualsOperator() throws {
    try assertConformance(
      RemindersList
        .join(Reminder.all) { $0.id == $1.remindersListID }
        .select { ($0.title, $1.title) }
        .where { $1.priority.eq(3) },
      sql:
        #"SELECT "remindersLists"."title", "reminders"."title" FROM "remindersLists" JOIN "reminders" ON ("remindersLists"."id" = "reminders"."remindersListID") WHERE ("reminders"."priority" = ?)"#,
      rows: "Personal | Doctor appointment")
  }

  @Test func joinsAreIncremental() throws {
    try assertConformance(
      RemindersList
        .join(Reminder.all) { $0.id == $1.remindersListID }
        .join(User.all) { $1.assignedUserID == $2.id }
        .select { ($0.title, $1.title, $2.name) },
      sql:
        #"SELECT "remindersLists"."title", "reminders"."title", "users"."name" FROM "remindersLists" JOIN "reminders" ON ("remindersLists"."id" = "reminders"."remindersListID") JOIN "users" ON ("reminders"."assignedUserID" = "users"."id")"#,
      rows: "Personal | Groceries | Blob\nWork | Send report | Blob Jr")
  }

  @Test func joinOfSelectsConcatenatesColumns() throws {
    try assertConformance(
      RemindersList
        .select(\.title)
        .join(Reminder.select(\.title)) { $0.id == $1.remindersListID }
        .where { $1.isFlagged },
      sql:
        #"SELECT "remindersLists"."title", "reminders"."title" FROM "remindersLists" JOIN "reminders" ON ("remindersLists"."id" = "reminders"."remindersListID") WHERE "reminders"."isFlagged""#,
      rows: "Personal | Haircut")
  }

  @Test func joinOfWheresCombinesFilters() throws {
    let rows = try conformanceDatabase().read { db in
      try RemindersList
        .where { $0.id == 1 }
        .join(Reminder.where(\.isFlagged)) { $0.id == $1.remindersListID }
        .fetchAll(db)
    }
    #expect(rows.map(\.1.title) == ["Haircut"])
  }

  @Test func selfJoinThroughAlias() throws {
    let usersWithReferrers =
      User
      .leftJoin(User.as(Referrer.self).all) { $0.referrerID == $1.id }
      .select { ($0.name, $1.name) }
    try assertConformance(
      usersWithReferrers,
      sql:
        #"SELECT "users"."name", "referrers"."name" FROM "users" LEFT JOIN "users" AS "referrers" ON ("users"."referrerID" = "referrers"."id")"#,
      rows: "Blob | NULL\nBlob Jr | Blob\nBlob Sr | NULL")
  }

  @Test func whereIsIncremental() throws {
    try assertConformance(
      Reminder.where(\.isCompleted).where { $0.title.like("%walk%") }.select(\.id),
      sql:
        #"SELECT "reminders"."id" FROM "reminders" WHERE ("reminders"."isCompleted") AND (("reminders"."title" LIKE ?))"#,
      rows: "4")
  }

  @Test func whereWithConditionalBody() throws {
    func reminders(flaggedOnly: Bool) -> some Statement<Int> {
      Reminder.where {
        if flaggedOnly {
          $0.isFlagged
        }
      }
      .select(\.id).order(by: \.id)
    }
    try assertConformance(
      reminders(flaggedOnly: true),
      sql:
        #"SELECT "reminders"."id" FROM "reminders" WHERE "reminders"."isFlagged" ORDER BY "reminders"."id""#,
      rows: "2")
    try assertConformance(
      reminders(flaggedOnly: false),
      sql: #"SELECT "reminders"."id" FROM "reminders" ORDER BY "reminders"."id""#,
      rows: "1\n2\n3\n4\n5\n6")
  }

  @Test func limitAndOffset() throws {
    try assertConformance(
      Reminder.select(\.id).order(by: \.id).limit(2).offset(3),
      sql:
        #"SELECT "reminders"."id" FROM "reminders" ORDER BY "reminders"."id" LIMIT ? OFFSET ?"#,
      rows: "4\n5")
  }

  @Test func findOnWhereAndSelect() throws {
    try assertConformance(
      Reminder.where(\.isCompleted).find(6).select(\.title),
      sql:
        #"SELECT "reminders"."title" FROM "reminders" WHERE ("reminders"."isCompleted") AND (("reminders"."id" = ?))"#,
      rows: "Call accountant")
    try assertConformance(
      Reminder.select(\.title).find(2),
      sql: #"SELECT "reminders"."title" FROM "reminders" WHERE ("reminders"."id" = ?)"#,
      rows: "Haircut")
  }

  @Test func defaultScopeAndUnscoped() throws {
    try assertConformance(
      Note.select(\.body),
      sql: #"SELECT "notes"."body" FROM "notes" WHERE NOT ("notes"."isDeleted")"#, rows: "kept")
    try assertConformance(
      Note.unscoped.select(\.body),
      sql: #"SELECT "notes"."body" FROM "notes""#, rows: "kept\nthrown away")
    try assertConformance(
      Note.where { $0.body.hasPrefix("th") }.select(\.id),
      sql:
        #"SELECT "notes"."id" FROM "notes" WHERE (NOT ("notes"."isDeleted")) AND (("notes"."body" LIKE ? ESCAPE ?))"#,
      rows: "")
    try assertConformance(
      Note.count(), sql: #"SELECT count(*) FROM "notes" WHERE NOT ("notes"."isDeleted")"#,
      rows: "1")
    try assertConformance(
      Note.none.select(\.body), sql: "", rows: "")
    try assertConformance(
      Note.find(2).select(\.body),
      sql:
        #"SELECT "notes"."body" FROM "notes" WHERE (NOT ("notes"."isDeleted")) AND (("notes"."id" = ?))"#,
      rows: "")
  }
}

@Selection
struct ReminderResult {
  let title: String
  let isCompleted: Bool
}

enum Referrer: AliasName {}

@Suite struct BuilderBodyConformanceTests {
  @Test func emptyAndConditionalBodies() throws {
    try assertConformance(
      Reminder.where { _ in }.select(\.id).order(by: \.id).limit(1),
      sql: #"SELECT "reminders"."id" FROM "reminders" ORDER BY "reminders"."id" LIMIT ?"#,
      rows: "1")
    let database = try conformanceDatabase()
    try database.write { db in
      try Tag.insert {}.execute(db)
      #expect(try Tag.count().fetchOne(db) == 3)
    }
  }

  @Test func aLeftJoinOfSelects() throws {
    try assertConformance(
      User.select(\.name).leftJoin(Reminder.select(\.title)) { $0.id.eq($1.assignedUserID) },
      sql:
        #"SELECT "users"."name", "reminders"."title" FROM "users" LEFT JOIN "reminders" ON ("users"."id" = "reminders"."assignedUserID")"#,
      rows: "Blob | Groceries\nBlob Jr | Send report\nBlob Sr | NULL")
    let rows = try conformanceDatabase().read { db in
      try User.select(\.name).leftJoin(Reminder.select(\.title)) { $0.id.eq($1.assignedUserID) }
        .fetchAll(db)
    }
    #expect(rows.map(\.1) == ["Groceries", "Send report", nil])
  }
}
