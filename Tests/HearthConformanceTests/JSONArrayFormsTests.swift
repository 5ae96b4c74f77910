import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// Arrays built and grown in SQL: `jsonGroupArray(distinct:)` of values and of rows, an array
// of JSON columns (each kept as JSON, an optional one as null), and `jsonAppend`.

@Table
struct Bookmark: Codable, Equatable, Identifiable {
  let id: Int
  var folder = ""
  @Column(as: [String].JSONRepresentation.self)
  var labels: [String] = []
  @Column(as: [String].JSONRepresentation?.self)
  var notes: [String]?
}

private func bookmarkDatabase() throws -> DatabaseQueue {
  let database = try DatabaseQueue()
  try database.write { db in
    try db.execute(
      sql: """
        CREATE TABLE "bookmarks" (
          "id" INTEGER PRIMARY KEY, "folder" TEXT NOT NULL, "labels" TEXT NOT NULL,
          "notes" TEXT);
        """)
    try Bookmark.insert {
      Bookmark(id: 1, folder: "work", labels: ["a", "b"], notes: ["n"])
      Bookmark(id: 2, folder: "work", labels: ["c"])
      Bookmark(id: 3, folder: "home", labels: [])
    }.execute(db)
  }
  return database
}

enum Chosen: AliasName {}
enum FirstLabel: AliasName {}
enum SecondLabel: AliasName {}
enum OuterBookmark: AliasName {}

@Suite struct JSONArrayFormsTests {
  @Test func aSelectNamedAfterItsClausesReadsItsTableUnderTheName() throws {
    try bookmarkDatabase().read { db in
      try assertQuery(
        Bookmark.where {
          $0.labels.jsonEach().where { $0.value.eq("b") }.order(by: \.key).as(Chosen.self)
            .exists()
        }.select(\.id), in: db,
        sql:
          #"SELECT "bookmarks"."id" FROM "bookmarks" WHERE EXISTS (SELECT "chosens"."key", "chosens"."value" FROM json_each("bookmarks"."labels") AS "chosens" WHERE ("chosens"."value" = ?) ORDER BY "chosens"."key")"#,
        rows: "1")
      // A table-valued function twice, each under its own name.
      try assertQuery(
        Bookmark.join(Bookmark.columns.labels.jsonEach().as(FirstLabel.self)) { _, _ in true }
          .join(Bookmark.columns.labels.jsonEach().as(SecondLabel.self)) { $1.key < $2.key }
          .select { ($0.id, $1.value, $2.value) }, in: db,
        sql:
          #"SELECT "bookmarks"."id", "firstLabels"."value", "secondLabels"."value" FROM "bookmarks" JOIN json_each("bookmarks"."labels") AS "firstLabels" ON ? JOIN json_each("bookmarks"."labels") AS "secondLabels" ON ("firstLabels"."key" < "secondLabels"."key")"#,
        rows: "1 | a | b")
      // A whole select, after its join and columns.
      try assertQuery(
        Bookmark.where { $0.id.eq(1) }
          .join(Bookmark.columns.labels.jsonEach()) { _, _ in true }
          .select { ($0.folder, $1.value) }
          .as(OuterBookmark.self), in: db,
        sql:
          #"SELECT "outerBookmarks"."folder", "json_each"."value" FROM "bookmarks" AS "outerBookmarks" JOIN json_each("outerBookmarks"."labels") ON ? WHERE ("outerBookmarks"."id" = ?)"#,
        rows: "work | a\nwork | b")
    }
  }

