import Foundation
import HearthQuery
import HearthSQLite
import Tagged
import Testing

@Table
struct Shelf: Identifiable, Equatable, Codable {
  typealias ID = Tagged<Self, Int>
  let id: ID
  var label = ""
}

@Table
struct Book: Identifiable, Equatable {
  typealias ID = Tagged<Self, UUID>
  let id: ID
  var shelfID: Shelf.ID
  var title = ""
}

/// `Tagged` identifiers as columns: bound, stored and read as their raw values.
@Suite struct TaggedTests {
  @Test func taggedIdentifiersAreTheirRawValuesInSQLRowsAndJSON() throws {
    let database = try DatabaseQueue()
    let bookID = Book.ID(UUID(uuidString: "6F3C2E4A-1B2D-4E5F-8A9B-0C1D2E3F4A5B")!)
    let (books, raw) = try database.write { db throws in
      try db.execute(
        sql: """
          CREATE TABLE "shelfs" ("id" INTEGER PRIMARY KEY, "label" TEXT NOT NULL DEFAULT '');
          CREATE TABLE "books" (
            "id" TEXT PRIMARY KEY, "shelfID" INTEGER NOT NULL, "title" TEXT NOT NULL DEFAULT ''
          );
          """)
      try Shelf.insert { Shelf.Draft(label: "Fiction") }.execute(db)
      try Book.insert { Book(id: bookID, shelfID: 1, title: "Dune") }.execute(db)
      let books = try Book.where { $0.shelfID.eq(Shelf.ID(1)) }
        .join(Shelf.all) { $0.shelfID.eq($1.id) }.fetchAll(db)
      let raw = try #sql(#"SELECT "id", "shelfID" FROM "books""#, as: (String, Int).self)
        .fetchOne(db)
      return (books, raw)
    }
    #expect(books.map(\.0) == [Book(id: bookID, shelfID: 1, title: "Dune")])
    #expect(books.map(\.1.label) == ["Fiction"])
    #expect(raw?.0 == "6f3c2e4a-1b2d-4e5f-8a9b-0c1d2e3f4a5b")
    #expect(raw?.1 == 1)
    let json = try JSONEncoder().encode(Shelf(id: 3, label: "x"))
    #expect(String(decoding: json, as: UTF8.self).contains(#""id":3"#))
    #expect(try JSONDecoder().decode(Shelf.self, from: json) == Shelf(id: 3, label: "x"))
    #expect(Shelf.ID(2) < Shelf.ID(3))
  }
}
