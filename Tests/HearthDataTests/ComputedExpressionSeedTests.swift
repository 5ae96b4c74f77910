import Foundation
import HearthData
import Testing

// The seeds' computed expressions that read the injected date (`@Dependency(\.date.now)`),
// and their `Stats` selection with `count(filter:)`.

enum ComputedSeed {
  @Table
  struct Reminder: Identifiable {
    let id: Int
    var dueDate: Date?
    var isFlagged = false
    var status: Status = .incomplete
    var title = ""

    enum Status: Int, QueryBindable {
      case incomplete = 0
      case completed = 1
      case completing = 2
    }
  }

  @Selection
  struct Stats {
    var allCount = 0
    var flaggedCount = 0
    var scheduledCount = 0
    var todayCount = 0
  }
}

extension ComputedSeed.Reminder.TableColumns {
  var isCompleted: some QueryExpression<Bool> {
    status.neq(ComputedSeed.Reminder.Status.incomplete)
  }
  var isPastDue: some QueryExpression<Bool> {
    @Dependency(\.date.now) var now
    return !isCompleted && #sql("coalesce(date(\(dueDate)) < date(\(now)), 0)")
  }
  var isToday: some QueryExpression<Bool> {
    @Dependency(\.date.now) var now
    return !isCompleted && #sql("coalesce(date(\(dueDate)) = date(\(now)), 0)")
  }
  var isScheduled: some QueryExpression<Bool> {
    !isCompleted && dueDate.isNot(nil)
  }
}

extension ComputedSeed {
  @Suite struct Tests {
    let database: DatabaseQueue
    let now = Date(timeIntervalSince1970: 1_750_000_000)  // 2025-06-15, mid-afternoon UTC

    init() throws {
      database = try DatabaseQueue()
      let day: TimeInterval = 86_400
      try database.write { [now] db in
        try #sql(
          """
          CREATE TABLE "reminders" (
            "id" INTEGER PRIMARY KEY, "dueDate" TEXT, "isFlagged" INTEGER NOT NULL DEFAULT 0,
            "status" INTEGER NOT NULL DEFAULT 0, "title" TEXT NOT NULL DEFAULT '')
          """
        )
        .execute(db)
        try db.seed {
          Reminder(id: 1, dueDate: now.addingTimeInterval(-2 * day), title: "Overdue")
          Reminder(id: 2, dueDate: now, isFlagged: true, title: "Today")
          Reminder(id: 3, dueDate: now.addingTimeInterval(3 * day), title: "Later")
          Reminder(id: 4, title: "Someday")
          Reminder(
            id: 5, dueDate: now.addingTimeInterval(-day), isFlagged: true, status: .completed,
            title: "Done")
        }
      }
    }

    @Test func pastDueAndTodayFollowTheInjectedDate() throws {
      let (pastDue, today) = try withDependencies {
        $0.date.now = now
      } operation: {
        try database.read { db in
          (
            try Reminder.where { $0.isPastDue }.fetchAll(db).map(\.title),
            try Reminder.where { $0.isToday }.fetchAll(db).map(\.title)
          )
        }
      }
      #expect(pastDue == ["Overdue"])
      #expect(today == ["Today"])

      // Four days on, "Later" is past due too and nothing is due today.
      let later = try withDependencies {
        $0.date.now = now.addingTimeInterval(4 * 86_400)
      } operation: {
        try database.read { db in
          (
            try Reminder.where { $0.isPastDue }.fetchAll(db).map(\.title),
            try Reminder.where { $0.isToday }.fetchAll(db).map(\.title)
          )
        }
      }
      #expect(later.0 == ["Overdue", "Today", "Later"])
      #expect(later.1 == [])
    }

    @Test func statsCountWithFilters() throws {
      let stats = try withDependencies {
        $0.date.now = now
      } operation: {
        try database.read { db in
          try Reminder.select {
            Stats.Columns(
              allCount: $0.count(filter: !$0.isCompleted),
              flaggedCount: $0.count(filter: $0.isFlagged && !$0.isCompleted),
              scheduledCount: $0.count(filter: $0.isScheduled),
              todayCount: $0.count(filter: $0.isToday)
            )
          }
          .fetchOne(db)
        }
      }
      #expect(stats?.allCount == 4)
      #expect(stats?.flaggedCount == 1)
      #expect(stats?.scheduledCount == 3)
      #expect(stats?.todayCount == 1)
    }
  }
}
