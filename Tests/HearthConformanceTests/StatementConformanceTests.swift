import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// Inserts, updates and deletes, as the reference's "Inserts", "Updates", "Deletes" and
// "Primary keyed tables" articles write them.
@Suite struct StatementConformanceTests {
  @Test func updateWithToggleAppendAndSQL() throws {
    try assertConformance(
      Reminder.update {
        $0.isFlagged.toggle()
        $0.title += " (Updated)"
        $0.priority = #sql("min(\($0.priority) + 1, 3)")
      }
      .where { $0.id == 3 }
      .returning { ($0.isFlagged, $0.title, $0.priority) },
      sql:
        #"UPDATE "reminders" SET "isFlagged" = NOT ("reminders"."isFlagged"), "title" = ("reminders"."title" || ?), "priority" = min("reminders"."priority" + 1, 3) WHERE ("reminders"."id" = ?) RETURNING "isFlagged", "title", "priority""#,
      rows: "1 | Doctor appointment (Updated) | 3")
  }

  @Test func twoAssignmentsToOneColumnKeepTheLast() throws {
    try assertConformance(
      Reminder.update {
        $0.title += "!"
        $0.title += "?"
      }
      .where { $0.id == 2 }
      .returning(\.title),
      sql:
        #"UPDATE "reminders" SET "title" = ("reminders"."title" || ?), "title" = ("reminders"."title" || ?) WHERE ("reminders"."id" = ?) RETURNING "title""#,
      rows: "Haircut?")
  }

  @Test func findThenUpdateAndDelete() throws {
    try assertConformance(
      Reminder.find(4).update { $0.isCompleted.toggle() }.returning(\.isCompleted),
      sql:
        #"UPDATE "reminders" SET "isCompleted" = NOT ("reminders"."isCompleted") WHERE ("reminders"."id" = ?) RETURNING "isCompleted""#,
      rows: "0")
    try assertConformance(
      Reminder.find(4).delete().returning(\.title),
      sql: #"DELETE FROM "reminders" WHERE ("reminders"."id" = ?) RETURNING "title""#,
      rows: "Take a walk")
  }

  @Test func updateAndDeleteReturningWholeRows() throws {
    let database = try conformanceDatabase()
    let updated = try database.write { db in
      try Reminder.update { $0.isCompleted = true }.where { $0.id == 2 }.returning(\.self)
        .fetchAll(db)
    }
    #expect(updated.map(\.title) == ["Haircut"])
    #expect(updated.map(\.isCompleted) == [true])
    let deleted = try database.write { db in
      try Reminder.delete().where { $0.id == 2 }.returning(\.self).fetchAll(db)
    }
    #expect(deleted == updated)
  }

  @Test func defaultScopeAppliesToUpdatesAndDeletes() throws {
    try assertConformance(
      Note.update { $0.body = "edited" }.returning(\.id),
      sql:
        #"UPDATE "notes" SET "body" = ? WHERE NOT ("notes"."isDeleted") RETURNING "id""#,
      rows: "1")
    try assertConformance(
      Note.unscoped.delete().returning(\.id),
      sql: #"DELETE FROM "notes" RETURNING "id""#, rows: "1\n2")
  }

  @Test func insertRowsWithConditions() throws {
    let vehicleOwner = false
    try assertConformance(
      Tag.insert {
        if vehicleOwner {
          Tag(id: 10, title: "car")
        }
        Tag(id: 11, title: "home")
        Tag(id: 12, title: "work")
      }
      .returning(\.title),
      sql:
        #"INSERT INTO "tags" ("id", "title") VALUES (?, ?), (?, ?) RETURNING "title""#,
      rows: "home\nwork")
  }

  @Test func insertColumnsFromLoops() throws {
    try assertConformance(
      Tag.insert {
        $0.title
      } values: {
        for title in ["home", "work", "school"] {
          title
        }
      }
      .returning(\.id),
      sql: #"INSERT INTO "tags" ("title") VALUES (?), (?), (?) RETURNING "id""#,
      rows: "4\n5\n6")
  }

  @Test func insertOnConflictDoUpdate() throws {
    try assertConformance(
      Reminder.insert {
        ($0.remindersListID, $0.title, $0.priority)
      } values: {
        (1, "Groceries", 3)
      } onConflictDoUpdate: {
        $0.title += " (Copy)"
      }
      .returning { ($0.id, $0.title) },
      sql:
        #"INSERT INTO "reminders" ("remindersListID", "title", "priority") VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET "title" = ("reminders"."title" || ?) RETURNING "id", "title""#,
      rows: "1 | Groceries (Copy)")
  }

  @Test func insertOnConflictTargetDoUpdateFromExcluded() throws {
    try assertConformance(
      Reminder.insert {
        ($0.remindersListID, $0.title, $0.isCompleted, $0.priority)
      } values: {
        (1, "Haircut", true, 2)
      } onConflict: {
        $0.title
      } doUpdate: {
        $0.isCompleted = $1.isCompleted
        $0.priority = $1.priority
      }
      .returning { ($0.id, $0.isCompleted, $0.priority) },
      sql:
        #"INSERT INTO "reminders" ("remindersListID", "title", "isCompleted", "priority") VALUES (?, ?, ?, ?) ON CONFLICT ("title") DO UPDATE SET "isCompleted" = "excluded"."isCompleted", "priority" = "excluded"."priority" RETURNING "id", "isCompleted", "priority""#,
      rows: "2 | 1 | 2")
  }

  @Test func insertOnConflictDoNothing() throws {
    try assertConformance(
      Reminder.insert {
        ($0.remindersListID, $0.title)
      } values: {
        (1, "Haircut")
      } onConflict: {
        $0.title
      }
      .returning(\.id),
      sql:
        #"INSERT INTO "reminders" ("remindersListID", "title") VALUES (?, ?) ON CONFLICT ("title") DO NOTHING RETURNING "id""#,
      rows: "")
  }

  @Test func upsertADraft() throws {
    let draft = Reminder.Draft(id: 5, remindersListID: 2, title: "Send the report")
    try assertConformance(
      Reminder.insert {
        draft
      } onConflictDoUpdate: {
        $0.title = $1.title
      }.returning(\.title),
      sql:
        #"INSERT INTO "reminders" ("id", "assignedUserID", "dueDate", "isCompleted", "isFlagged", "notes", "priority", "remindersListID", "title", "updatedAt") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET "title" = "excluded"."title" RETURNING "title""#,
      rows: "Send the report")
  }

  @Test func insertDefaultValues() throws {
    try assertConformance(
      Tag.insert().returning { ($0.id, $0.title) },
      sql: #"INSERT INTO "tags" DEFAULT VALUES RETURNING "id", "title""#,
      rows: "4 | ")
  }
}

// Scalar functions and storage formats.
@Suite struct FunctionConformanceTests {
  @Test func ifnullAndNullif() throws {
    try assertConformance(
      Reminder.select { ($0.priority.ifnull(0), $0.notes.nullif("")) }.order(by: \.id).limit(2),
      sql:
        #"SELECT ifnull("reminders"."priority", ?), nullif("reminders"."notes", ?) FROM "reminders" ORDER BY "reminders"."id" LIMIT ?"#,
      rows: "0 | Milk, eggs\n0 | NULL")
    let titles: [String] = try conformanceDatabase().read { db in
      try Reminder.where { $0.priority.ifnull(0) > 1 }.order(by: \.id).select(\.title).fetchAll(db)
    }
    #expect(titles == ["Doctor appointment", "Call accountant"])
  }

