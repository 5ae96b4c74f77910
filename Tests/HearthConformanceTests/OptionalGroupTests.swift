import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// A table's optional column groups (`var meta: Meta?`, `var time: Time?` of an enum group):
// nil is NULL in every column of the group, a row with all of them NULL reads as nil, and a
// query reaches into the group (`$0.meta.author`, `$0.time.note`, `$0.time.span.start`,
// `$0.time.is(\.moment)`), each column optional.

@Table
struct LogEntry: Equatable, Identifiable {
  let id: Int
  var time: Time?
  var meta: Meta?

  @Selection
  enum Time: Equatable {
    case moment(Date)
    case note(String)
    case span(LogEntry.Span)
  }

  @Selection
  struct Span: Equatable {
    @Column("spanStart")
    var start: Int
    @Column("spanEnd")
    var end: Int
  }

  @Selection
  struct Meta: Equatable {
    @Column("metaAuthor")
    var author: String
  }
}

@Table
struct LogOwner: Equatable, Identifiable {
  let id: Int
}

@Suite struct OptionalGroupTests {
  private func database() throws -> DatabaseQueue {
    let database = try DatabaseQueue()
    try database.write { db in
      try db.execute(
        sql: """
          CREATE TABLE "logEntries" (
            "id" INTEGER PRIMARY KEY, "moment" TEXT, "note" TEXT, "spanStart" INTEGER,
            "spanEnd" INTEGER, "metaAuthor" TEXT);
          CREATE TABLE "logOwners" ("id" INTEGER PRIMARY KEY);
          INSERT INTO "logOwners" VALUES (1), (2), (3), (4);
          """)
      try LogEntry.insert {
        LogEntry(id: 1, time: .note("hello"), meta: LogEntry.Meta(author: "Blob"))
        LogEntry(id: 2, time: .span(LogEntry.Span(start: 3, end: 9)), meta: nil)
        LogEntry(id: 3, time: nil, meta: nil)
      }.execute(db)
    }
    return database
  }

  @Test func nilIsNullInEveryColumnAndReadsBackAsNil() throws {
    try database().read { db in
      try assertQuery(
        LogEntry.order(by: \.id).select { ($0.id, $0.meta.author, $0.time.note) }, in: db,
        sql:
          #"SELECT "logEntries"."id", "logEntries"."metaAuthor", "logEntries"."note" FROM "logEntries" ORDER BY "logEntries"."id""#,
        rows: "1 | Blob | hello\n2 | NULL | NULL\n3 | NULL | NULL")
      #expect(
        try LogEntry.order(by: \.id).fetchAll(db) == [
          LogEntry(id: 1, time: .note("hello"), meta: LogEntry.Meta(author: "Blob")),
          LogEntry(id: 2, time: .span(LogEntry.Span(start: 3, end: 9)), meta: nil),
          LogEntry(id: 3, time: nil, meta: nil),
        ])
    }
  }

  @Test func aQueryReachesIntoAnOptionalGroup() throws {
    try database().read { db in
      try assertQuery(
        LogEntry.where { $0.time.is(\.span) }.select { ($0.id, $0.time.span.start) }, in: db,
        sql:
          #"SELECT "logEntries"."id", "logEntries"."spanStart" FROM "logEntries" WHERE (("logEntries"."spanStart", "logEntries"."spanEnd") IS NOT (NULL, NULL))"#,
        rows: "2 | 3")
      let spans = try LogEntry.order { ($0.time.span.end.desc(), $0.id) }.select(\.id).fetchAll(db)
      #expect(spans == [2, 1, 3])
      #expect(try LogEntry.where { $0.meta.isNot(nil) }.select(\.id).fetchAll(db) == [1])
    }
  }

  @Test func anOuterJoinsOptionalSideReachesIntoItsOptionalGroups() throws {
    try database().read { db in
      try assertQuery(
        LogOwner.leftJoin(LogEntry.all) { $0.id.eq($1.id) }
          .where { $1.time.is(\.span) }
          .select { ($0.id, $1.time.span.end) }, in: db,
        sql:
          #"SELECT "logOwners"."id", "logEntries"."spanEnd" FROM "logOwners" LEFT JOIN "logEntries" ON ("logOwners"."id" = "logEntries"."id") WHERE (("logEntries"."spanStart", "logEntries"."spanEnd") IS NOT (NULL, NULL))"#,
        rows: "2 | 9")
    }
  }
}
