import Foundation
import HearthQuery
import Testing

/// A model written as the reference's documentation writes them: no annotation where a
/// default value says the type.
@Table("entries")
struct Entry: Equatable {
  let id: Int
  var createdAt = Date(timeIntervalSince1970: 0)
  var token = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
  var link = URL(string: "https://example.com/a")!
  var mask = 0x1F
  var offset = -3
  var ratio = -0.5
  var isDone = false
  var title = "untitled"
}

/// The same inference in a selection.
@Selection
struct EntrySummary: Equatable {
  var title = ""
  var createdAt = Date(timeIntervalSince1970: 0)
}

@Suite struct InferenceTests {
  let database: DatabaseQueue

  init() throws {
    database = try DatabaseQueue()
    try database.write { db in
      try #sql(
        """
        CREATE TABLE "entries" (
          "id" INTEGER PRIMARY KEY, "createdAt" TEXT NOT NULL, "token" TEXT NOT NULL,
          "link" TEXT NOT NULL, "mask" INTEGER NOT NULL, "offset" INTEGER NOT NULL,
          "ratio" REAL NOT NULL, "isDone" INTEGER NOT NULL, "title" TEXT NOT NULL
        ) STRICT
        """
      ).execute(db)
    }
  }

  @Test func inferredColumnsBindDecodeAndCompareAsDeclaredOnes() throws {
    let insert = expectSQL(
      Entry.insert { Entry.Draft() },
      #"INSERT INTO "entries" ("createdAt", "token", "link", "mask", "offset", "ratio", "isDone", "title") VALUES (?, ?, ?, ?, ?, ?, ?, ?)"#,
      bindings: [
        "1970-01-01 00:00:00.000", "e621e1f8-c36c-495a-93fc-0c247a3e6e5f",
        "https://example.com/a", 31, -3, -0.5, 0, "untitled",
      ])
    try database.write { db in
      try insert.execute(db)
      try Entry.insert {
        Entry.Draft(createdAt: Date(timeIntervalSince1970: 86_400), isDone: true, title: "later")
      }
      .execute(db)
    }
    #expect(
      try database.read { try Entry.order(by: \.id).fetchAll($0) } == [
        Entry(id: 1),
        Entry(id: 2, createdAt: Date(timeIntervalSince1970: 86_400), isDone: true, title: "later"),
      ])

    let recent = expectSQL(
      Entry.where { $0.createdAt > Date(timeIntervalSince1970: 3_600) && $0.isDone }
        .select { EntrySummary.Columns(title: $0.title, createdAt: $0.createdAt) },
      #"SELECT "entries"."title", "entries"."createdAt" FROM "entries" WHERE (("entries"."createdAt" > ?) AND "entries"."isDone")"#,
      bindings: ["1970-01-01 01:00:00.000"])
    #expect(
      try database.read { try recent.fetchAll($0) } == [
        EntrySummary(title: "later", createdAt: Date(timeIntervalSince1970: 86_400))
      ])
  }
}
