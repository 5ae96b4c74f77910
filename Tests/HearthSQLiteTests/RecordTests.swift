import Foundation
import HearthSQLite
import Testing

/// GRDB's record protocols, written as sqlite-data's migration articles show them.
private struct Player: MutablePersistableRecord, FetchableRecord, Codable, Equatable {
  var id: Int?
  var name: String
  var score = 0
  var tags: [String] = []
  var joined: Date?

  mutating func didInsert(_ inserted: InsertionSuccess) {
    id = Int(inserted.rowID)
  }
}

private struct Membership: PersistableRecord, FetchableRecord, Codable, Equatable {
  static let databaseTableName = "memberships"
  let team: String
  let player: Int
  var role: String
}

@Suite struct RecordTests {
  func database() throws -> DatabaseQueue {
    let database = try DatabaseQueue()
    try database.write { db in
      try db.execute(
        sql: """
          CREATE TABLE "player" (
            "id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "score" INTEGER NOT NULL,
            "tags" TEXT NOT NULL, "joined" TEXT);
          CREATE TABLE "memberships" (
            "team" TEXT NOT NULL, "player" INTEGER NOT NULL, "role" TEXT NOT NULL,
            PRIMARY KEY ("team", "player"));
          """)
    }
    return database
  }

  @Test func aRecordInsertsUpdatesSavesAndDeletesItself() throws {
    let database = try database()
    try database.write { db in
      var ana = Player(name: "Ana", tags: ["a", "b"], joined: Date(timeIntervalSince1970: 0))
      try ana.insert(db)
      #expect(ana.id == 1)
      var bo = Player(name: "Bo")
      try bo.save(db)  // no such row yet: inserted
      #expect(bo.id == 2)
      ana.score = 10
      try ana.update(db)
      bo.name = "Bob"
      try bo.save(db)  // the row exists: updated
      #expect(try Player.fetchAll(db) == [ana, bo])
      #expect(try Player.fetchCount(db) == 2)
      let stored = try Row.fetchOne(db, sql: #"SELECT "tags" FROM "player" WHERE "id" = 1"#)
      #expect(try stored?["tags"] as String? == #"["a","b"]"#)
      #expect(try bo.delete(db))
      #expect(try !bo.delete(db))
      #expect(throws: RecordError.self) { try bo.update(db) }
      #expect(try Player.fetchAll(db) == [ana])
    }
  }

  @Test func aRecordWithACompositeKeyAndAnExplicitTable() throws {
    let database = try database()
    try database.write { db in
      let member = Membership(team: "red", player: 1, role: "captain")
      try member.insert(db)
      try Membership(team: "red", player: 2, role: "keeper").insert(db)
      var changed = member
      changed.role = "coach"
      try changed.update(db)
      #expect(try changed.exists(db))
      let rows = try Membership.fetchAll(
        db, sql: #"SELECT * FROM "memberships" ORDER BY "player""#)
      #expect(rows.map(\.role) == ["coach", "keeper"])
      #expect(
        try Membership.fetchOne(db, sql: #"SELECT * FROM "memberships" WHERE "player" = 2"#)?
          .role == "keeper")
      #expect(Player.databaseTableName == "player")
    }
  }
}
