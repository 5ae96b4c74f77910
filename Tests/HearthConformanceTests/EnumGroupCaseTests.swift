import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// An enum group whose cases hold column groups of their own (`case video(Clip.Video)`): each
// such case is stored in its group's columns, and the case is the one whose columns are not
// all NULL. Written as the reference's users write it.
@Table
struct Clip: Equatable {
  let id: Int
  let kind: Kind

  @Selection
  enum Kind: Equatable {
    case link(URL)
    case note(String)
    case video(Clip.Video)
    case image(Clip.Image)
  }

  @Selection
  struct Video: Equatable {
    @Column("videoURL")
    var url = URL(string: "https://video.example")!
    @Column("videoKind")
    var kind: Source = .youtube
    enum Source: String, QueryBindable { case youtube, vimeo }
  }

  @Selection
  struct Image: Equatable {
    @Column("imageCaption")
    let caption: String
    @Column("imageURL")
    let url: URL
  }
}

@Table
struct ClipOwner {
  let id: Int
  var name = ""
}

@Suite struct EnumGroupCaseTests {
  let database: DatabaseQueue
  static let everyColumn =
    #""clips"."id", "clips"."link", "clips"."note", "clips"."videoURL", "clips"."videoKind", "clips"."imageCaption", "clips"."imageURL""#

  init() throws {
    database = try DatabaseQueue()
    try database.write { db in
      try db.execute(
        sql: """
          CREATE TABLE "clips" (
            "id" INTEGER PRIMARY KEY, "link" TEXT, "note" TEXT, "videoURL" TEXT,
            "videoKind" TEXT, "imageCaption" TEXT, "imageURL" TEXT
          ) STRICT;
          INSERT INTO "clips" ("link") VALUES ('https://link.example');
          INSERT INTO "clips" ("note") VALUES ('A good day');
          INSERT INTO "clips" ("videoURL", "videoKind") VALUES ('https://video.example/1', 'vimeo');
          INSERT INTO "clips" ("imageCaption", "imageURL") VALUES ('Cat', 'https://cat.example/c.jpg');
          """)
    }
  }

  static let video = Clip.Video(url: URL(string: "https://video.example/1")!, kind: .vimeo)
  static let image = Clip.Image(caption: "Cat", url: URL(string: "https://cat.example/c.jpg")!)

