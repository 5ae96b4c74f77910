import Foundation
import HearthSQLite
import Testing

/// A cached statement was authorized when it was prepared: it is reused only under the
/// policy (scope) it was prepared under, however often it just ran.
@Suite struct StatementCacheTests {
  @Test func aStatementRunAgainAndAgainIsNotReusedUnderAnotherScope() throws {
    let queue = try DatabaseQueue()
    try queue.write { db in
      try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
      let insert = "INSERT INTO notes (text) VALUES (?)"
      let allowing: (DatabaseAction) -> Bool = { _ in true }
      let refusingInserts: (DatabaseAction) -> Bool = { $0.kind != .insert }
      db.setAuthorizer(allowing, scope: "writer")
      for index in 0..<3 { try db.execute(sql: insert, arguments: ["w\(index)"]) }
      db.setAuthorizer(refusingInserts, scope: "reader")
      #expect(throws: DatabaseError.self) { try db.execute(sql: insert, arguments: ["r"]) }
      db.setAuthorizer(allowing, scope: "writer")
      try db.execute(sql: insert, arguments: ["w3"])
      // Without a scope, setting a policy forgets every cached statement.
      db.setAuthorizer(refusingInserts)
      #expect(throws: DatabaseError.self) { try db.execute(sql: insert, arguments: ["u"]) }
      db.setAuthorizer(nil)
      #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM notes") == 4)
    }
  }
}
