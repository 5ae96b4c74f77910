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
  @Test func aGenericTableCompilesAndReads() throws {
    let database = try conformanceDatabase()
    try database.read { db in
      let columns = PragmaColumn<Reminder>.columns
      #expect(columns.name.name == "name")
      #expect(PragmaColumn<Tag>.tableName == PragmaColumn<Reminder>.tableName)
      let names = try SQLQueryExpression<String>(
        "SELECT name FROM pragma_table_info('tags') ORDER BY cid"
      ).fetchAll(db)
      #expect(names == ["id", "title"])
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
