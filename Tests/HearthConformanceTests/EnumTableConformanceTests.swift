import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// Enum tables (single-table inheritance), as the reference's "Defining your schema" article
// writes them: `@Selection enum`, without `@CasePathable` beside it.
@Table
struct Attachment: Equatable, Identifiable {
  let id: Int
  let kind: Kind

  @Selection
  enum Kind: Equatable {
    case link(URL)
    case note(String)
    case image(URL)
  }
}

@Suite struct EnumTableConformanceTests {
  let database: DatabaseQueue

  init() throws {
    database = try DatabaseQueue()
    try database.write { db in
      try db.execute(
        sql: """
          CREATE TABLE "attachments" (
            "id" INTEGER PRIMARY KEY, "link" TEXT, "note" TEXT, "image" TEXT
          ) STRICT
          """)
      try db.seed {
        Attachment(id: 1, kind: .link(URL(string: "https://www.pointfree.co")!))
        Attachment(id: 2, kind: .note("Hello world!"))
        Attachment(id: 3, kind: .image(URL(string: "https://example.com/cat.jpg")!))
      }
    }
  }

  @Test func selectsEveryCaseColumn() throws {
    try database.read { db in
      try assertQuery(
        Attachment.all, in: db,
        sql:
          #"SELECT "attachments"."id", "attachments"."link", "attachments"."note", "attachments"."image" FROM "attachments""#,
        rows:
          "1 | https://www.pointfree.co | NULL | NULL\n2 | NULL | Hello world! | NULL\n3 | NULL | NULL | https://example.com/cat.jpg"
      )
      #expect(
        try Attachment.all.fetchAll(db).map(\.kind) == [
          .link(URL(string: "https://www.pointfree.co")!), .note("Hello world!"),
          .image(URL(string: "https://example.com/cat.jpg")!),
        ])
    }
  }

  @Test func filtersByCase() throws {
    try database.read { db in
      try assertQuery(
        Attachment.where { $0.kind.image.isNot(nil) }.select(\.id), in: db,
        sql:
          #"SELECT "attachments"."id" FROM "attachments" WHERE ("attachments"."image" IS NOT ?)"#,
        rows: "3")
      try assertQuery(
        Attachment.where { $0.kind.note.eq("Hello world!") }.select(\.id), in: db,
        sql: #"SELECT "attachments"."id" FROM "attachments" WHERE ("attachments"."note" = ?)"#,
        rows: "2")
    }
  }

  @Test func insertsNullsForTheOtherCases() throws {
    try database.write { db in
      try assertQuery(
        Attachment.insert { Attachment.Draft(kind: .note("Goodbye")) }
          .returning { ($0.id, $0.kind.link, $0.kind.note, $0.kind.image) }, in: db,
        sql:
          #"INSERT INTO "attachments" ("link", "note", "image") VALUES (?, ?, ?) RETURNING "id", "link", "note", "image""#,
        rows: "4 | NULL | Goodbye | NULL")
    }
  }

  @Test func updatesSetTheCaseAndNullTheRest() throws {
    try database.write { db in
      try assertQuery(
        Attachment.find(1).update { $0.kind = .note("Goodbye world!") }.returning(\.self), in: db,
        sql:
          #"UPDATE "attachments" SET "link" = NULL, "note" = ?, "image" = NULL WHERE ("attachments"."id" = ?) RETURNING "id", "link", "note", "image""#,
        rows: "1 | NULL | Goodbye world! | NULL")
    }
  }

  @Test func casePathsComeWithTheSelection() {
    let kind = Attachment.Kind.note("Hi")
    #expect(kind.is(\.note))
    #expect(kind[case: \.note] == "Hi")
    #expect(Attachment.Kind.allCasePaths.image.extract(from: kind) == nil)
  }
}

/// `@Table` on an enum, as the reference allows: the table's rows are its cases.
@Table
enum Media: Equatable {
  case note(String)
  case image(URL)
}

@Suite struct EnumAsTableConformanceTests {
  @Test func anEnumTable() throws {
    let database = try DatabaseQueue()
    try database.write { db in
      try db.execute(sql: #"CREATE TABLE "medias" ("note" TEXT, "image" TEXT) STRICT"#)
      let cat = URL(string: "https://example.com/cat.jpg")!
      try assertQuery(
        Media.insert {
          Media.note("Hello")
          Media.image(cat)
        }, in: db,
        sql: #"INSERT INTO "medias" ("note", "image") VALUES (?, ?), (?, ?)"#, rows: "")
      try assertQuery(
        Media.all, in: db, sql: #"SELECT "medias"."note", "medias"."image" FROM "medias""#,
        rows: "Hello | NULL\nNULL | https://example.com/cat.jpg")
      #expect(try Media.all.fetchAll(db) == [.note("Hello"), .image(cat)])
      try assertQuery(
        Media.where { $0.image.isNot(nil) }.count(), in: db,
        sql: #"SELECT count(*) FROM "medias" WHERE ("medias"."image" IS NOT ?)"#, rows: "1")
      try assertQuery(
        Media.where { $0.note.eq("Hello") }.update { $0.note = #bind(Optional("Bye")) }
          .returning(\.note), in: db,
        sql:
          #"UPDATE "medias" SET "note" = ? WHERE ("medias"."note" = ?) RETURNING "note""#,
        rows: "Bye")
      try Media.where { $0.image.isNot(nil) }.delete().execute(db)
      #expect(try Media.all.fetchAll(db) == [.note("Bye")])
    }
  }
}
