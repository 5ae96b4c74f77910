import Foundation
import HearthQuery
import Testing

@Selection
struct ReminderStats: Equatable {
  var allCount = 0
  var flaggedCount = 0
  @Column(as: [String].JSONRepresentation.self)
  var openTitles: [String] = []
}

@Selection
struct ListWithCount: Equatable {
  let list: RemindersList
  let reminderCount: Int
}

@Suite struct SelectTests {
  let database: DatabaseQueue
  init() throws { database = try makeRemindersDatabase() }

  func fetch<S: Statement>(_ statement: S) throws -> [S.QueryValue] {
    try database.read { try statement.fetchAll($0) }
  }

  let columns =
    #""reminders"."id", "reminders"."dueDate", "reminders"."isFlagged", "reminders"."notes", "reminders"."priority", "reminders"."remindersListID", "reminders"."status", "reminders"."title""#

  @Test func all() throws {
    expectSQL(Reminder.all, #"SELECT \#(columns) FROM "reminders""#)
    #expect(try fetch(Reminder.all).map(\.title) == ["Groceries", "Haircut", "Send report"])
    #expect(try database.read { try Reminder.fetchAll($0) }.count == 3)
    #expect(try database.read { try Reminder.fetchCount($0) } == 3)
    #expect(try database.read { try Reminder.fetchOne($0) }?.id == 1)
  }

  @Test func compoundSelectsAndExists() throws {
    let titles = Reminder.select(\.title).union(RemindersList.select(\.title)).order(byColumn: 1)
    expectSQL(
      titles,
      #"SELECT "reminders"."title" FROM "reminders" UNION SELECT "remindersLists"."title" FROM "remindersLists" ORDER BY 1"#
    )
    #expect(try fetch(titles) == ["Groceries", "Haircut", "Personal", "Send report", "Work"])

    let flaggedOrWork = Reminder.where(\.isFlagged).select(\.id)
      .union(all: true, Reminder.where { $0.remindersListID == 2 }.select(\.id))
    #expect(try fetch(flaggedOrWork).sorted() == [2, 3])
    let personalNotFlagged = Reminder.where { $0.remindersListID == 1 }.select(\.id)
      .except(Reminder.where(\.isFlagged).select(\.id))
    #expect(try fetch(personalNotFlagged) == [1])
    let both = Reminder.where { $0.remindersListID == 1 }.select(\.id)
      .intersect(Reminder.where(\.isFlagged).select(\.id))
    #expect(try fetch(both) == [2])

    // A correlated EXISTS: the lists with an incomplete reminder.
    let busy = RemindersList.where { list in
      Reminder.where { $0.remindersListID == list.id && !$0.isCompleted }.exists()
    }
    .select(\.title)
    #expect(try fetch(busy) == ["Personal"])
    #expect(
      busy.query.sql.contains(
        #"WHERE EXISTS (SELECT "#))
  }

  @Test func selectionsDecodeAggregatesAndWholeRows() throws {
    let stats = Reminder.select {
      ReminderStats.Columns(
        allCount: $0.count(), flaggedCount: $0.count(filter: $0.isFlagged),
        openTitles: $0.title.jsonGroupArray(filter: !$0.isCompleted))
    }
    expectSQL(
      stats,
      #"SELECT count(*), count(*) FILTER (WHERE "reminders"."isFlagged"), json_group_array("reminders"."title") FILTER (WHERE NOT (("reminders"."status" <> ?))) FROM "reminders""#
    )
    #expect(
      try database.read { try stats.fetchOne($0) }
        == ReminderStats(allCount: 3, flaggedCount: 1, openTitles: ["Groceries", "Haircut"]))

    // A whole row next to a correlated count.
    let lists = RemindersList.order(by: \.id).select { list in
      ListWithCount.Columns(
        list: list,
        reminderCount: Reminder.where { $0.remindersListID == list.id }.count())
    }
    let rows = try fetch(lists)
    #expect(rows.map(\.list.title) == ["Personal", "Work"])
    #expect(rows.map(\.reminderCount) == [2, 1])
    #expect(ListWithCount._columnWidth == RemindersList._columnWidth + 1)
  }

  @Test func decodesEveryColumnType() throws {
    let reminders = try fetch(Reminder.all)
    #expect(
      reminders[0]
        == Reminder(
          id: 1, dueDate: Date(timeIntervalSince1970: 1_700_000_000), notes: "Milk, eggs",
          remindersListID: 1, title: "Groceries"))
    #expect(reminders[1].priority == .high)
    #expect(reminders[1].isFlagged)
    #expect(reminders[2].status == .completed)
  }

