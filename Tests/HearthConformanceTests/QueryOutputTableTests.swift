import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// A table whose rows stand for another type (`var queryOutput: Int` with
// `init(queryOutput:)`), as the reference's common table expressions of counts declare
// them: still a table to select from, join and name in a `With`, its output the value.

@Table
struct Tally {
  let value: Int
  var queryOutput: Int { value }
  init(queryOutput: Int) { value = queryOutput }
}

@Table
struct ListTally {
  let count: Int
  var queryOutput: Int { count }
  init(queryOutput: Int) { count = queryOutput }
}

@Suite struct QueryOutputTableTests {
  @Test func aRecursiveCountOfATableWhoseOutputIsAnInt() throws {
    let query = With {
      Tally(queryOutput: 1).union(Tally.select { Tally.Columns(value: $0.value + 1) })
    } query: {
      Tally.limit(4)
    }
    let tallies = try conformanceDatabase().read { db in try query.fetchAll(db) }
    #expect(tallies.map(\.queryOutput) == [1, 2, 3, 4])
    let values = try conformanceDatabase().read { db in
      try With {
        Tally(queryOutput: 1).union(Tally.select { Tally.Columns(value: $0.value * 2) })
      } query: {
        Tally.where { $0.value.lt(20) }.select(\.value)
      }.fetchAll(db)
    }
    #expect(values == [1, 2, 4, 8, 16])
  }

  @Test func twoSuchTablesJoin() throws {
    let query = With {
      Reminder.select { Tally.Columns(value: $0.count()) }
      RemindersList.select { ListTally.Columns(count: $0.count()) }
    } query: {
      Tally.join(ListTally.all) { _, _ in true }
    }
    let rows = try conformanceDatabase().read { db in try query.fetchAll(db) }
    #expect(rows.count == 1)
    let row = try #require(rows.first)
    #expect(row.0.queryOutput == 6)
    #expect(row.1.queryOutput == 2)
  }
}
