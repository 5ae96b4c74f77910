import Foundation
import HearthData
import HearthDataTestSupport
import Testing

// `assertQuery(_:database:results:)` draws rows as SQLiteData's test support does; these
// tables are the ones its documentation and tests show for the same kinds of values.

@Selection
private struct TitleAndCount: Equatable {
  let title: String
  let count: Int
}

@Suite struct ResultsTableTests {
  let database = DatabaseQueue.testDatabase

  init() throws {
    try database.write { db in
      try Fact.insert {
        Fact.Draft(body: "one")
        Fact.Draft(body: "two \"quoted\"")
      }.execute(db)
    }
  }

  @Test func aValueARowAndColumnsDrawAsTheReferenceDraws() {
    assertQuery(Values(#sql("'Blob' || '!'", as: String.self)), database: database) {
      """
      ┌─────────┐
      │ "Blob!" │
      └─────────┘
      """
    }
    assertQuery(Fact.select { ($0.id, $0.body) }, database: database) {
      #"""
      ┌───┬──────────────────┐
      │ 1 │ "one"            │
      │ 2 │ "two \"quoted\"" │
      └───┴──────────────────┘
      """#
    }
    assertQuery(Fact.order(by: \.id), database: database) {
      #"""
      ┌──────────────────────────┐
      │ Fact(                    │
      │   id: 1,                 │
      │   body: "one"            │
      │ )                        │
      ├──────────────────────────┤
      │ Fact(                    │
      │   id: 2,                 │
      │   body: "two \"quoted\"" │
      │ )                        │
      └──────────────────────────┘
      """#
    }
  }

  @Test func aSelectionRowIsDumpedFieldByField() {
    assertQuery(
      Fact.where { $0.id.eq(1) }.select { TitleAndCount.Columns(title: $0.body, count: $0.id) },
      database: database
    ) {
      """
      ┌─────────────────┐
      │ TitleAndCount(  │
      │   title: "one", │
      │   count: 1      │
      │ )               │
      └─────────────────┘
      """
    }
  }

  @Test func noRowsAnOptionalAndASQLFirstForm() {
    assertQuery(Fact.where { $0.id.gt(9) }.select(\.id), database: database) {
      "(No results)"
    }
    assertQuery(
      includeSQL: true, Values(#sql("NULL", as: Int?.self)), database: database
    ) {
      "SELECT NULL"
    } results: {
      """
      ┌─────┐
      │ nil │
      └─────┘
      """
    }
  }
}