  @Test func whereClosureAndKeyPath() throws {
    let flagged = expectSQL(
      Reminder.where { $0.isFlagged },
      #"SELECT \#(columns) FROM "reminders" WHERE "reminders"."isFlagged""#)
    #expect(try fetch(flagged).map(\.id) == [2])
    let byKeyPath = expectSQL(
      Reminder.where(\.isFlagged),
      #"SELECT \#(columns) FROM "reminders" WHERE "reminders"."isFlagged""#)
    #expect(try fetch(byKeyPath).map(\.id) == [2])
    let chained = expectSQL(
      Reminder.where { $0.remindersListID == 1 }.where { !$0.isFlagged },
      #"SELECT \#(columns) FROM "reminders" WHERE (("reminders"."remindersListID" = ?)) AND (NOT ("reminders"."isFlagged"))"#,
      bindings: [1])
    #expect(try fetch(chained).map(\.id) == [1])
  }

  @Test func computedExpressionsAndStaticHelpers() throws {
    let incomplete = expectSQL(
      Reminder.incomplete,
      #"SELECT \#(columns) FROM "reminders" WHERE NOT (("reminders"."status" <> ?))"#, bindings: [0]
    )
    #expect(try fetch(incomplete).map(\.id) == [1, 2])
    let scheduled = Reminder.where(\.isScheduled)
    #expect(try fetch(scheduled).map(\.id) == [1])
    #expect(try fetch(Reminder.where(\.isCompleted)).map(\.id) == [3])
  }

  @Test func orderByKeyPaths() throws {
    let ordered = expectSQL(
      Reminder.order(by: \.isFlagged, \.title),
      #"SELECT \#(columns) FROM "reminders" ORDER BY "reminders"."isFlagged", "reminders"."title""#)
    #expect(try fetch(ordered).map(\.id) == [1, 3, 2])
  }

  @Test func orderByClosureWithTuplesDirectionsAndBranches() throws {
    let tuple = expectSQL(
      Reminder.order { ($0.isFlagged.desc(), $0.title.asc()) },
      #"SELECT \#(columns) FROM "reminders" ORDER BY "reminders"."isFlagged" DESC, "reminders"."title" ASC"#
    )
    #expect(try fetch(tuple).map(\.id) == [2, 1, 3])
    for forward in [true, false] {
      let query = Reminder.order {
        if forward {
          $0.title
        } else {
          $0.title.desc()
        }
      }
      let expected = forward ? #""reminders"."title""# : #""reminders"."title" DESC"#
      expectSQL(query, #"SELECT \#(columns) FROM "reminders" ORDER BY \#(expected)"#)
      #expect(try fetch(query).map(\.id) == (forward ? [1, 2, 3] : [3, 2, 1]))
    }
    let nulls = Reminder.order { $0.dueDate.desc(nulls: .last) }
    expectSQL(
      nulls, #"SELECT \#(columns) FROM "reminders" ORDER BY "reminders"."dueDate" DESC NULLS LAST"#)
  }

  @Test func limitAndOffset() throws {
    let page = expectSQL(
      Reminder.order(by: \.id).limit(2, offset: 1),
      #"SELECT \#(columns) FROM "reminders" ORDER BY "reminders"."id" LIMIT ? OFFSET ?"#,
      bindings: [2, 1])
    #expect(try fetch(page).map(\.id) == [2, 3])
    #expect(try fetch(Reminder.limit(1)).map(\.id) == [1])
  }

  @Test func selectOneColumnOrATuple() throws {
    let titles = expectSQL(
      Reminder.select { $0.title }, #"SELECT "reminders"."title" FROM "reminders""#)
    let fetchedTitles: [String] = try fetch(titles)
    #expect(fetchedTitles == ["Groceries", "Haircut", "Send report"])
    let pairs = expectSQL(
      Reminder.where(\.isFlagged).select { ($0.id, $0.title, $0.priority) },
      #"SELECT "reminders"."id", "reminders"."title", "reminders"."priority" FROM "reminders" WHERE "reminders"."isFlagged""#
    )
    let rows = try fetch(pairs)
    #expect(rows.count == 1)
    #expect(rows[0].0 == 2 && rows[0].1 == "Haircut" && rows[0].2 == .high)
  }

  @Test func distinct() throws {
    let lists = expectSQL(
      Reminder.distinct().select { $0.remindersListID },
      #"SELECT DISTINCT "reminders"."remindersListID" FROM "reminders""#)
    #expect(try fetch(lists).sorted() == [1, 2])
  }

  @Test func countAndFetchCount() throws {
    let count = expectSQL(Reminder.count(), #"SELECT count(*) FROM "reminders""#)
    #expect(try database.read { try count.fetchOne($0) } == 3)
    let completed = expectSQL(
      Reminder.where(\.isCompleted).count(),
      #"SELECT count(*) FROM "reminders" WHERE ("reminders"."status" <> ?)"#)
    #expect(try database.read { try completed.fetchOne($0) } == 1)
    #expect(try database.read { try Reminder.incomplete.fetchCount($0) } == 2)
    #expect(try database.read { try Reminder.limit(2).fetchCount($0) } == 2)
  }

  @Test func findByPrimaryKey() throws {
    let one = expectSQL(
      Reminder.find(2), #"SELECT \#(columns) FROM "reminders" WHERE ("reminders"."id" = ?)"#,
      bindings: [2])
    #expect(try database.read { try one.fetchOne($0) }?.title == "Haircut")
    let some = expectSQL(
      Reminder.find([1, 3]),
      #"SELECT \#(columns) FROM "reminders" WHERE ("reminders"."id" IN (?, ?))"#)
    #expect(try fetch(some).map(\.id) == [1, 3])
    #expect(try database.read { try Reminder.find(99).fetchOne($0) } == nil)
    #expect(try database.read { try Tag.find("car").fetchOne($0) } == Tag(title: "car"))
  }

  @Test func groupAndHaving() throws {
    let busyLists = expectSQL(
      Reminder.group(by: \.remindersListID).having { $0.id.count() > 1 }.select {
        $0.remindersListID
      },
      #"SELECT "reminders"."remindersListID" FROM "reminders" GROUP BY "reminders"."remindersListID" HAVING (count("reminders"."id") > ?)"#
    )
    #expect(try fetch(busyLists) == [1])
  }

  @Test func fetchCursorDecodesOneRowAtATime() throws {
    let titles = try database.read { db in
      var titles: [String] = []
      let cursor = try Reminder.order(by: \.title).fetchCursor(db)
      while let reminder = try cursor.next() { titles.append(reminder.title) }
      return titles
    }
    #expect(titles == ["Groceries", "Haircut", "Send report"])
  }

  @Test func staticColumnAccessFromTheType() {
    expectSQL(Reminder.title, #""reminders"."title""#)
    expectSQL(Reminder.isCompleted, #"("reminders"."status" <> ?)"#)
  }
}
