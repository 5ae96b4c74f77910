import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// JSON, as the reference's "JSON" article writes it: aggregating values and whole rows into
// arrays, rows as objects, and the length of an array.
@Selection
struct ListWithReminders {
  let remindersList: RemindersList
  @Column(as: [Reminder].JSONRepresentation.self)
  let reminders: [Reminder]
}

/// A table with a column the reference stores as JSONB; here JSON text.
@Table
struct Playlist: Equatable, Identifiable {
  let id: Int
  @Column(as: [String].JSONBRepresentation.self)
  var tracks: [String] = []
}

@Suite struct JSONConformanceTests {
  @Test func theJSONBFormsReadAndWriteAsTheJSONOnes() throws {
    let database = try DatabaseQueue()
    try database.write { db in
      try db.execute(
        sql: #"CREATE TABLE "playlists" ("id" INTEGER PRIMARY KEY, "tracks" TEXT NOT NULL)"#)
      try Playlist.insert {
        Playlist(id: 1, tracks: ["Intro", "Blue"])
        Playlist(id: 2, tracks: [])
      }.execute(db)
      try assertQuery(
        Playlist.select { $0.tracks.jsonbExtract(\.[0]) }.order(by: \.id), in: db,
        sql:
          #"SELECT json_extract("playlists"."tracks", ?) FROM "playlists" ORDER BY "playlists"."id""#,
        rows: "Intro\nNULL")
      try Playlist.find(2).update { $0.tracks = $0.tracks.jsonbInsert(\.[0], "Outro") }.execute(db)
      #expect(
        try Playlist.order(by: \.id).fetchAll(db).map(\.tracks) == [["Intro", "Blue"], ["Outro"]])
      let titles = try Playlist.find(1).select { $0.tracks }.fetchOne(db)
      #expect(titles == ["Intro", "Blue"])
      try assertQuery(
        Playlist.where { $0.tracks.jsonbEach().where { $0.value.eq("Blue") }.exists() }.select(
          \.id),
        in: db, rows: "1")
    }
  }

