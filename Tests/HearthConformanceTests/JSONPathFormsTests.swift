import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// Paths into JSON documents that may lack what they name: through an optional member, from
// the end of an array; documents edited with values the statement computes; UUIDs in JSON.

struct Byline: Codable, Equatable {
  var name = ""
  var nickname: String?
  var links: [String] = []
}

struct Persona: Codable, Equatable {
  var byline: Byline?
  var externalID = UUID(0)
  var previous: [Byline] = []
}

@Table
struct Biography: Codable, Equatable, Identifiable {
  let id: Int
  @Column(as: Persona.JSONRepresentation.self)
  var profile = Persona()
  @Column(as: UUID.BytesRepresentation.self)
  var token = UUID(0)
}

private let ada = Persona(
  byline: Byline(name: "Ada", nickname: "Countess", links: ["a.org", "b.org"]),
  externalID: UUID(uuidString: "DEADBEEF-DEAD-BEEF-DEAD-BEEFDEADBEEF")!)

private func biographyDatabase() throws -> DatabaseQueue {
  let database = try DatabaseQueue()
  try database.write { db in
    try db.execute(
      sql: """
        CREATE TABLE "biographies" (
          "id" INTEGER PRIMARY KEY, "profile" TEXT NOT NULL, "token" BLOB NOT NULL);
        """)
    try Biography.insert {
      Biography(
        id: 1, profile: ada, token: UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!)
      Biography(id: 2)
    }.execute(db)
  }
  return database
}

@Suite struct JSONPathFormsTests {
  @Test func aPathThroughAnOptionalMemberReadsNullWhereItIsAbsent() throws {
    try biographyDatabase().read { db in
      try assertQuery(
        Biography.order(by: \.id).select {
          ($0.profile.jsonExtract(\.byline.name), $0.profile.jsonExtract(\.byline.nickname))
        }, in: db,
        sql:
          #"SELECT json_extract("biographies"."profile", ?), json_extract("biographies"."profile", ?) FROM "biographies" ORDER BY "biographies"."id""#,
        rows: "Ada | Countess\nNULL | NULL")
      let names = try Biography.order(by: \.id).select { $0.profile.jsonExtract(\.byline.name) }
        .fetchAll(db)
      #expect(names == ["Ada", nil])
      try assertQuery(
        Biography.order(by: \.id).select { $0.profile.jsonArrayLength(\.byline.links) }, in: db,
        rows: "2\nNULL")
    }
  }

  @Test func aNegativeIndexCountsFromTheEnd() throws {
    try biographyDatabase().read { db in
      try assertQuery(
        Biography.find(1).select { $0.profile.jsonExtract(\.byline.links[-1]) }, in: db,
        sql:
          #"SELECT json_extract("biographies"."profile", ?) FROM "biographies" WHERE ("biographies"."id" = ?)"#,
        rows: "b.org")
    }
  }

  @Test func editsThroughAnOptionalMemberChangeOnlyTheDocumentsThatHaveIt() throws {
    try biographyDatabase().write { db in
      try Biography.update {
        $0.profile = $0.profile.jsonReplace(\.byline.name, "Ada L.").jsonRemove(\.byline.nickname)
      }.execute(db)
      let profiles = try Biography.order(by: \.id).select(\.profile).fetchAll(db)
      #expect(profiles[0].byline == Byline(name: "Ada L.", links: ["a.org", "b.org"]))
      #expect(profiles[1] == Persona())
    }
  }

  @Test func aComputedValueIsSetAsJSON() throws {
    try biographyDatabase().write { db in
      // An array extracted from the document is set as an array, not as its text.
      try assertQuery(
        Biography.find(1).update {
          $0.profile = $0.profile.jsonSet(\.byline.links, $0.profile.jsonExtract(\.byline.links))
            .jsonSet(\.byline.name, $0.profile.jsonExtract(\.byline.nickname))
        }.returning(\.profile), in: db,
        sql:
          #"UPDATE "biographies" SET "profile" = json_set(json_set("biographies"."profile", ?, json(json_extract("biographies"."profile", ?))), ?, json_extract("biographies"."profile", ?)) WHERE ("biographies"."id" = ?) RETURNING "profile""#,
        rows:
          #"{"byline":{"links":["a.org","b.org"],"name":"Countess","nickname":"Countess"},"externalID":"DEADBEEF-DEAD-BEEF-DEAD-BEEFDEADBEEF","previous":[]}"#
      )
      // A subquery's array, from another row.
      try Biography.find(2).update {
        $0.profile = $0.profile.jsonbSet(
          \.byline, Biography.find(1).select { $0.profile.jsonExtract(\.byline) })
      }.execute(db)
      #expect(try Biography.find(2).fetchOne(db)?.profile.byline?.links == ["a.org", "b.org"])
    }
  }

  @Test func anObjectIsAppendedToAnArrayAtAPath() throws {
    try biographyDatabase().write { db in
      try Biography.update {
        $0.profile = $0.profile.jsonbAppend(\.previous, #bind(Byline(name: "Old")))
          .jsonAppend(\.previous, #bind(Byline(name: "Older", links: ["c.org"])))
      }.execute(db)
      let profiles = try Biography.order(by: \.id).select(\.profile).fetchAll(db)
      #expect(
        profiles.map(\.previous)
          == Array(
            repeating: [
              Byline(name: "Old"), Byline(name: "Older", links: ["c.org"]),
            ], count: 2))
    }
  }

  @Test func aUUIDComparesWithTheDocumentsTextInEitherCase() throws {
    try biographyDatabase().read { db in
      // Foundation's encoder wrote the UUID in uppercase; the bound value is lowercase.
      try assertQuery(
        Biography.where { $0.profile.jsonExtract(\.externalID).eq(ada.externalID) }.select(\.id),
        in: db,
        sql:
          #"SELECT "biographies"."id" FROM "biographies" WHERE ((json_extract("biographies"."profile", ?) COLLATE NOCASE) = ?)"#,
        rows: "1")
    }
  }

  @Test func aUUIDStoredAsBytesIsItsTextInJSON() throws {
    try biographyDatabase().read { db in
      let rows = try Biography.order(by: \.id).select { $0.jsonGroupArray() }.fetchOne(db)
      #expect(
        rows?.map(\.token) == [
          UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!, UUID(0),
        ])
      let object = Biography.find(1).select { $0.jsonObject() }.query
      let token = try String.fetchOne(
        db, sql: "SELECT json_extract((\(object.sql)), '$.token')",
        arguments: StatementArguments(object.bindings))
      #expect(token == "00112233-4455-6677-8899-aabbccddeeff")
    }
  }
}
