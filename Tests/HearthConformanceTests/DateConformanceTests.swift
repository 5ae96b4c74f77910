import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// Dates, as the reference's "Date and time functions" article writes them: the time now,
// dates moved by modifiers, components, formatting, in each date storage.
@Suite struct DateConformanceTests {
  @Test func comparedWithTheTimeNow() throws {
    try assertConformance(
      Reminder.where { $0.dueDate < .now }.count(),
      sql:
        #"SELECT count(*) FROM "reminders" WHERE ("reminders"."dueDate" < strftime('%Y-%m-%d %H:%M:%f', 'now'))"#,
      rows: "5")
    try assertConformance(
      Reminder.where { $0.updatedAt > .now(.days(-7)) }.count(),
      sql:
        #"SELECT count(*) FROM "reminders" WHERE ("reminders"."updatedAt" > strftime('%Y-%m-%d %H:%M:%f', 'now', '-7 days'))"#,
      rows: "0")
  }

  @Test func movedByModifiers() throws {
    try assertConformance(
      Reminder.find(3).select { $0.dueDate(.startOfDay.days(-7)) },
      sql:
        #"SELECT strftime('%Y-%m-%d %H:%M:%f', "reminders"."dueDate", 'start of day', '-7 days') FROM "reminders" WHERE ("reminders"."id" = ?)"#,
      rows: "2023-11-07 00:00:00.000")
    try assertConformance(
      Reminder.find(3).select { $0.updatedAt(.months(1).hours(2).minutes(-13).seconds(-20)) },
      sql:
        #"SELECT strftime('%Y-%m-%d %H:%M:%f', "reminders"."updatedAt", '1 months', '2 hours', '-13 minutes', '-20.0 seconds') FROM "reminders" WHERE ("reminders"."id" = ?)"#,
      rows: "2023-12-15 00:00:00.000")
    let moved = try conformanceDatabase().read { db in
      try Reminder.find(3).select { $0.updatedAt(.startOfMonth) }.fetchOne(db)
    }
    #expect(moved == Date(timeIntervalSince1970: 1_698_796_800))  // 2023-11-01
  }

  @Test func aModifierOfTheProgramsOwnChainsAfterOthers() throws {
    try assertConformance(
      Reminder.find(3).select { $0.updatedAt(.months(1).endOfMonth) },
      sql:
        #"SELECT strftime('%Y-%m-%d %H:%M:%f', "reminders"."updatedAt", '1 months', 'start of month', '1 months', '-1 days') FROM "reminders" WHERE ("reminders"."id" = ?)"#,
      rows: "2023-12-31 00:00:00.000")
  }

  @Test func componentsAndFormatting() throws {
    try assertConformance(
      Reminder.find(4).select {
        (
          $0.dueDate.year, $0.dueDate.month, $0.dueDate.day, $0.dueDate.weekday,
          $0.dueDate.strftime("%Y-%m")
        )
      },
      sql:
        #"SELECT CAST(strftime('%Y', "reminders"."dueDate") AS INTEGER), CAST(strftime('%m', "reminders"."dueDate") AS INTEGER), CAST(strftime('%d', "reminders"."dueDate") AS INTEGER), CAST(strftime('%w', "reminders"."dueDate") AS INTEGER), strftime(?, "reminders"."dueDate") FROM "reminders" WHERE ("reminders"."id" = ?)"#,
      rows: "2023 | 5 | 8 | 1 | 2023-05")
    try assertConformance(
      Reminder.group(by: { $0.dueDate.year }).select { ($0.dueDate.year, $0.count()) },
      sql:
        #"SELECT CAST(strftime('%Y', "reminders"."dueDate") AS INTEGER), count(*) FROM "reminders" GROUP BY CAST(strftime('%Y', "reminders"."dueDate") AS INTEGER)"#,
      rows: "NULL | 1\n2023 | 5")
  }

  @Test func comparedWithBoundDates() throws {
    let start = Date(timeIntervalSince1970: 1_700_000_000)
    try assertConformance(
      Reminder.where { $0.dueDate.between(start, and: start.addingTimeInterval(86_400 * 3)) }
        .select(\.id),
      sql:
        #"SELECT "reminders"."id" FROM "reminders" WHERE ("reminders"."dueDate" BETWEEN ? AND ?)"#,
      rows: "1\n3\n6")
    try assertConformance(
      Reminder.where { $0.dueDate.lt(start) }.select(\.id),
      sql: #"SELECT "reminders"."id" FROM "reminders" WHERE ("reminders"."dueDate" < ?)"#,
      rows: "2\n4")
  }

  @Test func inUnixTimeAndJulianDays() throws {
    let database = try eventsDatabase()
    try database.write { db in
      let start = Date(timeIntervalSince1970: 1_700_000_000)
      try Event.insert {
        Event(
          id: 1, startsAt: start, endsAt: start.addingTimeInterval(3600), token: UUID(),
          code: UUID())
      }.execute(db)
      try assertQuery(
        Event.select { ($0.startsAt(.months(1)), $0.startsAt.year) }, in: db,
        sql:
          #"SELECT unixepoch("events"."startsAt", 'unixepoch', '1 months'), CAST(strftime('%Y', "events"."startsAt", 'unixepoch') AS INTEGER) FROM "events""#,
        rows: "1702592000 | 2023")
      try assertQuery(
        Event.where { $0.startsAt < .now }.select(\.id), in: db,
        sql: #"SELECT "events"."id" FROM "events" WHERE ("events"."startsAt" < unixepoch('now'))"#,
        rows: "1")
      try assertQuery(
        Event.select { $0.endsAt.hour }, in: db,
        sql: #"SELECT CAST(strftime('%H', "events"."endsAt") AS INTEGER) FROM "events""#,
        rows: "23")
    }
  }
}

extension DateTimeModifier {
  fileprivate static let endOfMonth = Self.startOfMonth.months(1).days(-1)
}