  @Test func groupArrayOfValues() throws {
    try assertConformance(
      Reminder.where { $0.remindersListID.eq(2) }.select { $0.title.jsonGroupArray() },
      sql:
        #"SELECT json_group_array("reminders"."title") FROM "reminders" WHERE ("reminders"."remindersListID" = ?)"#,
      rows: #"["Send report","Call accountant"]"#)
    let titles = try conformanceDatabase().read { db in
      try Reminder.select { $0.title.jsonGroupArray() }.fetchOne(db)
    }
    #expect(titles?.count == 6)
  }

  @Test func aRowAsAnObject() throws {
    try assertConformance(
      Reminder.find(4).select { $0.jsonObject() },
      sql:
        #"SELECT json_object('id', "reminders"."id", 'assignedUserID', "reminders"."assignedUserID", 'dueDate', "reminders"."dueDate", 'isCompleted', json(CASE "reminders"."isCompleted" WHEN 0 THEN 'false' WHEN 1 THEN 'true' END), 'isFlagged', json(CASE "reminders"."isFlagged" WHEN 0 THEN 'false' WHEN 1 THEN 'true' END), 'notes', "reminders"."notes", 'priority', "reminders"."priority", 'remindersListID', "reminders"."remindersListID", 'title', "reminders"."title", 'updatedAt', "reminders"."updatedAt") FROM "reminders" WHERE ("reminders"."id" = ?)"#,
      rows:
        #"{"id":4,"assignedUserID":null,"dueDate":"2023-05-08 22:13:20.000","isCompleted":true,"isFlagged":false,"notes":"","priority":null,"remindersListID":1,"title":"Take a walk","updatedAt":"2023-11-14 22:13:20.000"}"#
    )
    let decoded = try conformanceDatabase().read { db in
      try (
        Reminder.find(4).select { $0.jsonObject() }.fetchOne(db),
        Reminder.find(4).fetchOne(db)
      )
    }
    #expect(decoded.0 == decoded.1)
  }

  @Test func aOneToManyAssociationInOneQuery() throws {
    let database = try conformanceDatabase()
    try database.write { db in
      try RemindersList.insert { RemindersList.Draft(title: "Empty") }.execute(db)
    }
    let rows = try database.read { db in
      try RemindersList
        .group(by: \.id)
        .leftJoin(Reminder.all) { $0.id.eq($1.remindersListID) }
        .select { ListWithReminders.Columns(remindersList: $0, reminders: $1.jsonGroupArray()) }
        .fetchAll(db)
    }
    #expect(rows.map(\.remindersList.title) == ["Personal", "Work", "Empty"])
    // An aggregate meets its rows in no promised order.
    #expect(rows.map { $0.reminders.map(\.id).sorted() } == [[1, 2, 3, 4], [5, 6], []])
    let walk = try database.read { db in try Reminder.find(4).fetchOne(db) }
    #expect(rows[0].reminders.first { $0.id == 4 } == walk)
  }

  @Test func lengthOfAJSONArray() throws {
    try assertConformance(
      RemindersList.select { list in
        Reminder.where { $0.remindersListID == list.id }.select { $0.id.jsonGroupArray() }
          .jsonArrayLength()
      },
      sql:
        #"SELECT json_array_length((SELECT json_group_array("reminders"."id") FROM "reminders" WHERE ("reminders"."remindersListID" = "remindersLists"."id"))) FROM "remindersLists""#,
      rows: "4\n2")
  }

  @Test func datesInsideJSONColumnsRoundTrip() throws {
    let database = try DatabaseQueue()
    try database.write { db in
      try db.execute(
        sql: #"CREATE TABLE "schedules" ("id" INTEGER PRIMARY KEY, "dates" TEXT NOT NULL)"#)
      let dates = [Date(timeIntervalSince1970: 1_700_000_000.5), Date(timeIntervalSince1970: 0)]
      try Schedule.insert { Schedule(id: 1, dates: dates) }.execute(db)
      try assertQuery(
        Schedule.select { $0.dates.jsonArrayLength() }, in: db,
        sql: #"SELECT json_array_length("schedules"."dates") FROM "schedules""#, rows: "2")
      #expect(
        try String.fetchOne(db, sql: "SELECT dates FROM schedules")
          == #"["2023-11-14 22:13:20.500","1970-01-01 00:00:00.000"]"#)
      #expect(try Schedule.all.fetchOne(db)?.dates == dates)
      // A date written as Foundation's default number still reads.
      try db.execute(sql: "UPDATE schedules SET dates = '[0]'")
      #expect(try Schedule.all.fetchOne(db)?.dates == [Date(timeIntervalSinceReferenceDate: 0)])
    }
  }
}

@Table
struct Schedule {
  let id: Int
  @Column(as: [Date].JSONRepresentation.self)
  var dates: [Date]
}

// JSON paths, edits and json_each, as the article's profiles use them.
struct Author: Codable, Equatable, Sendable {
  var name: String
  var links: [Link] = []
  var age: Int?

  struct Link: Codable, Equatable, Sendable {
    var homepage: String
  }
}

@Table
struct Profile: Equatable {
  let id: Int
  @Column(as: Author.JSONRepresentation.self)
  var author: Author
  @Column(as: [Int].JSONRepresentation.self)
  var favoriteNumbers: [Int] = []
  @Column(as: [String].JSONRepresentation.self)
  var tags: [String] = []
}

@Suite struct JSONPathConformanceTests {
  let database: DatabaseQueue

  init() throws {
    database = try DatabaseQueue()
    try database.write { db in
      try db.execute(
        sql: """
          CREATE TABLE "profiles" (
            "id" INTEGER PRIMARY KEY, "author" TEXT NOT NULL,
            "favoriteNumbers" TEXT NOT NULL DEFAULT '[]', "tags" TEXT NOT NULL DEFAULT '[]'
          ) STRICT
          """)
      try db.seed {
        Profile(
          id: 1,
          author: Author(
            name: "Blob",
            links: [
              .init(homepage: "https://www.pointfree.co"), .init(homepage: "https://blob.com"),
            ],
            age: 42),
          favoriteNumbers: [1, 2, 3], tags: ["urgent", "home"])
        Profile(id: 2, author: Author(name: "Blob Jr"), favoriteNumbers: [10], tags: ["work"])
      }
    }
  }

  @Test func extractValuesByKeyPath() throws {
    try database.read { db in
      try assertQuery(
        Profile.select { $0.author.jsonExtract(\.name) }, in: db,
        sql: #"SELECT json_extract("profiles"."author", ?) FROM "profiles""#,
        rows: "Blob\nBlob Jr")
      #expect(
        Profile.select { $0.author.jsonExtract(\.links[0].homepage) }.query.bindings == [
          #"$."links"[0]."homepage""#.databaseValue
        ])
      try assertQuery(
        Profile.where { $0.author.jsonExtract(\.name).eq("Blob") }.select(\.id), in: db,
        sql:
          #"SELECT "profiles"."id" FROM "profiles" WHERE (json_extract("profiles"."author", ?) = ?)"#,
        rows: "1")
      try assertQuery(
        Profile.select { $0.author.jsonArrayLength(\.links) }, in: db,
        sql: #"SELECT json_array_length("profiles"."author", ?) FROM "profiles""#, rows: "2\n0")
      let links = try Profile.find(1).select { $0.author.jsonExtract(\.links) }.fetchOne(db)
      #expect(links?.map(\.homepage) == ["https://www.pointfree.co", "https://blob.com"])
      #expect(try Profile.select { $0.author.jsonExtract(\.age) }.fetchAll(db) == [42, nil])
    }
  }

  @Test func editDocumentsInPlace() throws {
    try database.write { db in
      try Profile.find(2).update { $0.author = $0.author.jsonSet(\.name, "Blob III") }.execute(db)
      try Profile.find(2).update { $0.author = $0.author.jsonInsert(\.age, 7) }.execute(db)
      try Profile.find(1).update { $0.author = $0.author.jsonReplace(\.age, 43) }.execute(db)
      let replaced = try Profile.find(1).select { $0.author.jsonExtract(\.age) }.fetchOne(db)
      #expect(replaced == 43)
      try Profile.find(1).update {
        $0.author = $0.author.jsonRemove(\.age).jsonSet(\.links[1].homepage, "https://blob.org")
      }.execute(db)
      let authors = try Profile.order(by: \.id).select(\.author).fetchAll(db)
      #expect(
        authors == [
          Author(
            name: "Blob",
            links: [
              .init(homepage: "https://www.pointfree.co"), .init(homepage: "https://blob.org"),
            ]),
          Author(name: "Blob III", age: 7),
        ])
      try assertQuery(
        Profile.find(2).select {
          $0.author.jsonPatch(#bind(Author(name: "Patched"), as: Author.JSONRepresentation.self))
        }, in: db,
        sql:
          #"SELECT json_patch("profiles"."author", ?) FROM "profiles" WHERE ("profiles"."id" = ?)"#,
        rows: #"{"links":[],"name":"Patched","age":7}"#)
    }
  }

  @Test func eachElementAsASelect() throws {
    try database.read { db in
      try assertQuery(
        Profile.where { $0.tags.jsonEach().where { $0.value.eq("urgent") }.exists() }.select(\.id),
        in: db,
        sql:
          #"SELECT "profiles"."id" FROM "profiles" WHERE EXISTS (SELECT "json_each"."key", "json_each"."value" FROM json_each("profiles"."tags") WHERE ("json_each"."value" = ?))"#,
        rows: "1")
      try assertQuery(
        Profile.select { ($0.id, $0.favoriteNumbers.jsonEach().select { $0.value.sum() }) }, in: db,
        sql:
          #"SELECT "profiles"."id", (SELECT sum("json_each"."value") FROM json_each("profiles"."favoriteNumbers")) FROM "profiles""#,
        rows: "1 | 6\n2 | 10")
      try assertQuery(
        Profile.where {
          $0.author.jsonEach(\.links).where {
            $0.value.jsonExtract(\.homepage).like("%pointfree.co%")
          }
          .exists()
        }.select(\.id), in: db,
        sql:
          #"SELECT "profiles"."id" FROM "profiles" WHERE EXISTS (SELECT "json_each"."key", "json_each"."value" FROM json_each("profiles"."author", ?) WHERE (json_extract("json_each"."value", ?) LIKE ?))"#,
        rows: "1")
      let elements = try #sql(
        "SELECT \(JSONEach<Int, String>.columns) FROM json_each('[\"a\",\"b\"]')",
        as: JSONEach<Int, String>.self
      ).fetchAll(db)
      #expect(elements.map(\.key) == [0, 1])
      #expect(elements.map(\.value) == ["a", "b"])
    }
  }
}

extension JSONPathConformanceTests {
  @Test func joinTheElementsOfADocument() throws {
    try database.read { db in
      try assertQuery(
        Profile.join(Profile.columns.author.jsonEach(\.links)) { _, _ in true }
          .select { ($0.author.jsonExtract(\.name), $1.value.jsonExtract(\.homepage)) }, in: db,
        sql:
          #"SELECT json_extract("profiles"."author", ?), json_extract("json_each"."value", ?) FROM "profiles" JOIN json_each("profiles"."author", ?) ON ?"#,
        rows: "Blob | https://www.pointfree.co\nBlob | https://blob.com")
    }
  }
}
