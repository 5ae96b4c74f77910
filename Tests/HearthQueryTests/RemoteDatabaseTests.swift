import Foundation
import HearthQuery
import Testing

/// Plays the hub in-process: runs each statement it receives on a real connection, inside a
/// transaction it opened, and returns rows as values, as the wire will.
final class LoopbackExecutor: RemoteStatementExecutor {
  let connection: Database
  var received: [String] = []

  init(connection: Database) { self.connection = connection }

  func execute(sql: String, arguments: StatementArguments, needsRows: Bool) throws
    -> StatementResult
  {
    received.append(sql)
    var result = StatementResult()
    if needsRows {
      let rows = try Row.fetchAll(connection, sql: sql, arguments: arguments)
      result.columnNames = rows.first?.columnNames ?? []
      result.rows = rows.map(\.databaseValues)
    } else {
      try connection.execute(sql: sql, arguments: arguments)
    }
    result.changesCount = connection.changesCount
    result.lastInsertedRowID = connection.lastInsertedRowID
    return result
  }
}

@Suite struct RemoteDatabaseTests {
  let local: DatabaseQueue

  init() throws {
    local = try makeRemindersDatabase()
  }

  /// A write as a feature process will make it: the closure gets a remote `Database`, the
  /// "hub" holds the transaction and commits it, or rolls it back when the closure throws.
  func remoteWrite<T>(_ updates: (Database) throws -> T) throws -> (T, [String]) {
    try local.write { connection in
      let executor = LoopbackExecutor(connection: connection)
      let remote = Database(executor: executor)
      return (try updates(remote), executor.received)
    }
  }

  @Test func theQueryBuilderRunsUnchangedThroughTheSeam() throws {
    let (inserted, sent) = try remoteWrite { db in
      try Reminder.insert {
        Reminder.Draft(remindersListID: 2, title: "Remote")
      }.execute(db)
      let id = db.lastInsertedRowID
      try Reminder.find(Int(id)).update { $0.isFlagged = true }.execute(db)
      let flagged = try Reminder.where(\.isFlagged).order(by: \.id).fetchAll(db)
      let returned = try Reminder.where { $0.id == Int(id) }.update { $0.notes += "!" }
        .returning(\.notes).fetchOne(db)
      try Reminder.find(3).delete().execute(db)
      return (id, flagged.map(\.title), returned, try Reminder.fetchCount(db))
    }
    #expect(inserted.0 == 4)
    #expect(inserted.1 == ["Haircut", "Remote"])
    #expect(inserted.2 == "!")
    #expect(inserted.3 == 3)
    #expect(sent.first?.hasPrefix(#"INSERT INTO "reminders""#) == true)
    // Committed by the "hub", visible to any reader.
    let titles = try local.read { try Reminder.order(by: \.id).select(\.title).fetchAll($0) }
    #expect(titles == ["Groceries", "Haircut", "Remote"])
  }

  @Test func savepointsAndErrorsKeepTheirMeaning() throws {
    _ = try remoteWrite { db in
      try db.inSavepoint {
        try Tag.insert { Tag(title: "rolled back") }.execute(db)
        return .rollback
      }
      let error = try #require(throws: DatabaseError.self) {
        try db.savepoint { try Tag.insert { Tag(title: "car") }.execute(db) }
      }
      #expect(error.resultCode == .SQLITE_CONSTRAINT)
      try Tag.insert { Tag(title: "kept") }.execute(db)
    }
    let tags = try local.read { try Tag.order(by: \.title).fetchAll($0).map(\.title) }
    #expect(tags == ["car", "kept", "kids"])
  }

  @Test func rawSQLSeedsAndChecksWorkToo() throws {
    let (result, _) = try remoteWrite { db in
      try db.execute(sql: "UPDATE reminders SET notes = ? WHERE id = ?", arguments: ["n", 1])
      try db.seed { Tag(title: "seeded") }
      let notes = try String.fetchOne(db, sql: "SELECT notes FROM reminders WHERE id = 1")
      return (notes, try db.integrityCheck(), db.isInsideTransaction)
    }
    #expect(result.0 == "n")
    #expect(result.1 == ["ok"])
    #expect(result.2)
  }

  @Test func preparedStatementsAreRefusedWithAClearError() throws {
    let (message, _) = try remoteWrite { db in
      let error = try #require(throws: DatabaseError.self) { try db.makeStatement(sql: "SELECT 1") }
      return error.message ?? ""
    }
    #expect(message.contains("not available in a transaction carried to the hub"))
  }
}
