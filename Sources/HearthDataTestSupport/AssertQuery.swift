import Foundation
import HearthData
import Testing

/// Checks the SQL `statement` renders, runs it in `db`, and checks the rows SQLite gives back,
/// drawn as text: a line a row, its values separated by ` | ` (`NULL`, numbers, text as it
/// is, blobs as `x'…'`). A mismatch shows both tables, so a diff reads at a glance.
///
/// ```swift
/// try assertQuery(
///   Reminder.where { $0.isFlagged }.select(\.title), in: db,
///   sql: #"SELECT "reminders"."title" FROM "reminders" WHERE "reminders"."isFlagged""#,
///   rows: """
///     Buy milk
///     Call Ana
///     """)
/// ```
public func assertQuery(
  _ statement: some Statement, in db: Database, sql: String? = nil, rows: String,
  sourceLocation: SourceLocation = #_sourceLocation
) throws {
  let query = statement.query
  if let sql { #expect(query.sql == sql, sourceLocation: sourceLocation) }
  // A statement that renders to nothing (`none`) runs as no rows.
  let fetched =
    query.isEmpty
    ? [] : try Row.fetchAll(db, sql: query.sql, arguments: StatementArguments(query.bindings))
  let drawn = fetched.map { row in
    row.databaseValues.map { value -> String in
      switch value.storage {
      case .null, .invalid: "NULL"  // a row's values are never invalid
      case .integer(let integer): String(integer)
      case .double(let double): String(double)
      case .text(let text): text
      case .blob(let data): "x'" + data.map { String(format: "%02x", $0) }.joined() + "'"
      }
    }.joined(separator: " | ")
  }.joined(separator: "\n")
  #expect(drawn == rows, "rows:\n\(drawn)\nexpected:\n\(rows)", sourceLocation: sourceLocation)
}
