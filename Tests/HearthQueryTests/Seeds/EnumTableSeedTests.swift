import Foundation
import HearthQuery
import Testing

// The snippets of ../shared/seeds that use only tables, enums, representations, selects,
// expressions, inserts, updates, deletes and #sql: each written as the seed writes it (the
// import aside), run against a real database, its result checked.

// MARK: - Single-table inheritance (003)

enum EnumTableSeed {
  @Table
  nonisolated struct Attachment: Identifiable {
    let id: UUID
    let kind: Kind

    @CasePathable @Selection @dynamicMemberLookup
    enum Kind {
      case link(URL)
      case note(String)
      case image(URL)
    }
  }

  @Table
  struct Owner {
    let id: Int
    var attachmentID: UUID?
  }
}

extension EnumTableSeed {
  @Suite struct Tests {
    let database: DatabaseQueue

    init() throws {
      database = try DatabaseQueue()
      try database.write { db in
        try #sql(
          """
          CREATE TABLE "attachments" (
              "id" TEXT PRIMARY KEY NOT NULL DEFAULT (uuid()),
              "link" TEXT, "note" TEXT, "image" TEXT
          ) STRICT
          """
        )
        .execute(db)
      }
    }

    /// The stored row, column by column.
    func storedRow(_ id: UUID) throws -> [String?] {
      try database.read { db in
        let row = try Row.fetchOne(
          db, sql: #"SELECT "link", "note", "image" FROM "attachments" WHERE "id" = ?"#,
          arguments: [id])
        guard let row else { return [] }
        return try (0..<3).map { try row[$0] as String? }
      }
    }

    @Test func flattensCasesIntoNullableColumns() {
      #expect(Attachment.TableColumns.allColumns.map(\.name) == ["id", "link", "note", "image"])
      #expect(Attachment._columnWidth == 4)
      expectSQL(
        Attachment.where { $0.kind.image.isNot(nil) },
        #"SELECT "attachments"."id", "attachments"."link", "attachments"."note", "attachments"."image" FROM "attachments" WHERE ("attachments"."image" IS NOT ?)"#
      )
    }

    @Test func insertsQueriesAndSwitchesCases() throws {
      try database.write { db in
        try Attachment.insert { Attachment.Draft(kind: .note("Hello!")) }.execute(db)
        try Attachment.insert {
          Attachment.Draft(kind: .image(URL(string: "file:///photos/cat.jpg")!))
        }
        .execute(db)
      }
      // Inserts: (id, NULL, 'Hello!', NULL), the id from the column's uuid() default.
      let note = try #require(
        try database.read { db in try Attachment.where { $0.kind.note.isNot(nil) }.fetchOne(db) })
      #expect(note.kind.is(\.note))
      #expect(note.kind[case: \.note] == "Hello!")
      #expect(try storedRow(note.id) == [nil, "Hello!", nil])
      // The id came from the column's `DEFAULT (uuid())`: lowercase text of a version-4 UUID.
      let storedID = try database.read { db in
        try String.fetchOne(db, sql: #"SELECT "id" FROM "attachments" WHERE "note" IS NOT NULL"#)
      }
      let text = try #require(storedID)
      #expect(text == note.id.uuidString.lowercased())
      #expect(Array(text)[14] == "4" && "89ab".contains(Array(text)[19]))

      // Filter by case.
      let images = try database.read { db in
        try Attachment.where { $0.kind.image.isNot(nil) }.fetchAll(db)
      }
      #expect(images.map { $0.kind[case: \.image] } == [URL(string: "file:///photos/cat.jpg")!])
      #expect(images.first?.id != note.id)

      // Update changes which columns are populated.
      let id = note.id
      try database.write { db in
        try Attachment.find(id).update {
          $0.kind = .link(URL(string: "https://example.com")!)
        }
        .execute(db)
      }
      #expect(try storedRow(id) == ["https://example.com", nil, nil])
      let link = try database.read { db in try Attachment.find(id).fetchOne(db) }
      #expect(link?.kind[case: \.link] == URL(string: "https://example.com"))
      #expect(link?.kind.is(\.note) == false)

      expectSQL(
        Attachment.find(id).update { $0.kind = .note("Bye") },
        #"UPDATE "attachments" SET "link" = NULL, "note" = ?, "image" = NULL WHERE ("attachments"."id" = ?)"#
      )
    }

    @Test func aRowWithNoCaseIsADecodingError() throws {
      let id = UUID()
      try database.write { db in
        try #sql("INSERT INTO \(Attachment.self) (id) VALUES (\(id))").execute(db)
      }
      #expect(throws: QueryDecodingError.self) {
        try database.read { db in try Attachment.find(id).fetchOne(db) }
      }
    }

    @Test func aGroupIsAssignedColumnByColumn() throws {
      let id = UUID()
      try database.write { db in
        try Attachment.insert { Attachment(id: id, kind: .note("draft")) }.execute(db)
        // A case built from an expression, not a value: the note column gets the SQL.
        let note = Attachment.columns.kind.note ?? ""
        try Attachment.find(id).update { $0.kind = .note(note.upper()) }.execute(db)
      }
      #expect(try storedRow(id) == [nil, "DRAFT", nil])
      try database.write { db in
        try Attachment.find(id).update { $0.kind = .image(URL(string: "file:///a.png")!) }
          .execute(db)
      }
      #expect(try storedRow(id) == [nil, nil, "file:///a.png"])
    }

    @Test func enumGroupsSelectAndDecodeThroughJoins() throws {
      try database.write { db in
        try Attachment.insert { Attachment.Draft(kind: .note("n")) }.execute(db)
        try #sql("CREATE TABLE owners (id INTEGER PRIMARY KEY, attachmentID TEXT)").execute(db)
        try #sql("INSERT INTO owners VALUES (1, (SELECT id FROM attachments)), (2, NULL)")
          .execute(db)
      }
      let kinds = try database.read { db in
        try Owner.leftJoin(Attachment.all) { $0.attachmentID.eq($1.id) }
          .order { o, _ in o.id }
          .select { ($0.id, $1) }
          .fetchAll(db)
      }
      #expect(kinds.map(\.0) == [1, 2])
      #expect(kinds[0].1?.kind[case: \.note] == "n")
      #expect(kinds[1].1 == nil)
      let selected = try database.read { db in
        try Attachment.select(\.kind).fetchAll(db)
      }
      #expect(selected.map { $0.note } == ["n"])
    }

    @Test func casePathsEmbedAndExtract() {
      let path = Attachment.Kind.allCasePaths.note
      #expect(path.embed("x")[case: \.note] == "x")
      #expect(path.extract(from: .link(URL(string: "https://a.b")!)) == nil)
      #expect(path.name == "note")
    }
  }
}
