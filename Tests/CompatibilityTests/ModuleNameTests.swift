import Foundation
import SQLiteData
import StructuredQueries
import Testing

// Code that imports the reference's module names compiles against Hearth unchanged.

@Table
struct Item: Identifiable {
  let id: Int
  @Column("name")
  var title = ""
  var isInStock = true
}

@Suite struct ModuleNameTests {
  @Test func sqliteDataAndStructuredQueriesAreHearth() async throws {
    let database = try DatabaseQueue()
    try await database.write { db in
      try #sql(
        """
        CREATE TABLE "items" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, \
        "isInStock" INTEGER NOT NULL DEFAULT 1)
        """
      ).execute(db)
      try Item.insert { Item.Draft(title: "Milk") }.execute(db)
    }
    @FetchAll(Item.where(\.isInStock).select(\.title), database: database) var titles
    #expect(titles == ["Milk"])
  }
}
