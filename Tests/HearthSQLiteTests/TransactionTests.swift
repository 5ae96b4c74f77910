import Foundation
import HearthSQLite
import Testing

struct Boom: Error {}

@Suite struct TransactionTests {
  let dbQueue: DatabaseQueue

  init() throws {
    dbQueue = try DatabaseQueue()
    try dbQueue.write { try $0.execute(sql: "CREATE TABLE items (name TEXT PRIMARY KEY)") }
  }

  func names() throws -> [String] {
    try dbQueue.read { try String.fetchAll($0, sql: "SELECT name FROM items ORDER BY name") }
  }

  @Test func writeIsOneImmediateTransaction() throws {
    var traced: [String] = []
    dbQueue.inDatabase { db in db.trace { traced.append($0.description) } }
    try dbQueue.write { db in
      #expect(db.isInsideTransaction)
      try db.execute(sql: "INSERT INTO items VALUES ('a')")
    }
    dbQueue.inDatabase { db in db.trace(nil) }
    #expect(traced.first == "BEGIN IMMEDIATE TRANSACTION")
    #expect(traced.last == "COMMIT TRANSACTION")
  }

  @Test func aThrownErrorRollsBackTheWholeWrite() throws {
    #expect(throws: Boom.self) {
      try dbQueue.write { db in
        try db.execute(sql: "INSERT INTO items VALUES ('a')")
        throw Boom()
      }
    }
    #expect(try names() == [])
  }

  @Test func savepointsNestAndRollBackOnlyTheirOwnWork() throws {
    try dbQueue.write { db in
      try db.execute(sql: "INSERT INTO items VALUES ('outer')")
      try db.inSavepoint {
        try db.execute(sql: "INSERT INTO items VALUES ('kept')")
        #expect(throws: Boom.self) {
          try db.savepoint {
            try db.execute(sql: "INSERT INTO items VALUES ('undone')")
            try db.inSavepoint {
              try db.execute(sql: "INSERT INTO items VALUES ('undone too')")
              return .commit
            }
            throw Boom()
          }
        }
        try db.inSavepoint {
          try db.execute(sql: "INSERT INTO items VALUES ('rolled back')")
          return .rollback
        }
        return .commit
      }
      #expect(
        try String.fetchAll(db, sql: "SELECT name FROM items ORDER BY name") == ["kept", "outer"])
    }
    #expect(try names() == ["kept", "outer"])
  }

  @Test func aFailedStatementInsideASavepointLeavesTheRest() throws {
    try dbQueue.write { db in
      try db.execute(sql: "INSERT INTO items VALUES ('a')")
      #expect(throws: DatabaseError.self) {
        try db.savepoint { try db.execute(sql: "INSERT INTO items VALUES ('b'), ('a')") }
      }
      try db.execute(sql: "INSERT INTO items VALUES ('c')")
    }
    #expect(try names() == ["a", "c"])
  }

  @Test func explicitTransactionsCommitOrRollBack() throws {
    try dbQueue.writeWithoutTransaction { db in
      try db.inTransaction {
        try db.execute(sql: "INSERT INTO items VALUES ('committed')")
        return .commit
      }
      try db.inTransaction {
        try db.execute(sql: "INSERT INTO items VALUES ('rolled back')")
        return .rollback
      }
      #expect(!db.isInsideTransaction)
    }
    #expect(try names() == ["committed"])
  }

  @Test func aTransactionLeftOpenIsRolledBackAndReported() throws {
    let error = try #require(throws: DatabaseError.self) {
      try dbQueue.writeWithoutTransaction { db in
        try db.execute(sql: "BEGIN; INSERT INTO items VALUES ('dangling')")
      }
    }
    #expect(error.resultCode == .SQLITE_MISUSE)
    #expect(try names() == [])
  }

  @Test func deferredForeignKeyFailureAtCommitLeavesNothing() throws {
    try dbQueue.write { db in
      try db.execute(
        sql: """
          CREATE TABLE parents (id INTEGER PRIMARY KEY);
          CREATE TABLE children (
            id INTEGER PRIMARY KEY,
            parentID INTEGER REFERENCES parents(id) DEFERRABLE INITIALLY DEFERRED
          );
          """)
    }
    let error = try #require(throws: DatabaseError.self) {
      try dbQueue.write { try $0.execute(sql: "INSERT INTO children (parentID) VALUES (42)") }
    }
    #expect(error.resultCode == .SQLITE_CONSTRAINT)
    dbQueue.inDatabase { db in #expect(!db.isInsideTransaction) }
    #expect(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM children") } == 0)
  }
}
