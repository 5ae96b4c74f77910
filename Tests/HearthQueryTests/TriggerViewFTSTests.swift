import Foundation
import HearthQuery
import Testing

// The trigger, view and full-text snippets of the seeds, run against real SQLite.

enum TriggerSeed {
  @Table
  struct Item: Identifiable {
    let id: Int
    var title = ""
    var position = 0
  }

  @Table
  struct RemindersList: Identifiable {
    let id: Int
    var title = ""
  }

  @Table
  struct Reminder: Identifiable {
    let id: Int
    var notes = ""
    var remindersListID: RemindersList.ID
    var title = ""
  }

  @Table
  struct ReminderText: FTS5 {
    let rowid: Int
    let title: String
    let notes: String
    let tags: String
  }

  @Table @Selection
  struct ReminderWithList {
    let reminderTitle: String
    let remindersListTitle: String
  }

  static func database() throws -> DatabaseQueue {
    let database = try DatabaseQueue()
    try database.write { db in
      try #sql(
        """
        CREATE TABLE "items" (
          "id" INTEGER PRIMARY KEY, "title" TEXT NOT NULL DEFAULT '',
          "position" INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE "remindersLists" ("id" INTEGER PRIMARY KEY, "title" TEXT NOT NULL);
        CREATE TABLE "reminders" (
          "id" INTEGER PRIMARY KEY, "notes" TEXT NOT NULL DEFAULT '',
          "remindersListID" INTEGER NOT NULL REFERENCES "remindersLists"("id"),
          "title" TEXT NOT NULL DEFAULT '');
        CREATE VIRTUAL TABLE "reminderTexts" USING fts5("title", "notes", "tags");
        """
      )
      .execute(db)
      try RemindersList.insert {
        RemindersList(id: 1, title: "Home")
        RemindersList(id: 2, title: "Work")
      }
      .execute(db)
    }
    return database
  }
}

extension TriggerSeed {
  @Suite struct Tests {
    let database: DatabaseQueue
    init() throws { database = try TriggerSeed.database() }

    @Test func autoPositionOnInsert() throws {
      let trigger = Item.createTemporaryTrigger(
        after: .insert { new in
          Item
            .find(new.id)
            .update { $0.position = Item.select { ($0.position.max() ?? -1) + 1 } }
        }
      )
      #expect(
        trigger.query.sql.hasSuffix(
          #"AFTER INSERT ON "items" FOR EACH ROW BEGIN UPDATE "items" SET "position" = (SELECT (coalesce(max("items"."position"), -1) + 1) FROM "items") WHERE ("items"."id" = "new"."id"); END"#
        ))
      #expect(trigger.query.bindings.isEmpty)
      try database.write { db in
        try trigger.execute(db)
        for title in ["a", "b", "c"] {
          try Item.insert {
            ($0.title)
          } values: {
            title
          }.execute(db)
        }
      }
      let positions = try database.read { try Item.order(by: \.id).select(\.position).fetchAll($0) }
      #expect(positions == [1, 2, 3])
    }

    @Test func fullTextIndexKeptByTriggers() throws {
      try database.write { db in
        try Reminder.createTemporaryTrigger(
          after: .insert { new in
            ReminderText.insert {
              ReminderText.Columns(
                rowid: new.rowid,
                title: new.title,
                notes: new.notes.replace("\\n", " "),
                tags: ""
              )
            }
          }
        )
        .execute(db)
        try Reminder.createTemporaryTrigger(
          after: .update {
            ($0.title, $0.notes)
          } forEachRow: { _, new in
            ReminderText
              .where { $0.rowid.eq(new.rowid) }
              .update {
                $0.title = new.title
                $0.notes = new.notes.replace("\\n", " ")
              }
          }
        )
        .execute(db)
        try Reminder.createTemporaryTrigger(
          after: .delete { old in
            ReminderText
              .where { $0.rowid.eq(old.rowid) }
              .delete()
          }
        )
        .execute(db)

        try Reminder.insert {
          Reminder(id: 1, notes: "Oat milk\\nand eggs", remindersListID: 1, title: "Groceries")
          Reminder(id: 2, notes: "", remindersListID: 2, title: "Buy milk for the office")
          Reminder(id: 3, notes: "Quarterly", remindersListID: 2, title: "Report")
        }
        .execute(db)
      }

      func search(_ text: String) throws -> [Int] {
        try database.read { db in
          try ReminderText.where { $0.match(text) }.order(by: \.rank).select(\.rowid).fetchAll(db)
        }
      }
      #expect(try Set(search("milk")) == [1, 2])
      #expect(try search("report") == [3])
      let highlighted = try database.read { db in
        try ReminderText.where { $0.title.match("milk") }
          .select { $0.title.highlight("[", "]") }
          .fetchAll(db)
      }
      #expect(highlighted == ["Buy [milk] for the office"])
      let snippet = try database.read { db in
        try ReminderText.where { $0.match("eggs") }
          .select { $0.notes.snippet("<", ">", "…", 3) }
          .fetchOne(db)
      }
      #expect(snippet == "…milk and <eggs>")

      try database.write { db in
        try Reminder.find(3).update { $0.title = "Milk report" }.execute(db)
        try Reminder.find(1).delete().execute(db)
      }
      #expect(try Set(search("milk")) == [2, 3])
      #expect(try database.read { try ReminderText.fetchCount($0) } == 2)
      let ranked = try database.read { db in
        try ReminderText.where { $0.match("milk") }.order { $0.bm25(10, 1, 1) }
          .select(\.rowid).fetchAll(db)
      }
      #expect(Set(ranked) == [2, 3])
    }