  @Test func rowsDecodeToTheirCases() throws {
    try database.read { db in
      try assertQuery(
        Clip.all, in: db, sql: "SELECT \(Self.everyColumn) FROM \"clips\"",
        rows: """
          1 | https://link.example | NULL | NULL | NULL | NULL | NULL
          2 | NULL | A good day | NULL | NULL | NULL | NULL
          3 | NULL | NULL | https://video.example/1 | vimeo | NULL | NULL
          4 | NULL | NULL | NULL | NULL | Cat | https://cat.example/c.jpg
          """)
      #expect(
        try Clip.all.fetchAll(db).map(\.kind) == [
          .link(URL(string: "https://link.example")!), .note("A good day"), .video(Self.video),
          .image(Self.image),
        ])
      #expect(try Clip.select { $0.kind }.fetchAll(db).count == 4)
      #expect(try Clip.select(\.kind).fetchAll(db).last == .image(Self.image))
    }
  }

  @Test func aCaseIsTestedByItsColumns() throws {
    try database.read { db in
      try assertQuery(
        Clip.where { $0.kind.is(\.note) }.select(\.id), in: db,
        sql: #"SELECT "clips"."id" FROM "clips" WHERE ("clips"."note" IS NOT NULL)"#, rows: "2")
      try assertQuery(
        Clip.where { $0.kind.is(\.video) }.select(\.id), in: db,
        sql:
          #"SELECT "clips"."id" FROM "clips" WHERE (("clips"."videoURL", "clips"."videoKind") IS NOT (NULL, NULL))"#,
        rows: "3")
      try assertQuery(
        Clip.where { $0.kind.image.isNot(nil) }.select(\.id), in: db,
        sql:
          #"SELECT "clips"."id" FROM "clips" WHERE (("clips"."imageCaption", "clips"."imageURL") IS NOT (NULL, NULL))"#,
        rows: "4")
      #expect(
        try Clip.where { $0.kind.is(Clip.Kind.note("A good day")) }.fetchAll(db).map(\.id) == [2])
      #expect(
        try Clip.where { $0.kind.is(Clip.Kind.video(Self.video)) }.fetchAll(db).map(\.id) == [3])
      #expect(try Clip.where { $0.kind.note.is("A good day") }.fetchAll(db).map(\.id) == [2])
    }
  }

  @Test func aGroupCaseSelectsAsItsGroup() throws {
    try database.read { db in
      try assertQuery(
        Clip.select(\.kind.image), in: db,
        sql: #"SELECT "clips"."imageCaption", "clips"."imageURL" FROM "clips""#,
        rows: "NULL | NULL\nNULL | NULL\nNULL | NULL\nCat | https://cat.example/c.jpg")
      #expect(try Clip.select(\.kind.image).fetchAll(db) == [nil, nil, nil, Self.image])
      #expect(try Clip.select { $0.kind.video }.where { $0.id.eq(3) }.fetchOne(db) == Self.video)
      try assertQuery(
        Clip.select(\.kind.image.caption).where { $0.id.eq(4) }, in: db,
        sql: #"SELECT "clips"."imageCaption" FROM "clips" WHERE ("clips"."id" = ?)"#, rows: "Cat")
    }
  }

  @Test func draftsInsertTheirCaseAndNullTheRest() throws {
    try database.write { db in
      let image = Clip.Image(caption: "Dog", url: URL(string: "dog.jpg")!)
      try assertQuery(
        Clip.insert {
          Clip.Draft(kind: .note("Hello"))
          Clip.Draft(kind: .image(image))
        }
        .returning(\.self), in: db,
        rows: """
          5 | NULL | Hello | NULL | NULL | NULL | NULL
          6 | NULL | NULL | NULL | NULL | Dog | dog.jpg
          """)
      #expect(try Clip.find(6).fetchOne(db)?.kind == .image(image))
      try Clip.upsert { Clip.Draft(id: 1, kind: .video(Self.video)) }.execute(db)
      #expect(try Clip.find(1).fetchOne(db)?.kind == .video(Self.video))
    }
  }

  @Test func updatesSetOneCaseAndNullTheOthers() throws {
    try database.write { db in
      try assertQuery(
        Clip.find(3).update { $0.kind = .note("Bye") }.returning(\.self), in: db,
        rows: "3 | NULL | Bye | NULL | NULL | NULL | NULL")
      try assertQuery(
        Clip.find(2).update { $0.kind = .image(Self.image) }.returning(\.self), in: db,
        rows: "2 | NULL | NULL | NULL | NULL | Cat | https://cat.example/c.jpg")
      try assertQuery(
        Clip.find(1).update { $0.kind.note = #bind("Hello, world!") }.returning(\.self), in: db,
        rows: "1 | NULL | Hello, world! | NULL | NULL | NULL | NULL")
      try assertQuery(
        Clip.find(4).update { $0.kind.video = Self.video }.returning(\.self), in: db,
        rows: "4 | NULL | NULL | https://video.example/1 | vimeo | NULL | NULL")
      try assertQuery(
        Clip.find(4).update {
          $0.kind.image = Clip.Image.Selection(
            caption: #sql("upper('owl')"), url: #bind(URL(string: "owl.png")!))
        }
        .returning(\.self), in: db,
        rows: "4 | NULL | NULL | NULL | NULL | OWL | owl.png")
    }
  }

  @Test func anOuterJoinReachesTheCasesOfItsOptionalSide() throws {
    try database.write { db in
      try db.execute(
        sql: """
          CREATE TABLE "clipOwners" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL);
          INSERT INTO "clipOwners" VALUES (2, 'Ana'), (4, 'Ben'), (9, 'Cy');
          """)
      try assertQuery(
        ClipOwner.leftJoin(Clip.all) { $0.id.eq($1.id) }.select { ($0.name, $1.kind.note) },
        in: db, rows: "Ana | A good day\nBen | NULL\nCy | NULL")
      #expect(
        try ClipOwner.leftJoin(Clip.all) { $0.id.eq($1.id) }.select { $1.kind.image }
          .fetchAll(db) == [nil, Self.image, nil])
      #expect(
        try ClipOwner.leftJoin(Clip.all) { $0.id.eq($1.id) }.where { $1.kind.is(\.image) }
          .select { ($0.name, $1.kind.image.caption) }.fetchAll(db).map { "\($0.0) \($0.1 ?? "-")" }
          == ["Ben Cat"])
      #expect(
        try ClipOwner.leftJoin(Clip.all) { $0.id.eq($1.id) }.where { $1.kind.image.isNot(nil) }
          .select { owner, _ in owner.name }.fetchAll(db) == ["Ben"])
    }
  }

  @Test func aCaseIsAValue() throws {
    try database.read { db in
      try assertQuery(
        Values(Clip.Kind.Selection.note("Hi")), in: db,
        sql:
          #"SELECT NULL AS "link", ? AS "note", NULL AS "videoURL", NULL AS "videoKind", NULL AS "imageCaption", NULL AS "imageURL""#,
        rows: "NULL | Hi | NULL | NULL | NULL | NULL")
    }
  }
}

/// An enum table with a case stored in a group's columns.
@Table
enum Shot: Equatable {
  case caption(String)
  case picture(Clip.Image)
}

@Suite struct EnumTableGroupCaseTests {
  @Test func anEnumTableStoresAGroupCaseInItsColumns() throws {
    let database = try DatabaseQueue()
    let cat = Clip.Image(caption: "Cat", url: URL(string: "cat.jpg")!)
    try database.write { db in
      try db.execute(
        sql: #"CREATE TABLE "shots" ("caption" TEXT, "imageCaption" TEXT, "imageURL" TEXT) STRICT"#
      )
      try assertQuery(
        Shot.insert {
          Shot.caption("Hello")
          Shot.picture(cat)
        }, in: db,
        sql:
          #"INSERT INTO "shots" ("caption", "imageCaption", "imageURL") VALUES (?, ?, ?), (?, ?, ?)"#,
        rows: "")
      try assertQuery(
        Shot.all, in: db,
        sql: #"SELECT "shots"."caption", "shots"."imageCaption", "shots"."imageURL" FROM "shots""#,
        rows: "Hello | NULL | NULL\nNULL | Cat | cat.jpg")
      #expect(try Shot.all.fetchAll(db) == [.caption("Hello"), .picture(cat)])
      #expect(
        try Shot.where { $0.picture.isNot(nil) }.select(\.picture.caption).fetchAll(db) == ["Cat"])
      #expect(try Shot.select(\.picture).fetchAll(db) == [nil, cat])
    }
  }
}
