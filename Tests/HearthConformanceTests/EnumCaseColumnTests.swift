import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// `@Column` on a case of an enum table: the column's name, and the representation its value
// is stored as.

@Table
enum Memo: Equatable {
  @Column(as: [String].JSONRepresentation.self)
  case list([String])
  @Column("body")
  case text(String)
}

@Suite struct EnumCaseColumnTests {
  @Test func aCaseColumnHasItsNameAndRepresentation() throws {
    let database = try DatabaseQueue()
    try database.write { db in
      try db.execute(sql: #"CREATE TABLE "memos" ("list" TEXT, "body" TEXT)"#)
      try assertQuery(
        Memo.insert {
          Memo.list(["milk", "eggs"])
          Memo.text("call back")
        }, in: db,
        sql: #"INSERT INTO "memos" ("list", "body") VALUES (?, ?), (?, ?)"#, rows: "")
      try assertQuery(
        Memo.select { ($0.list, $0.text) }, in: db,
        sql: #"SELECT "memos"."list", "memos"."body" FROM "memos""#,
        rows: #"["milk","eggs"] | NULL"# + "\nNULL | call back")
      #expect(try Memo.all.fetchAll(db) == [.list(["milk", "eggs"]), .text("call back")])
      #expect(try Memo.where { $0.text.eq("call back") }.fetchAll(db) == [.text("call back")])
      #expect(
        try Values(Memo.Columns.list(#bind(["Blob", "Jr"]))).fetchOne(db) == .list(["Blob", "Jr"]))
    }
  }
}
