import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

/// The SQL of an expression selected from the reminders, and its value for each reminder in
/// id order, as one line of `a | b` per row.
private func assertExpression<C: QueryExpression>(
  _ expression: (Reminder.TableColumns) -> C, sql: String, values: String,
  sourceLocation: SourceLocation = #_sourceLocation
) throws where C.QueryValue: QueryRepresentable {
  let statement = Reminder.select(expression).order(by: \.id)
  try assertConformance(
    statement,
    sql: "SELECT " + sql + #" FROM "reminders" ORDER BY "reminders"."id""#, rows: values,
    sourceLocation: sourceLocation)
}

// Operators, as the reference's "Operators" article lists them.
@Suite struct OperatorConformanceTests {
  @Test func equality() throws {
    try assertExpression(
      { $0.priority.eq(3) }, sql: #"("reminders"."priority" = ?)"#,
      values: "NULL\nNULL\n1\nNULL\n0\n0")
    try assertExpression(
      { $0.priority.neq(3) }, sql: #"("reminders"."priority" <> ?)"#,
      values: "NULL\nNULL\n0\nNULL\n1\n1")
    try assertExpression(
      { $0.priority.is(nil) }, sql: #"("reminders"."priority" IS ?)"#,
      values: "1\n1\n0\n1\n0\n0")
    try assertExpression(
      { $0.priority.isNot(nil) }, sql: #"("reminders"."priority" IS NOT ?)"#,
      values: "0\n0\n1\n0\n1\n1")
    try assertExpression(
      { $0.isCompleted == $0.isFlagged },
      sql: #"("reminders"."isCompleted" = "reminders"."isFlagged")"#,
      values: "1\n0\n1\n0\n1\n0")
  }