    @Test func temporaryViewAndInsteadOfTrigger() throws {
      try database.write { db in
        let view = ReminderWithList.createTemporaryView(
          as:
            Reminder
            .join(RemindersList.all) { $0.remindersListID.eq($1.id) }
            .select {
              ReminderWithList.Columns(
                reminderTitle: $0.title,
                remindersListTitle: $1.title
              )
            }
        )
        #expect(
          view.query.sql
            == #"CREATE TEMPORARY VIEW "reminderWithLists" ("reminderTitle", "remindersListTitle") AS SELECT "reminders"."title", "remindersLists"."title" FROM "reminders" JOIN "remindersLists" ON ("reminders"."remindersListID" = "remindersLists"."id")"#
        )
        try view.execute(db)
        try ReminderWithList.createTemporaryTrigger(
          insteadOf: .insert { new in
            Reminder.insert {
              ($0.title, $0.remindersListID)
            } values: {
              (
                new.reminderTitle,
                RemindersList.select(\.id)
                  .where { $0.title.eq(new.remindersListTitle) }
              )
            }
          }
        ).execute(db)
        try Reminder.insert { Reminder(id: 1, remindersListID: 2, title: "Report") }.execute(db)
        try ReminderWithList.insert {
          ReminderWithList(reminderTitle: "Dishes", remindersListTitle: "Home")
        }
        .execute(db)
      }
      let results = try database.read { db in
        try ReminderWithList
          .order { ($0.remindersListTitle, $0.reminderTitle) }
          .fetchAll(db)
      }
      #expect(results.map(\.reminderTitle) == ["Dishes", "Report"])
      #expect(results.map(\.remindersListTitle) == ["Home", "Work"])
      let stored = try database.read { try Reminder.where { $0.title.eq("Dishes") }.fetchOne($0) }
      #expect(stored?.remindersListID == 1)
    }

    @Test func triggerConditionsAndLiterals() throws {
      try database.write { db in
        try Item.createTemporaryTrigger(
          "it's named",
          after: .update(
            forEachRow: { old, new in
              Item.find(new.id).update { $0.title = new.title + " (was '" + old.title + "')" }
            }, when: { old, new in old.title.neq(new.title) })
        )
        .execute(db)
        try Item.insert { Item(id: 1, title: "a") }.execute(db)
        try Item.find(1).update { $0.title = "b" }.execute(db)
        try Item.find(1).update { $0.position = 5 }.execute(db)
      }
      let title = try database.read { try Item.find(1).select(\.title).fetchOne($0) }
      #expect(title == "b (was 'a')")
      let names = try database.read { db in
        try #sql("SELECT name FROM sqlite_temp_master WHERE type = 'trigger'", as: String.self)
          .fetchAll(db)
      }
      #expect(names == ["it's named"])
    }
  }
}

@Table @Selection
struct CountedValue {
  let value: Int
}

@Table @Selection
struct ListTotal {
  let listID: Int
  let total: Int
}

@Suite struct CommonTableExpressionTests {
  @Test func recursiveCountsToTen() throws {
    let oneToTen = With {
      Values(CountedValue.Columns(value: 1))
        .union(
          all: true,
          CountedValue.where { $0.value < 10 }.select { CountedValue.Columns(value: $0.value + 1) })
    } query: {
      CountedValue.all
    }
    #expect(
      oneToTen.query.sql
        == #"WITH RECURSIVE "countedValues" ("value") AS (SELECT ? UNION ALL SELECT ("countedValues"."value" + ?) FROM "countedValues" WHERE ("countedValues"."value" < ?)) SELECT "countedValues"."value" FROM "countedValues""#
    )
    let database = try DatabaseQueue()
    let values = try database.read { try oneToTen.fetchAll($0) }
    #expect(values.map(\.value) == Array(1...10))
  }

  @Test func namedSelectJoinedByTheMainQuery() throws {
    let database = try makeRemindersDatabase()
    let query = With {
      Reminder.group(by: \.remindersListID).select {
        ListTotal.Columns(listID: $0.remindersListID, total: $0.count())
      }
    } query: {
      RemindersList
        .join(ListTotal.all) { $0.id.eq($1.listID) }
        .where { $1.total > 1 }
        .select { list, _ in list.title }
    }
    #expect(try database.read { try query.fetchAll($0) } == ["Personal"])
  }
}
