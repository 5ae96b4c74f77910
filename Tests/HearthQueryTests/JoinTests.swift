import Foundation
import HearthQuery
import Testing

@Selection
struct ReminderRecord: Equatable {
  let reminderTitle: String
  let remindersListTitle: String
}

extension Reminder {
  static let withTags = group(by: \.id)
    .leftJoin(ReminderTag.all) { $0.id.eq($1.reminderID) }
    .leftJoin(Tag.all) { $1.tagID.eq($2.primaryKey) }
}

@Suite struct JoinTests {
  let database: DatabaseQueue
  init() throws { database = try makeRemindersDatabase() }

  func fetch<S: Statement>(_ statement: S) throws -> [S.QueryValue] {
    try database.read { try statement.fetchAll($0) }
  }

  @Test func innerJoinIntoSelection() throws {
    let query = expectSQL(
      Reminder
        .join(RemindersList.all) { $0.remindersListID.eq($1.id) }
        .order { ($1.title, $0.title) }
        .select { ReminderRecord.Columns(reminderTitle: $0.title, remindersListTitle: $1.title) },
      #"SELECT "reminders"."title", "remindersLists"."title" FROM "reminders" JOIN "remindersLists" ON ("reminders"."remindersListID" = "remindersLists"."id") ORDER BY "remindersLists"."title", "reminders"."title""#
    )
    #expect(
      try fetch(query) == [
        ReminderRecord(reminderTitle: "Groceries", remindersListTitle: "Personal"),
        ReminderRecord(reminderTitle: "Haircut", remindersListTitle: "Personal"),
        ReminderRecord(reminderTitle: "Send report", remindersListTitle: "Work"),
      ])
  }

  @Test func joinWithoutSelectDecodesBothRows() throws {
    let rows = try fetch(
      Reminder.join(RemindersList.where { $0.title.eq("Work") }) { $0.remindersListID.eq($1.id) })
    #expect(rows.count == 1)
    #expect(rows[0].0.title == "Send report")
    #expect(rows[0].1 == RemindersList(id: 2, color: 0xef7e4a, title: "Work", position: 1))
  }

  @Test func leftJoinMakesTheRightSideOptional() throws {
    // A filtered side's conditions join the WHERE clause, as the reference combines joined
    // queries: the list whose reminders none pass is gone (a condition in the ON closure,
    // below, keeps it). (Chained straight on, a `where { … }` argument defeats the type
    // checker: bind it first.)
    let flagged = RemindersList.leftJoin(Reminder.where { $0.isFlagged }) {
      $0.id.eq($1.remindersListID)
    }
    let query = expectSQL(
      flagged.order { ($0.id, $1.id) }.select { ($0.title, $1.title) },
      #"SELECT "remindersLists"."title", "reminders"."title" FROM "remindersLists" LEFT JOIN "reminders" ON ("remindersLists"."id" = "reminders"."remindersListID") WHERE "reminders"."isFlagged" ORDER BY "remindersLists"."id", "reminders"."id""#
    )
    let rows = try fetch(query)
    #expect(rows.map(\.0) == ["Personal"])
    #expect(rows.map(\.1) == ["Haircut"])

    let whole = try fetch(
      RemindersList.leftJoin(Reminder.all) { $0.id.eq($1.remindersListID) && $1.isFlagged.eq(true) }
        .order { list, _ in list.id })
    #expect(whole.map(\.1?.title) == ["Haircut", nil])
  }

  @Test func groupedLeftJoinCountsOnlyMatches() throws {
    let query = expectSQL(
      RemindersList
        .group(by: \.id)
        .leftJoin(Reminder.all) {
          $0.id.eq($1.remindersListID) && $1.status.eq(Reminder.Status.incomplete)
        }
        .order { list, _ in list.position }
        .select { ListWithCount.Columns(list: $0, reminderCount: $1.count()) },
      #"SELECT "remindersLists"."id", "remindersLists"."color", "remindersLists"."title", "remindersLists"."position", count("reminders"."id") FROM "remindersLists" LEFT JOIN "reminders" ON (("remindersLists"."id" = "reminders"."remindersListID") AND ("reminders"."status" = ?)) GROUP BY "remindersLists"."id" ORDER BY "remindersLists"."position""#
    )
    #expect(try fetch(query).map(\.reminderCount) == [2, 0])
  }

  @Test func manyToManyThroughAJunctionTable() throws {
    try database.write { db in
      try ReminderTag.insert { ReminderTag(reminderID: 1, tagID: "car") }.execute(db)
    }
    let query = expectSQL(
      Reminder.withTags
        .order { reminder, _, _ in reminder.id }
        .select { ($0.title, $2.title.groupConcat(", ")) },
      #"SELECT "reminders"."title", group_concat("tags"."title", ?) FROM "reminders" LEFT JOIN "remindersTags" ON ("reminders"."id" = "remindersTags"."reminderID") LEFT JOIN "tags" ON ("remindersTags"."tagID" = "tags"."title") GROUP BY "reminders"."id" ORDER BY "reminders"."id""#
    )
    let rows = try fetch(query)
    #expect(rows.map(\.0) == ["Groceries", "Haircut", "Send report"])
    #expect(rows[0].1?.split(separator: ", ").sorted() == ["car", "kids"])
    #expect(rows[1].1 == nil)

    let tagged = try fetch(
      Reminder.withTags.where { $2.title.eq("kids") }.select { reminder, _, _ in reminder.title })
    #expect(tagged == ["Groceries"])
    let jsonTags = try fetch(
      Reminder.withTags.order { reminder, _, _ in reminder.id }.select { _, _, tag in
        tag.title.jsonGroupArray(filter: tag.title.isNot(nil))
      })
    #expect(jsonTags.map { $0.compactMap { $0 }.sorted() } == [["car", "kids"], [], []])
  }

  @Test func havingOverAJoinedAggregate() throws {
    let query =
      RemindersList
      .group(by: \.id)
      .join(Reminder.all) { $0.id.eq($1.remindersListID) }
      .having { $1.count() > 1 }
      .select { list, _ in list.title }
    #expect(query.query.sql.hasSuffix(#"GROUP BY "remindersLists"."id" HAVING (count(*) > ?)"#))
    #expect(try fetch(query) == ["Personal"])
  }

  @Test func fourTablesChained() throws {
    let query =
      RemindersList
      .join(Reminder.all) { $0.id.eq($1.remindersListID) }
      .join(ReminderTag.all) { $1.id.eq($2.reminderID) }
      .join(Tag.all) { $2.tagID.eq($3.title) }
      .where { $3.title.eq("kids") && $0.title.eq("Personal") }
      .select { ($0.title, $1.title, $3.title) }
    let rows = try fetch(query)
    #expect(rows.count == 1)
    #expect(rows[0] == ("Personal", "Groceries", "kids"))
  }

  @Test func rightAndFullJoins() throws {
    try database.write { db in
      try RemindersList.insert { RemindersList(id: 3, title: "Empty", position: 2) }.execute(db)
    }
    let right = expectSQL(
      Reminder.rightJoin(RemindersList.all) { $0.remindersListID.eq($1.id) }
        .order { ($1.id, $0.id) }
        .select { ($0.title, $1.title) },
      #"SELECT "reminders"."title", "remindersLists"."title" FROM "reminders" RIGHT JOIN "remindersLists" ON ("reminders"."remindersListID" = "remindersLists"."id") ORDER BY "remindersLists"."id", "reminders"."id""#
    )
    let rightRows = try fetch(right)
    #expect(rightRows.map(\.0) == ["Groceries", "Haircut", "Send report", nil])
    #expect(rightRows.map(\.1) == ["Personal", "Personal", "Work", "Empty"])

    // Unmatched rows of both sides stay, NULLs sorting first.
    let full = try fetch(
      Reminder
        .fullJoin(RemindersList.all) { $0.remindersListID.eq($1.id) && $0.isFlagged.eq(true) }
        .order { ($1.id, $0.id) })
    #expect(full.map { $0.0?.title } == ["Groceries", "Send report", "Haircut", nil, nil])
    #expect(full.map { $0.1?.title } == [nil, nil, "Personal", "Work", "Empty"])
  }
}