  @Test func aDistinctGroupArrayKeepsEachValueOnce() throws {
    try bookmarkDatabase().read { db in
      try assertQuery(
        Bookmark.select { $0.folder.jsonGroupArray(distinct: true) }, in: db,
        sql: #"SELECT json_group_array(DISTINCT "bookmarks"."folder") FROM "bookmarks""#,
        rows: #"["work","home"]"#)
      let folders = try Bookmark.select { $0.folder.jsonGroupArray(distinct: true) }.fetchOne(db)
      #expect(folders == ["work", "home"])
      let rows = try Bookmark.where { $0.id.lt(3) }
        .select { $0.jsonGroupArray(distinct: true) }.fetchOne(db)
      #expect(rows?.map(\.id) == [1, 2])
    }
  }

  @Test func aGroupArrayOfJSONColumnsKeepsThemJSON() throws {
    try bookmarkDatabase().read { db in
      try assertQuery(
        Bookmark.select { ($0.labels.jsonGroupArray(), $0.notes.jsonGroupArray()) }, in: db,
        sql:
          #"SELECT json_group_array(json("bookmarks"."labels")), json_group_array(json("bookmarks"."notes")) FROM "bookmarks""#,
        rows: #"[["a","b"],["c"],[]] | [["n"],null,null]"#)
      let arrays = try Bookmark.select { ($0.labels.jsonGroupArray(), $0.notes.jsonGroupArray()) }
        .fetchOne(db)
      #expect(arrays?.0 == [["a", "b"], ["c"], []])
      #expect(arrays?.1 == [["n"], nil, nil])
    }
  }

  @Test func aJSONColumnIsSetToASelectOfItsValue() throws {
    try bookmarkDatabase().write { db in
      try assertQuery(
        Bookmark.find(3).update {
          $0.labels = Bookmark.where { $0.id.lt(3) }.select { $0.folder.jsonGroupArray() }
        }.returning(\.labels), in: db,
        sql:
          #"UPDATE "bookmarks" SET "labels" = (SELECT json_group_array("bookmarks"."folder") FROM "bookmarks" WHERE ("bookmarks"."id" < ?)) WHERE ("bookmarks"."id" = ?) RETURNING "labels""#,
        rows: #"["work","work"]"#)
      #expect(try Bookmark.find(3).fetchOne(db)?.labels == ["work", "work"])
    }
  }

  @Test func jsonAppendAddsAtTheEndOfTheArray() throws {
    try bookmarkDatabase().write { db in
      try assertQuery(
        Bookmark.find(1).update { $0.labels = $0.labels.jsonAppend("c").jsonAppend("d") }
          .returning(\.labels),
        in: db,
        sql:
          #"UPDATE "bookmarks" SET "labels" = json_insert(json_insert("bookmarks"."labels", ?, ?), ?, ?) WHERE ("bookmarks"."id" = ?) RETURNING "labels""#,
        rows: #"["a","b","c","d"]"#)
      try Bookmark.find(3).update { $0.labels = $0.labels.jsonbAppend("first") }.execute(db)
      #expect(try Bookmark.find(3).fetchOne(db)?.labels == ["first"])
      // An appended value is a JSON string, even when it reads as JSON.
      try Bookmark.find(2).update { $0.labels = $0.labels.jsonAppend(#"["x"]"#) }.execute(db)
      #expect(try Bookmark.find(2).fetchOne(db)?.labels == ["c", #"["x"]"#])
    }
  }

  @Test func aBoundValueTakesItsRepresentationFromTheContext() throws {
    try bookmarkDatabase().write { db in
      try assertQuery(
        Bookmark.where { $0.labels.eq(#bind(["a", "b"])) }.select(\.id), in: db,
        sql: #"SELECT "bookmarks"."id" FROM "bookmarks" WHERE ("bookmarks"."labels" = ?)"#,
        rows: "1")
      try Bookmark.find(3).update { $0.labels = #bind(["p", "q"]) }.execute(db)
      #expect(try Bookmark.find(3).fetchOne(db)?.labels == ["p", "q"])
      try Bookmark.find(3).update { $0.notes = #bind(nil) }.execute(db)
      #expect(try Bookmark.find(3).fetchOne(db)?.notes == nil)
      #expect(try Bookmark.where { $0.id.eq(#bind(3)) }.fetchCount(db) == 1)
    }
  }
}

/// A JSON object of objects and one of numbers, keyed by name.
struct Stock: Codable, Equatable {
  var onHand = 0
}

@Table
struct Warehouse: Equatable, Identifiable {
  let id: Int
  var city = ""
  @Column(as: [String: Stock].JSONRepresentation.self)
  var stock: [String: Stock] = [:]
  @Column(as: [String: Int].JSONRepresentation.self)
  var ratings: [String: Int] = [:]
}

@Suite struct JSONObjectEachTests {
  private func database() throws -> DatabaseQueue {
    let database = try DatabaseQueue()
    try database.write { db in
      try db.execute(
        sql: """
          CREATE TABLE "warehouses" (
            "id" INTEGER PRIMARY KEY, "city" TEXT NOT NULL, "stock" TEXT NOT NULL,
            "ratings" TEXT NOT NULL)
          """)
      try Warehouse.insert {
        Warehouse(
          id: 1, city: "Oslo", stock: ["bolt": Stock(onHand: 1), "nut": Stock(onHand: 4)],
          ratings: ["speed": 9])
        Warehouse(id: 2, city: "Rome", stock: ["bolt": Stock(onHand: 7)], ratings: ["speed": 2])
      }.execute(db)
    }
    return database
  }

  @Test func eachMemberOfAnObjectHasItsNameAsKey() throws {
    try database().read { db in
      try assertQuery(
        Warehouse.select {
          ($0.city, $0.stock.jsonEach().select { $0.value.jsonExtract(\.onHand).sum() })
        }
        .order(by: \.id),
        in: db,
        sql:
          #"SELECT "warehouses"."city", (SELECT sum(json_extract("json_each"."value", ?)) FROM json_each("warehouses"."stock")) FROM "warehouses" ORDER BY "warehouses"."id""#,
        rows: "Oslo | 5\nRome | 7")
      let members = try Warehouse.where { $0.id.eq(1) }
        .join(Warehouse.columns.stock.jsonEach()) { _, _ in true }
        .select { ($1.key, $1.value) }
        .fetchAll(db)
      #expect(members.map(\.0) == ["bolt", "nut"])
      #expect(members.map(\.1) == [Stock(onHand: 1), Stock(onHand: 4)])
      try assertQuery(
        Warehouse.where { $0.ratings.jsonEach().where { $0.value.gt(5) }.exists() }.select(\.city),
        in: db, rows: "Oslo")
      try assertQuery(
        Warehouse.where {
          $0.ratings.jsonEach().where { $0.key.eq("speed") && $0.value.lt(5) }.exists()
        }
        .select(\.city),
        in: db, rows: "Rome")
    }
  }

  @Test func aLeftJoinOfAnObjectsMembersKeepsARowWithoutAny() throws {
    try database().write { db in
      try Warehouse.insert { Warehouse(id: 3, city: "Lima") }.execute(db)
      try assertQuery(
        Warehouse.leftJoin(Warehouse.columns.stock.jsonEach()) { _, _ in true }
          .select { ($0.city, $1.key) }.order { ($0.id, $1.key) },
        in: db,
        sql:
          #"SELECT "warehouses"."city", "json_each"."key" FROM "warehouses" LEFT JOIN json_each("warehouses"."stock") ON ? ORDER BY "warehouses"."id", "json_each"."key""#,
        rows: "Oslo | bolt\nOslo | nut\nRome | bolt\nLima | NULL")
      let rows = try Warehouse.where { $0.id.eq(3) }
        .leftJoin(Warehouse.columns.stock.jsonEach()) { _, _ in true }.fetchAll(db)
      #expect(rows.count == 1)
      #expect(rows.first?.1 == nil)
      // A value inside the optional side's document is optional: nil where no row joined.
      let onHand = try Warehouse.leftJoin(Warehouse.columns.stock.jsonEach()) { _, _ in true }
        .select { ($0.city, $1.value.jsonExtract(\.onHand)) }.order { ($0.id, $1.key) }
        .fetchAll(db)
      #expect(onHand.map(\.1) == [1, 4, 7, nil])
    }
  }
}

@Table
struct Stamp: Codable, Equatable, Identifiable {
  let id: Int
  @Column(as: Date.UnixTimeRepresentation.self)
  var at = Date(timeIntervalSince1970: 0)
  @Column(as: Date.JulianDayRepresentation?.self)
  var due: Date?
}

@Suite struct DatesInJSONTests {
  @Test func aDateStoredAsANumberIsItsTextInJSONAndReadsBack() throws {
    let database = try DatabaseQueue()
    try database.write { db in
      try db.execute(
        sql: #"CREATE TABLE "stamps" ("id" INTEGER PRIMARY KEY, "at" INTEGER NOT NULL, "due" REAL)"#
      )
      let stamps = [
        Stamp(
          id: 1, at: Date(timeIntervalSince1970: 86_400), due: Date(timeIntervalSince1970: 43_200)),
        Stamp(id: 2),
      ]
      try Stamp.insert { stamps }.execute(db)
      try assertQuery(
        Stamp.select { $0.jsonGroupArray() }, in: db,
        rows:
          #"[{"id":1,"at":"1970-01-02 00:00:00","due":"1970-01-01 12:00:00.000"},{"id":2,"at":"1970-01-01 00:00:00","due":null}]"#
      )
      #expect(try Stamp.select { $0.jsonGroupArray() }.fetchOne(db) == stamps)
    }
  }
}
