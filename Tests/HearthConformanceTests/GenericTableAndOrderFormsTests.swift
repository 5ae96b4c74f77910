import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

/// A generic table: the columns of `pragma_table_info`, for any table.
@Table
struct PragmaColumn<Base: Table> {
  @Column("cid") let columnID: Int
  let name: String
}

@Suite struct GenericTableAndOrderFormsTests {
  @Test func aGenericTableWritesAndReads() throws {
    let database = try conformanceDatabase()
    try database.write { db in
      try db.execute(
        sql: #"CREATE TABLE "pragmaColumns" ("cid" INTEGER NOT NULL, "name" TEXT NOT NULL)"#)
      try assertQuery(
        PragmaColumn<Reminder>.insert {
          PragmaColumn<Reminder>(columnID: 0, name: "id")
          PragmaColumn<Reminder>(columnID: 1, name: "title")
        }, in: db,
        sql: #"INSERT INTO "pragmaColumns" ("cid", "name") VALUES (?, ?), (?, ?)"#, rows: "")
      try assertQuery(
        PragmaColumn<Tag>.where { $0.columnID.gt(0) }.select(\.name), in: db,
        sql:
          #"SELECT "pragmaColumns"."name" FROM "pragmaColumns" WHERE ("pragmaColumns"."cid" > ?)"#,
        rows: "title")
      let rows = try PragmaColumn<Reminder>.all.fetchAll(db)
      #expect(rows.map(\.name) == ["id", "title"])
    }
  }

  @Test func orderByAClosureOfATuple() throws {
    let database = try conformanceDatabase()
    try database.read { db in
      let ids = try Reminder.order(by: { ($0.remindersListID.desc(), $0.title) }).select(\.id)
        .fetchAll(db)
      #expect(ids == [6, 5, 3, 1, 2, 4])
      let same = try Reminder.where { _ in true }.order(by: {
        ($0.remindersListID.desc(), $0.title)
      })
      .select(\.id).fetchAll(db)
      #expect(same == ids)
    }
  }
}
