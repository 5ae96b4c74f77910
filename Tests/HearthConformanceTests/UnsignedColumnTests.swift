import Foundation
import HearthQuery
import HearthSQLite
import Testing

@Table
struct Download: Equatable {
  let id: Int
  var bytes: UInt64 = 0
}

/// A statement run elsewhere (as a feature's writes run in the hub), recording what reaches it.
private final class RecordingExecutor: RemoteStatementExecutor {
  var statements: [String] = []
  func execute(sql: String, arguments: StatementArguments, needsRows: Bool) throws
    -> StatementResult
  {
    statements.append(sql)
    return StatementResult()
  }
}

/// `UInt64` columns: SQLite's integers are signed, so a value past `Int64.max` cannot be
/// bound, and the statement throws rather than store another number.
@Suite struct UnsignedColumnTests {
  @Test func anUnsignedValueThatFitsIsStoredAndOneThatDoesNotIsRefused() throws {
    let database = try DatabaseQueue()
    try database.write { db throws in
      try db.execute(sql: #"CREATE TABLE "downloads" ("id" INTEGER PRIMARY KEY, "bytes" INTEGER)"#)
      try Download.insert { Download(id: 1, bytes: UInt64(Int64.max)) }.execute(db)
      #expect(try Download.find(1).fetchOne(db)?.bytes == UInt64(Int64.max))
      let tooLarge = Download.insert { Download(id: 2, bytes: .max) }
      #expect(tooLarge.query.bindings.last?.bindingError != nil)
      let error = try #require(throws: QueryBindingError.self) { try tooLarge.execute(db) }
      let overflow = try #require(error.underlyingError as? Int64OverflowError)
      #expect(overflow.unsignedInteger == .max)
      #expect(throws: QueryBindingError.self) {
        try Download.where { $0.bytes.eq(UInt64.max) }.fetchAll(db)
      }
      #expect(try Download.fetchCount(db) == 1)
      // A negative integer is no UInt64: an error, not a wrap.
      try db.execute(sql: #"INSERT INTO "downloads" VALUES (3, -1)"#)
      #expect(throws: QueryDecodingError.self) { try Download.find(3).fetchOne(db) }
    }
  }

  @Test func aValueThatCannotBeBoundNeverLeavesForTheHub() throws {
    let executor = RecordingExecutor()
    let db = Database(executor: executor)
    #expect(throws: QueryBindingError.self) {
      try Download.insert { Download(id: 2, bytes: .max) }.execute(db)
    }
    try Download.insert { Download(id: 2, bytes: 7) }.execute(db)
    #expect(executor.statements.count == 1)
  }

  @Test func aFunctionWhoseResultCannotBeBoundFailsItsStatement() throws {
    let database = try DatabaseQueue()
    try database.write { db throws in
      db.add(
        function: DatabaseFunction("tooLarge", argumentCount: 0) { _ in
          DatabaseValue.invalid(Int64OverflowError(unsignedInteger: .max))
        })
      #expect(throws: DatabaseError.self) {
        try Int.fetchOne(db, sql: "SELECT tooLarge()")
      }
    }
  }
}
