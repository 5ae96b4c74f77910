import Foundation
import HearthDataTestSupport
import HearthSQLite
import Testing

@Suite struct DatabaseTests {
  let dbQueue: DatabaseQueue

  init() throws {
    dbQueue = try DatabaseQueue()
    try dbQueue.write { db in
      try db.execute(
        sql: """
          CREATE TABLE players (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            score INTEGER NOT NULL DEFAULT 0 CHECK (score >= 0)
          );
          INSERT INTO players (name, score) VALUES (?, ?), (?, ?);
          """, arguments: ["Arthur", 100, "Barbara", 1000])
    }
  }

  @Test func executesWithPositionalAndNamedArguments() throws {
    try dbQueue.write { db in
      try db.execute(
        sql: "INSERT INTO players (name, score) VALUES (:name, :score)",
        arguments: ["name": "Craig", "score": 7])
      #expect(db.lastInsertedRowID == 3)
      try db.execute(
        sql: "UPDATE players SET score = score + ? WHERE score < ?", arguments: [1, 500])
      #expect(db.changesCount == 2)
    }
    let scores = try dbQueue.read {
      try Int.fetchAll($0, sql: "SELECT score FROM players ORDER BY id")
    }
    #expect(scores == [101, 1000, 8])
  }

  @Test func rowsByIndexAndByName() throws {
    let rows = try dbQueue.read {
      try Row.fetchAll($0, sql: "SELECT id, name AS Name, score FROM players ORDER BY id")
    }
    #expect(rows.count == 2)
    #expect(rows[0].columnNames == ["id", "Name", "score"])
    #expect(try rows[0][0] as Int64 == 1)
    #expect(try rows[0]["name"] as String == "Arthur")  // names compare case-insensitively
    #expect(try rows[1]["score"] as Int == 1000)
    #expect(
      rows[1]
        == Row(
          columnNames: ["id", "Name", "score"],
          values: [2.databaseValue, "Barbara".databaseValue, 1000.databaseValue]))
  }

  @Test func cursorIteratesWithoutCopying() throws {
    let names = try dbQueue.read { db in
      var names: [String] = []
      let cursor = try Row.fetchCursor(db, sql: "SELECT name FROM players ORDER BY name DESC")
      while let row = try cursor.next() { names.append(try row[0]) }
      #expect(try cursor.next() == nil)
      return names
    }
    #expect(names == ["Barbara", "Arthur"])
  }

  @Test func aCursorThatFailsMidwayThrowsThenEnds() throws {
    // The second row overflows `abs`: SQLite reports it from that step, not from the first.
    let sql = """
      SELECT name, CASE WHEN id = 2 THEN abs(-9223372036854775807 - 1) ELSE 0 END
      FROM players ORDER BY id
      """
    try dbQueue.read { db in
      let cursor = try Row.fetchCursor(db, sql: sql)
      let first: String? = try cursor.next().map { try $0[0] }
      #expect(first == "Arthur")
      let error = try #require(throws: DatabaseError.self) { try cursor.next() }
      #expect(error.message == "integer overflow")
      #expect(error.sql == sql)
      #expect(try cursor.next() == nil)
      // The statement was reset: it runs again from its first row.
      let again = try Row.fetchCursor(db, sql: sql)
      let name: String? = try again.next().map { try $0[0] }
      #expect(name == "Arthur")
    }
  }

  @Test func statementsAreCachedAndReusable() throws {
    try dbQueue.write { db in
      let first = try db.cachedStatement(sql: "SELECT name FROM players WHERE id = ?")
      let second = try db.cachedStatement(sql: "SELECT name FROM players WHERE id = ?")
      #expect(first === second)
      let insert = try db.makeStatement(sql: "INSERT INTO players (name) VALUES (?)")
      for name in ["D", "E", "F"] { try insert.execute(arguments: [name]) }
      #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM players") == 5)
      // A cached statement still running is not handed out twice.
      let cursor = try Row.fetchCursor(db, sql: "SELECT id FROM players ORDER BY id")
      var pairs: [String] = []
      while let row = try cursor.next() {
        let id: Int64 = try row[0]
        pairs.append("\(id)-\(try Int64.fetchOne(db, sql: "SELECT id FROM players ORDER BY id")!)")
      }
      #expect(pairs == ["1-1", "2-1", "3-1", "4-1", "5-1"])
    }
  }

  @Test func constraintViolationsAreTypedAndChangeNothing() throws {
    let error = try #require(throws: DatabaseError.self) {
      try dbQueue.write { db in
        try db.execute(sql: "INSERT INTO players (name) VALUES ('Zed')")
        try db.execute(sql: "INSERT INTO players (name) VALUES (?)", arguments: ["Arthur"])
      }
    }
    #expect(error.resultCode == .SQLITE_CONSTRAINT)
    #expect(error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE)
    #expect(error.message == "UNIQUE constraint failed: players.name")
    #expect(error.sql == "INSERT INTO players (name) VALUES (?)")
    #expect(error.arguments == ["Arthur"])
    // The first insert of that transaction is gone too.
    #expect(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM players") } == 2)

    let check = try #require(throws: DatabaseError.self) {
      try dbQueue.write { try $0.execute(sql: "UPDATE players SET score = -1") }
    }
    #expect(check.extendedResultCode == .SQLITE_CONSTRAINT_CHECK)
    #expect(
      try dbQueue.read { try Int.fetchAll($0, sql: "SELECT score FROM players ORDER BY id") } == [
        100, 1000,
      ])
  }

  @Test func syntaxErrorsAreTypedWithTheirSQL() throws {
    let error = try #require(throws: DatabaseError.self) {
      try dbQueue.read { try Row.fetchAll($0, sql: "SELEKT * FROM players") }
    }
    #expect(error.resultCode == .SQLITE_ERROR)
    #expect(error.message == #"near "SELEKT": syntax error"#)
    #expect(error.sql == "SELEKT * FROM players")
    #expect(error.description.contains("SELEKT * FROM players"))

    let missing = try #require(throws: DatabaseError.self) {
      try dbQueue.read { try Row.fetchAll($0, sql: "SELECT nope FROM players") }
    }
    #expect(missing.message == "no such column: nope")
  }

  @Test func wrongArgumentCountsAreRefused() throws {
    try dbQueue.write { db in
      #expect(throws: DatabaseError.self) {
        try db.execute(sql: "INSERT INTO players (name, score) VALUES (?, ?)", arguments: ["A"])
      }
      #expect(throws: DatabaseError.self) {
        try db.execute(sql: "INSERT INTO players (name) VALUES (?)", arguments: ["A", "B"])
      }
      #expect(throws: DatabaseError.self) {
        try db.execute(sql: "INSERT INTO players (name) VALUES (:name)", arguments: ["other": "A"])
      }
      let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM players")
      #expect(count == 2)
    }
  }

  @Test func multipleStatementsShareTheirArguments() throws {
    try dbQueue.write { db in
      try db.execute(
        sql: """
          INSERT INTO players (name) VALUES (?); -- first
          /* second */ UPDATE players SET score = ? WHERE name = ?;
          """, arguments: ["Dora", 5, "Dora"])
      #expect(try Int.fetchOne(db, sql: "SELECT score FROM players WHERE name = 'Dora'") == 5)
    }
    #expect(throws: DatabaseError.self) {
      try dbQueue.write { try $0.makeStatement(sql: "SELECT 1; SELECT 2") }
    }
  }

  @Test func returningRowsCome() throws {
    let rows = try dbQueue.write { db in
      try Row.fetchAll(
        db, sql: "INSERT INTO players (name, score) VALUES ('Eve', 3) RETURNING id, score")
    }
    #expect(rows.count == 1)
    #expect(try rows[0]["id"] as Int == 3)
    #expect(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM players") } == 3)
  }

  @Test func readsCannotWrite() throws {
    let error = try #require(throws: DatabaseError.self) {
      try dbQueue.read { try $0.execute(sql: "DELETE FROM players") }
    }
    #expect(error.resultCode == .SQLITE_READONLY)
    #expect(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM players") } == 2)
    // …and the connection is writable again afterwards.
    try dbQueue.write { try $0.execute(sql: "DELETE FROM players WHERE id = 1") }
  }

  @Test func asyncFormsReturnSendableValues() async throws {
    let id = try await dbQueue.write { db in
      try db.execute(sql: "INSERT INTO players (name) VALUES ('Async')")
      return db.lastInsertedRowID
    }
    let name = try await dbQueue.read { db in
      try String.fetchOne(db, sql: "SELECT name FROM players WHERE id = ?", arguments: [id])
    }
    #expect(name == "Async")
  }

  @Test func anyDatabaseWriterHoldsEitherKind() throws {
    let directory = try TemporaryDirectory()
    let writers: [any DatabaseWriter] = [
      try DatabaseQueue(), try DatabasePool(path: directory.path("pool.sqlite")),
    ]
    for writer in writers {
      try writer.write { try $0.execute(sql: "CREATE TABLE t (x); INSERT INTO t VALUES (1)") }
      #expect(try writer.read { try Int.fetchOne($0, sql: "SELECT x FROM t") } == 1)
    }
  }
}

