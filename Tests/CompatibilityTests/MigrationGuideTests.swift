import CasePaths
import Foundation
import HearthDataTestSupport
import SharingGRDB
import Testing

// The forms of SQLiteData's migration guides (../shared/seeds, 000), written as the guides
// write them, each run against a real database.

@Table
struct Reminder: Equatable, Identifiable {
  let id: Int
  var isCompleted = false
  // GRDB's `Column` type and HearthQuery's `@Column` attribute live side by side.
  @Column("title")
  var title = ""
}

struct CompletedReminders: FetchKeyRequest {
  func fetch(_ db: Database) throws -> [Reminder] {
    // The guide's snippet returns the request itself; GRDB (and this) runs it with fetchAll.
    try Reminder.all()
      .where(Column("isCompleted"))
      .order(Column("title"))
      .fetchAll(db)
  }
}

func remindersDatabase() throws -> DatabaseQueue {
  let database = try DatabaseQueue()
  try database.write { db in
    try db.execute(
      sql: """
        CREATE TABLE "reminders" (
          "id" INTEGER PRIMARY KEY AUTOINCREMENT,
          "isCompleted" INTEGER NOT NULL DEFAULT 0,
          "title" TEXT NOT NULL DEFAULT ''
        ) STRICT
        """)
    try db.seed {
      Reminder(id: 1, isCompleted: true, title: "Walk")
      Reminder(id: 2, title: "Groceries")
      Reminder(id: 3, isCompleted: true, title: "Call")
    }
  }
  return database
}

@Suite struct SharedReaderTests {
  @Test func fetchAllWithSQLStaysCurrent() async throws {
    let database = try remindersDatabase()
    try await withDependencies {
      $0.defaultDatabase = database
    } operation: {
      @SharedReader(.fetchAll(sql: "SELECT * FROM reminders WHERE isCompleted ORDER BY title"))
      var completedReminders: [Reminder]
      try await eventually { completedReminders.map(\.title) == ["Call", "Walk"] }
      try await database.write { db in
        try Reminder.find(2).update { $0.isCompleted = true }.execute(db)
      }
      try await eventually { completedReminders.map(\.title) == ["Call", "Groceries", "Walk"] }
    }
  }

  @Test func fetchOneWithSQLAndArguments() async throws {
    let database = try remindersDatabase()
    @SharedReader(.fetchOne(sql: "SELECT count(*) FROM reminders"), database: database)
    var count = 0
    try await eventually { count == 3 }
    @SharedReader(
      .fetchOne(sql: "SELECT title FROM reminders WHERE id = ?", arguments: [9]),
      database: database)
    var missing: String? = "placeholder"
    try await eventually { missing == nil }
    @SharedReader(.fetchOne(sql: "SELECT title FROM reminders WHERE id = 9"), database: database)
    var required = ""
    try await eventually { $required.loadError is FetchOneNotFound }
  }

  @Test func fetchOfARequest() async throws {
    let database = try remindersDatabase()
    try await withDependencies {
      $0.defaultDatabase = database
    } operation: {
      @SharedReader(.fetch(CompletedReminders()))
      var completedReminders
      try await eventually { completedReminders.map(\.id) == [3, 1] }
    }
  }
}

@Suite struct QueryInterfaceTests {
  @Test func requestsFilterOrderAndCount() throws {
    let database = try remindersDatabase()
    let (all, walk, last, completed) = try database.read { db in
      (
        try Reminder.all().fetchAll(db),
        try Reminder.filter(Column("title") == "Walk").fetchOne(db),
        try Reminder.all().order(Column("title").desc).limit(1).fetchOne(db),
        try Reminder.all().where(Column("isCompleted")).fetchCount(db)
      )
    }
    #expect(all.count == 3)
    #expect(walk == Reminder(id: 1, isCompleted: true, title: "Walk"))
    #expect(last?.id == 1)
    #expect(completed == 2)
  }
}

@Suite struct CasePathsImportTests {
  @CasePathable
  enum Kind: Equatable {
    case link(URL)
    case note(String)
  }

  @Test func casePathsComeFromTheCasePathsModule() {
    let kind = Kind.note("Hello")
    #expect(kind.is(\.note))
    #expect(kind[case: \.note] == "Hello")
    #expect(
      Kind.allCasePaths.link.embed(URL(string: "https://example.com")!)
        == .link(URL(string: "https://example.com")!))
  }
}
