import Foundation
import HearthQuery
import Testing

// The snippets of ../shared/seeds that use only tables, enums, representations, selects,
// expressions, inserts, updates, deletes and #sql: each written as the seed writes it (the
// import aside), run against a real database, its result checked.

// MARK: - 000 and 001: joins (sports and teams, records, reminders with tags)

enum JoinSeed {
  @Table
  struct Sport: Identifiable {
    let id: Int
    var name = ""
  }

  @Table
  struct Team: Identifiable {
    let id: Int
    var name = ""
    var sportID: Sport.ID
  }

  @Selection
  struct SportWithTeamCount {
    let sport: Sport
    let teamCount: Int
  }

  @Table
  struct RemindersList: Identifiable {
    let id: Int
    var title = ""
  }

  @Table
  struct Reminder: Identifiable {
    let id: Int
    var remindersListID: RemindersList.ID
    var title = ""
  }

  @Selection
  struct Record {
    let reminderTitle: String
    let remindersListTitle: String
  }

  @Table("remindersTags")
  struct ReminderTag: Identifiable {
    let id: Int
    let reminderID: Reminder.ID
    let tagID: Tag.ID
  }

  @Table
  struct Tag: Identifiable {
    let id: Int
    var title = ""
  }
}

extension JoinSeed.Reminder {
  static let withTags = group(by: \.id)
    .leftJoin(JoinSeed.ReminderTag.all) { $0.id.eq($1.reminderID) }
    .leftJoin(JoinSeed.Tag.all) { $1.tagID.eq($2.primaryKey) }
}

extension JoinSeed {
  @Suite struct Tests {
    let database: DatabaseQueue

    init() throws {
      database = try DatabaseQueue()
      try database.write { db in
        try #sql(
          """
          CREATE TABLE "sports" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL DEFAULT '');
          CREATE TABLE "teams" (
            "id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL DEFAULT '',
            "sportID" INTEGER NOT NULL REFERENCES "sports"("id"));
          CREATE TABLE "remindersLists" ("id" INTEGER PRIMARY KEY, "title" TEXT NOT NULL);
          CREATE TABLE "reminders" (
            "id" INTEGER PRIMARY KEY,
            "remindersListID" INTEGER NOT NULL REFERENCES "remindersLists"("id"),
            "title" TEXT NOT NULL);
          CREATE TABLE "tags" ("id" INTEGER PRIMARY KEY, "title" TEXT NOT NULL);
          CREATE TABLE "remindersTags" (
            "id" INTEGER PRIMARY KEY,
            "reminderID" INTEGER NOT NULL REFERENCES "reminders"("id"),
            "tagID" INTEGER NOT NULL REFERENCES "tags"("id"));
          """
        )
        .execute(db)
        try db.seed {
          Sport(id: 1, name: "Football")
          Sport(id: 2, name: "Curling")
          Team(id: 1, name: "Reds", sportID: 1)
          Team(id: 2, name: "Blues", sportID: 1)
          RemindersList(id: 1, title: "Home")
          RemindersList(id: 2, title: "Work")
          Reminder(id: 1, remindersListID: 2, title: "Report")
          Reminder(id: 2, remindersListID: 1, title: "Dishes")
          Tag(id: 1, title: "weekly")
          Tag(id: 2, title: "chores")
          ReminderTag(id: 1, reminderID: 2, tagID: 1)
          ReminderTag(id: 2, reminderID: 2, tagID: 2)
        }
      }
    }

    @Test func sportsWithTheirTeamCounts() throws {
      let query =
        Sport
        .group(by: \.id)
        .leftJoin(Team.all) { $0.id.eq($1.sportID) }
        .select {
          SportWithTeamCount.Columns(sport: $0, teamCount: $1.count())
        }
      let rows = try database.read { try query.fetchAll($0) }
      #expect(rows.map(\.sport.name) == ["Football", "Curling"])
      #expect(rows.map(\.teamCount) == [2, 0])
    }

    @Test func recordsFromJoinedTables() throws {
      let query =
        Reminder
        .join(RemindersList.all) { $0.remindersListID.eq($1.id) }
        .select {
          Record.Columns(
            reminderTitle: $0.title,
            remindersListTitle: $1.title
          )
        }
      let records = try database.read { try query.fetchAll($0) }
      #expect(records.map(\.reminderTitle) == ["Report", "Dishes"])
      #expect(records.map(\.remindersListTitle) == ["Work", "Home"])
    }

    @Test func remindersWithTags() throws {
      let rows = try database.read { db in
        try Reminder.withTags
          .select { ($0.title, $2.title.groupConcat()) }
          .fetchAll(db)
      }
      #expect(rows.map(\.0) == ["Report", "Dishes"])
      #expect(rows[0].1 == nil)
      #expect(rows[1].1.map { Set($0.split(separator: ",")) } == ["weekly", "chores"])
    }
  }
}