  @Test func dateRepresentations() throws {
    let database = try eventsDatabase()
    try database.write { db in
      let start = Date(timeIntervalSince1970: 1_700_000_000.75)
      let token = UUID(uuidString: "8A6B2A52-2B4B-4B0A-9C71-1A1E2D3C4B5A")!
      try Event.insert {
        Event(
          id: 1, startsAt: start, endsAt: start.addingTimeInterval(86_400), token: token,
          code: token)
      }.execute(db)
      try assertQuery(
        Event.select { ($0.startsAt, $0.code) }, in: db,
        sql: #"SELECT "events"."startsAt", "events"."code" FROM "events""#,
        rows: "1700000000 | 8A6B2A52-2B4B-4B0A-9C71-1A1E2D3C4B5A")
      // The Julian day is SQLite's own for that instant.
      let drift = try Double.fetchOne(
        db, sql: #"SELECT abs("endsAt" - julianday('2023-11-15 22:13:20.750')) FROM "events""#)
      #expect(try #require(drift) < 1e-6)
      let event = try #require(try Event.all.fetchOne(db))
      #expect(event.startsAt == Date(timeIntervalSince1970: 1_700_000_000))
      #expect(abs(event.endsAt!.timeIntervalSince(start.addingTimeInterval(86_400))) < 0.001)
      #expect(event.token == token)
      #expect(event.code == token)
      let unixepoch = try Int.fetchOne(db, sql: #"SELECT unixepoch('2023-11-14 22:13:20')"#)
      #expect(
        try Event.where { $0.startsAt.eq(#sql("\(raw: unixepoch ?? 0)")) }.fetchCount(db) == 1)
    }
  }
}

/// An empty "events" table, in the storage `Event` declares.
func eventsDatabase() throws -> DatabaseQueue {
  let database = try DatabaseQueue()
  try database.write { db in
    try db.execute(
      sql: """
        CREATE TABLE "events" (
          "id" INTEGER PRIMARY KEY, "startsAt" INTEGER NOT NULL, "endsAt" REAL,
          "token" BLOB NOT NULL, "code" TEXT NOT NULL
        ) STRICT
        """)
  }
  return database
}

@Table
struct Event {
  let id: Int
  @Column(as: Date.UnixTimeRepresentation.self)
  var startsAt: Date
  @Column(as: Date.JulianDayRepresentation?.self)
  var endsAt: Date?
  @Column(as: UUID.BytesRepresentation.self)
  var token: UUID
  @Column(as: UUID.UppercasedRepresentation.self)
  var code: UUID
}

// The reference's names for statement types, in declarations.
extension Reminder {
  static let byTitle: SelectOf<Reminder> = Reminder.order(by: \.title)
  static let withLists: SelectOf<Reminder, RemindersList> = Reminder.join(RemindersList.all) {
    $0.remindersListID.eq($1.id)
  }
  static func complete(_ id: Int) -> UpdateOf<Reminder> {
    Reminder.find(id).update { $0.isCompleted = true }
  }
  static func remove(_ id: Int) -> DeleteOf<Reminder> { Reminder.find(id).delete() }
  static func add(_ title: String) -> InsertOf<Reminder> {
    Reminder.insert { Reminder.Draft(remindersListID: 1, title: title) }
  }
}

@Suite struct StatementTypeNameTests {
  @Test func namedStatementTypesRun() throws {
    let database = try conformanceDatabase()
    try database.write { db in
      #expect(try Reminder.byTitle.fetchAll(db).first?.title == "Call accountant")
      #expect(try Reminder.withLists.fetchAll(db).count == 6)
      try Reminder.complete(1).execute(db)
      try Reminder.remove(2).execute(db)
      try Reminder.add("New").execute(db)
      #expect(try Reminder.where(\.isCompleted).count().fetchOne(db) == 3)
      #expect(try Reminder.count().fetchOne(db) == 6)
    }
  }
}