  @Test func logic() throws {
    try assertExpression(
      { $0.isCompleted && $0.priority.isNot(nil) },
      sql: #"("reminders"."isCompleted" AND ("reminders"."priority" IS NOT ?))"#,
      values: "0\n0\n0\n0\n0\n1")
    try assertExpression(
      { $0.isCompleted || $0.isFlagged },
      sql: #"("reminders"."isCompleted" OR "reminders"."isFlagged")"#, values: "0\n1\n0\n1\n0\n1")
    try assertExpression(
      { !$0.isCompleted }, sql: #"NOT ("reminders"."isCompleted")"#,
      values: "1\n1\n1\n0\n1\n0")
    try assertExpression(
      { $0.isCompleted.and($0.isFlagged) },
      sql: #"("reminders"."isCompleted" AND "reminders"."isFlagged")"#,
      values: "0\n0\n0\n0\n0\n0")
    try assertExpression(
      { $0.isCompleted.or($0.isFlagged).not() },
      sql: #"NOT (("reminders"."isCompleted" OR "reminders"."isFlagged"))"#,
      values: "1\n0\n1\n0\n1\n0")
  }

  @Test func comparison() throws {
    try assertExpression({ $0.id < 3 }, sql: #"("reminders"."id" < ?)"#, values: "1\n1\n0\n0\n0\n0")
    try assertExpression(
      { $0.id >= 5 }, sql: #"("reminders"."id" >= ?)"#,
      values: "0\n0\n0\n0\n1\n1")
    try assertExpression(
      { $0.id.lt(2) }, sql: #"("reminders"."id" < ?)"#,
      values: "1\n0\n0\n0\n0\n0")
    try assertExpression(
      { $0.id.gte(6) }, sql: #"("reminders"."id" >= ?)"#,
      values: "0\n0\n0\n0\n0\n1")
    try assertExpression(
      { $0.title.lte("Groceries") }, sql: #"("reminders"."title" <= ?)"#,
      values: "1\n0\n1\n0\n0\n1")
  }

  @Test func arithmeticAndBits() throws {
    try assertExpression(
      { $0.id * 2 + 1 }, sql: #"(("reminders"."id" * ?) + ?)"#,
      values: "3\n5\n7\n9\n11\n13")
    try assertExpression(
      { $0.id % 2 }, sql: #"("reminders"."id" % ?)"#,
      values: "1\n0\n1\n0\n1\n0")
    try assertExpression({ -$0.id }, sql: #"(-"reminders"."id")"#, values: "-1\n-2\n-3\n-4\n-5\n-6")
    try assertExpression(
      { $0.id & 2 }, sql: #"("reminders"."id" & ?)"#,
      values: "0\n2\n2\n0\n0\n2")
    try assertExpression(
      { $0.id | 8 }, sql: #"("reminders"."id" | ?)"#,
      values: "9\n10\n11\n12\n13\n14")
    try assertExpression(
      { $0.id << 1 }, sql: #"("reminders"."id" << ?)"#,
      values: "2\n4\n6\n8\n10\n12")
    try assertExpression(
      { ~$0.id }, sql: #"~("reminders"."id")"#,
      values: "-2\n-3\n-4\n-5\n-6\n-7")
  }

  @Test func strings() throws {
    try assertExpression(
      { $0.title.like("%a%") }, sql: #"("reminders"."title" LIKE ?)"#,
      values: "0\n1\n1\n1\n0\n1")
    try assertExpression(
      { $0.title.glob("*e*") }, sql: #"("reminders"."title" GLOB ?)"#,
      values: "1\n0\n1\n1\n1\n0")
    try assertExpression(
      { $0.title.hasPrefix("Ta") },
      sql: #"("reminders"."title" LIKE ? ESCAPE ?)"#, values: "0\n0\n0\n1\n0\n0")
    try assertExpression(
      { $0.title.hasSuffix("t") },
      sql: #"("reminders"."title" LIKE ? ESCAPE ?)"#, values: "0\n1\n1\n0\n1\n1")
    try assertExpression(
      { $0.title.contains("port") },
      sql: #"("reminders"."title" LIKE ? ESCAPE ?)"#, values: "0\n0\n0\n0\n1\n0")
    try assertExpression(
      { $0.title + "!" }, sql: #"("reminders"."title" || ?)"#,
      values:
        "Groceries!\nHaircut!\nDoctor appointment!\nTake a walk!\nSend report!\nCall accountant!")
    try assertExpression(
      { $0.title.collate(.nocase).eq("groceries") },
      sql: #"(("reminders"."title" COLLATE NOCASE) = ?)"#, values: "1\n0\n0\n0\n0\n0")
  }

  @Test func membership() throws {
    try assertExpression(
      { $0.id.in([1, 2, 3]) }, sql: #"("reminders"."id" IN (?, ?, ?))"#,
      values: "1\n1\n1\n0\n0\n0")
    try assertExpression(
      { [2, 4].contains($0.id) }, sql: #"("reminders"."id" IN (?, ?))"#,
      values: "0\n1\n0\n1\n0\n0")
    try assertExpression(
      { (10...12).contains($0.title.length()) },
      sql: #"(length("reminders"."title") BETWEEN ? AND ?)"#, values: "0\n0\n0\n1\n1\n0")
    try assertExpression(
      { $0.id.between(2, and: 3) },
      sql: #"("reminders"."id" BETWEEN ? AND ?)"#, values: "0\n1\n1\n0\n0\n0")
    try assertExpression(
      { $0.id.in(ReminderTag.select(\.reminderID)) },
      sql: #"("reminders"."id" IN (SELECT "remindersTags"."reminderID" FROM "remindersTags"))"#,
      values: "1\n0\n0\n0\n1\n0")
  }
}

// Scalar and aggregate functions, as the reference's "Scalar functions" and "Aggregate
// functions" articles list them.
@Suite struct FunctionCatalogueConformanceTests {
  @Test func scalarFunctions() throws {
    try assertExpression(
      { $0.title.instr("a") }, sql: #"instr("reminders"."title", ?)"#,
      values: "0\n2\n8\n2\n0\n2")
    try assertExpression(
      { $0.title.lower() }, sql: #"lower("reminders"."title")"#,
      values: "groceries\nhaircut\ndoctor appointment\ntake a walk\nsend report\ncall accountant")
    try assertExpression(
      { $0.title.upper().length() },
      sql: #"length(upper("reminders"."title"))"#, values: "9\n7\n18\n11\n11\n15")
    try assertExpression(
      { $0.title.octetLength() }, sql: #"length(CAST("reminders"."title" AS BLOB))"#,
      values: "9\n7\n18\n11\n11\n15")
    try assertExpression(
      { $0.title.quote() }, sql: #"quote("reminders"."title")"#,
      values:
        "'Groceries'\n'Haircut'\n'Doctor appointment'\n'Take a walk'\n'Send report'\n'Call accountant'"
    )
    try assertExpression(
      { $0.title.replace("a", "4").ltrim("G").rtrim("t") },
      sql: #"rtrim(ltrim(replace("reminders"."title", ?, ?), ?), ?)"#,
      values: "roceries\nH4ircu\nDoctor 4ppointmen\nT4ke 4 w4lk\nSend repor\nC4ll 4ccount4n")
    try assertExpression(
      { $0.title.trim("G") }, sql: #"trim("reminders"."title", ?)"#,
      values: "roceries\nHaircut\nDoctor appointment\nTake a walk\nSend report\nCall accountant")
    try assertExpression(
      { ($0.id - 4).abs() }, sql: #"abs(("reminders"."id" - ?))"#,
      values: "3\n2\n1\n0\n1\n2")
    try assertExpression(
      { ($0.id.cast(as: Double.self) / 3).round(2) },
      sql: #"round((CAST("reminders"."id" AS REAL) / ?), ?)"#,
      values: "0.33\n0.67\n1.0\n1.33\n1.67\n2.0")
    try assertExpression(
      { $0.title.hex() }, sql: #"hex("reminders"."title")"#,
      values:
        "47726F636572696573\n48616972637574\n446F63746F72206170706F696E746D656E74\n54616B6520612077616C6B\n53656E64207265706F7274\n43616C6C206163636F756E74616E74"
    )
    try assertExpression(
      { $0.priority ?? 0 }, sql: #"coalesce("reminders"."priority", ?)"#,
      values: "0\n0\n3\n0\n1\n2")
  }

  @Test func aggregateFunctions() throws {
    try assertConformance(
      Reminder.select {
        (
          $0.count(), $0.priority.count(), $0.priority.count(distinct: true), $0.priority.avg(),
          $0.priority.sum(), $0.priority.total(), $0.priority.max(), $0.priority.min()
        )
      },
      sql:
        #"SELECT count(*), count("reminders"."priority"), count(DISTINCT "reminders"."priority"), avg("reminders"."priority"), sum("reminders"."priority"), total("reminders"."priority"), max("reminders"."priority"), min("reminders"."priority") FROM "reminders""#,
      rows: "6 | 3 | 3 | 2.0 | 6 | 6.0 | 3 | 1")
    try assertConformance(
      Reminder.select { ($0.count(filter: $0.isCompleted), $0.id.max(filter: $0.isFlagged)) },
      sql:
        #"SELECT count(*) FILTER (WHERE "reminders"."isCompleted"), max("reminders"."id") FILTER (WHERE "reminders"."isFlagged") FROM "reminders""#,
      rows: "2 | 2")
    try assertConformance(
      Reminder.where { $0.remindersListID.eq(2) }.select { $0.title.groupConcat() },
      sql:
        #"SELECT group_concat("reminders"."title", ?) FROM "reminders" WHERE ("reminders"."remindersListID" = ?)"#,
      rows: "Send report,Call accountant")
    try assertConformance(
      Reminder.select { $0.remindersListID.groupConcat(distinct: true) },
      sql: #"SELECT group_concat(DISTINCT "reminders"."remindersListID") FROM "reminders""#,
      rows: "1,2")
    try assertConformance(
      Reminder.select { $0.title.groupConcat(" / ", filter: $0.isCompleted) },
      sql:
        #"SELECT group_concat("reminders"."title", ?) FILTER (WHERE "reminders"."isCompleted") FROM "reminders""#,
      rows: "Take a walk / Call accountant")
  }

  @Test func averageOfAnOptionalInteger() throws {
    let average: Double?? = try conformanceDatabase().read { db in
      try Reminder.where { $0.remindersListID.eq(1) }.select { $0.priority.avg() }.fetchOne(db)
    }
    #expect(average == .some(3.0))
  }

  @Test func existsInEveryPosition() throws {
    try assertConformance(
      RemindersList.where { list in
        Reminder.where { $0.remindersListID.eq(list.id) && $0.isCompleted }.exists()
      }.select(\.title),
      sql:
        #"SELECT "remindersLists"."title" FROM "remindersLists" WHERE EXISTS (SELECT "reminders"."id", "reminders"."assignedUserID", "reminders"."dueDate", "reminders"."isCompleted", "reminders"."isFlagged", "reminders"."notes", "reminders"."priority", "reminders"."remindersListID", "reminders"."title", "reminders"."updatedAt" FROM "reminders" WHERE (("reminders"."remindersListID" = "remindersLists"."id") AND "reminders"."isCompleted"))"#,
      rows: "Personal\nWork")
    try assertConformance(
      Tag.select { _ in Note.exists() },
      sql:
        #"SELECT EXISTS (SELECT "notes"."id", "notes"."body", "notes"."isDeleted" FROM "notes" WHERE NOT ("notes"."isDeleted")) FROM "tags""#,
      rows: "1\n1\n1")
    func hasTaggedReminders(_ list: RemindersList.TableColumns) -> some QueryExpression<Bool> {
      ReminderTag.join(Reminder.all) { $0.reminderID == $1.id }
        .where { $1.remindersListID == list.id }.exists()
    }
    try assertConformance(
      RemindersList.select { ($0.title, hasTaggedReminders($0)) },
      sql:
        #"SELECT "remindersLists"."title", EXISTS (SELECT "remindersTags"."reminderID", "remindersTags"."tagID", "reminders"."id", "reminders"."assignedUserID", "reminders"."dueDate", "reminders"."isCompleted", "reminders"."isFlagged", "reminders"."notes", "reminders"."priority", "reminders"."remindersListID", "reminders"."title", "reminders"."updatedAt" FROM "remindersTags" JOIN "reminders" ON ("remindersTags"."reminderID" = "reminders"."id") WHERE ("reminders"."remindersListID" = "remindersLists"."id")) FROM "remindersLists""#,
      rows: "Personal | 1\nWork | 1")
    try assertConformance(
      Reminder.where { _ in !ReminderTag.where { $0.reminderID == 1 }.exists() }.count(),
      sql:
        #"SELECT count(*) FROM "reminders" WHERE NOT (EXISTS (SELECT "remindersTags"."reminderID", "remindersTags"."tagID" FROM "remindersTags" WHERE ("remindersTags"."reminderID" = ?)))"#,
      rows: "0")
    try assertConformance(
      Reminder.update { $0.isFlagged = Tag.where { $0.title == "car" }.exists() }.where {
        $0.id == 1
      }.returning(\.isFlagged),
      sql:
        #"UPDATE "reminders" SET "isFlagged" = EXISTS (SELECT "tags"."id", "tags"."title" FROM "tags" WHERE ("tags"."title" = ?)) WHERE ("reminders"."id" = ?) RETURNING "isFlagged""#,
      rows: "1")
  }

  @Test func coalesceWithASubquery() throws {
    try assertConformance(
      RemindersList.select { list in
        Reminder.where { $0.remindersListID == list.id }.select { $0.priority.max() } ?? 0
      },
      sql:
        #"SELECT coalesce((SELECT max("reminders"."priority") FROM "reminders" WHERE ("reminders"."remindersListID" = "remindersLists"."id")), ?) FROM "remindersLists""#,
      rows: "3\n2")
  }
}
