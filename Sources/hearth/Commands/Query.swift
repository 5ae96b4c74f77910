import Foundation
import HearthCommandLine
import HearthSQLite

let queryCommand = Command(
  "query", arguments: "SQL", summary: "runs a read-only query; rows as tab-separated text or JSON"
) { input in
  let sql = try input.positional(0, name: "SQL (hearth query 'SELECT …')")
  let rows = try openDatabase(hubPaths(input)).read { db in try Row.fetchAll(db, sql: sql) }
  return .lines(
    rows.map { row in
      row.databaseValues.map { value -> String in
        if case .text(let text) = value.storage { return text }
        return value.description
      }.joined(separator: "\t")
    },
    json: rows.map { row in
      var object: [String: Any] = [:]
      for (name, value) in zip(row.columnNames, row.databaseValues) {
        switch value.storage {
        case .null, .invalid: object[name] = NSNull()  // a row's values are never invalid
        case .integer(let integer): object[name] = integer
        case .double(let double): object[name] = double
        case .text(let text): object[name] = text
        case .blob(let data): object[name] = data.base64EncodedString()
        }
      }
      return object
    })
}
