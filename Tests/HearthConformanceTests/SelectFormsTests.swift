import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// Select forms of the reference's own test cases: limits and offsets built in closures that
// may give nothing, a row compared with a table value as a row value, and a count of the
// rows a condition holds for.

@Suite struct SelectFormsTests {
  @Test func limitAndOffsetClosuresThatGiveNothingChangeNothing() throws {
    enum PerPage { case unlimited, two }
    for (perPage, skip, expected) in [
      (PerPage.two, Int?.none, "1\n2"), (.two, 3, "4\n5"), (.unlimited, 4, "5\n6"),
      (.unlimited, nil, "1\n2\n3\n4\n5\n6"),
    ] {
      let query = Reminder.order(by: \.id).select(\.id)
        .limit { _ in
          switch perPage {
          case .unlimited: nil
          case .two: 2
          }
        }
        .offset { _ in
          if let skip {
            skip
          }
        }
      try assertConformance(query, sql: query.query.sql, rows: expected)
    }
    try assertConformance(
      Reminder.order(by: \.id).select(\.id).limit(1).limit { _ in nil }.offset { _ in 1 },
      sql:
        #"SELECT "reminders"."id" FROM "reminders" ORDER BY "reminders"."id" LIMIT ? OFFSET ?"#,
      rows: "2")
  }

  @Test func aRowComparesWithATableValueAsARowValue() throws {
    try assertConformance(
      Tag.where { $0.eq(Tag(id: 1, title: "car")) }.select(\.id),
      sql:
        #"SELECT "tags"."id" FROM "tags" WHERE (("tags"."id", "tags"."title") = (?, ?))"#,
      rows: "1")
    try assertConformance(
      Tag.where { $0 > Tag(id: 1, title: "car") }.select(\.id),
      sql:
        #"SELECT "tags"."id" FROM "tags" WHERE (("tags"."id", "tags"."title") > (?, ?))"#,
      rows: "2\n3")
    // The second column decides where the first is equal.
    try assertConformance(
      Tag.where { $0 <= Tag(id: 2, title: "a") }.select(\.id),
      sql: #"SELECT "tags"."id" FROM "tags" WHERE (("tags"."id", "tags"."title") <= (?, ?))"#,
      rows: "1")
    try assertConformance(
      Tag.where { $0.neq(Tag(id: 3, title: "someday")) }.count(),
      sql: #"SELECT count(*) FROM "tags" WHERE (("tags"."id", "tags"."title") <> (?, ?))"#,
      rows: "2")
  }

  @Test func aCountOfTheRowsAConditionHoldsFor() throws {
    try assertConformance(
      Reminder.count { !$0.isCompleted },
      sql: #"SELECT count(*) FILTER (WHERE NOT ("reminders"."isCompleted")) FROM "reminders""#,
      rows: "4")
    try assertConformance(
      Reminder.where { $0.remindersListID.eq(2) }.count { $0.isCompleted },
      sql:
        #"SELECT count(*) FILTER (WHERE "reminders"."isCompleted") FROM "reminders" WHERE ("reminders"."remindersListID" = ?)"#,
      rows: "1")
  }

  @Test func aNilConditionIsNoneAndAnOuterJoinsColumnIsACondition() throws {
    try assertConformance(
      Tag.where { _ in nil }.select(\.id), sql: #"SELECT "tags"."id" FROM "tags""#,
      rows: "1\n2\n3")
    try assertConformance(
      RemindersList.find(2)
        .leftJoin(Reminder.all) { $0.id.eq($1.remindersListID) }
        .where { $1.isCompleted }
        .select { ($0.title, $1.title) },
      sql:
        #"SELECT "remindersLists"."title", "reminders"."title" FROM "remindersLists" LEFT JOIN "reminders" ON ("remindersLists"."id" = "reminders"."remindersListID") WHERE (("remindersLists"."id" = ?)) AND ("reminders"."isCompleted")"#,
      rows: "Work | Call accountant")
  }
}