@Suite struct ReturningTests {
  /// `fetchOne` of an INSERT … RETURNING does the statement's whole work, even where SQLite
  /// would undo a half-run one (a trigger that writes a full-text table), and reports a later
  /// row's failure.
  @Test func fetchOneOfAWriteRunsItToTheEnd() throws {
    let database = try DatabaseQueue()
    try database.write { db in
      try db.execute(
        sql: """
          CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE);
          CREATE VIRTUAL TABLE noteTexts USING fts5(title);
          CREATE TRIGGER notes_text AFTER INSERT ON notes BEGIN
            INSERT INTO noteTexts (rowid, title) VALUES (new.id, new.title);
          END;
          """)
    }
    let first = try database.write { db in
      try Int.fetchOne(db, sql: "INSERT INTO notes (title) VALUES ('a'), ('b') RETURNING id")
    }
    #expect(first == 1)
    #expect(
      try database.read { try String.fetchAll($0, sql: "SELECT title FROM notes") } == ["a", "b"])
    #expect(
      try database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM noteTexts") } == 2)
    // The second row breaks a rule: the whole statement fails, and nothing of it stays.
    #expect(throws: DatabaseError.self) {
      try database.write { db in
        try Row.fetchOne(db, sql: "INSERT INTO notes (title) VALUES ('c'), ('a') RETURNING id")
      }
    }
    #expect(try database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM notes") } == 2)
  }
}
