import Foundation
import HearthDataTestSupport
import HearthSQLite
import Testing

@Suite struct DatabaseMigratorTests {
  var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("Create lists") { db in
      try db.execute(sql: "CREATE TABLE lists (id INTEGER PRIMARY KEY, title TEXT NOT NULL)")
    }
    migrator.registerMigration("Create reminders") { db in
      try db.execute(
        sql: """
          CREATE TABLE reminders (
            id INTEGER PRIMARY KEY,
            listID INTEGER NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
            title TEXT NOT NULL
          )
          """)
    }
    migrator.registerMigration("Seed") { db in
      try db.execute(sql: "INSERT INTO lists (title) VALUES ('Inbox')")
    }
    return migrator
  }

  @Test func migratingTwiceAppliesOnce() throws {
    let dbQueue = try DatabaseQueue()
    try migrator.migrate(dbQueue)
    try migrator.migrate(dbQueue)
    try dbQueue.read { (db: Database) throws in
      #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM lists") == 1)
      #expect(try migrator.appliedMigrations(db) == ["Create lists", "Create reminders", "Seed"])
      #expect(try migrator.completedMigrations(db) == ["Create lists", "Create reminders", "Seed"])
      #expect(try migrator.hasCompletedMigrations(db))
      #expect(try !migrator.hasBeenSuperseded(db))
    }
  }

  @Test func migratesUpToATarget() throws {
    let directory = try TemporaryDirectory()
    let dbPool = try DatabasePool(path: directory.path("db.sqlite"))
    try migrator.migrate(dbPool, upTo: "Create reminders")
    try dbPool.read { (db: Database) throws in
      #expect(try migrator.appliedMigrations(db) == ["Create lists", "Create reminders"])
      #expect(try !migrator.hasCompletedMigrations(db))
      #expect(try db.tableExists("reminders"))
      #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM lists") == 0)
    }
    #expect(throws: DatabaseError.self) { try migrator.migrate(dbPool, upTo: "Nope") }
  }

  @Test func aFailingMigrationLeavesNothingAndStopsTheRest() throws {
    let dbQueue = try DatabaseQueue()
    var migrator = self.migrator
    migrator.registerMigration("Broken") { db in
      try db.execute(sql: "CREATE TABLE half (id INTEGER PRIMARY KEY)")
      try db.execute(sql: "INSERT INTO nowhere VALUES (1)")
    }
    migrator.registerMigration("After") { db in
      try db.execute(sql: "CREATE TABLE after (id INTEGER PRIMARY KEY)")
    }
    let error = try #require(throws: DatabaseError.self) { try migrator.migrate(dbQueue) }
    #expect(error.message?.hasPrefix("migration \"Broken\" failed") == true)
    try dbQueue.read { (db: Database) throws in
      #expect(try migrator.appliedMigrations(db) == ["Create lists", "Create reminders", "Seed"])
      #expect(try !db.tableExists("half"))
      #expect(try !db.tableExists("after"))
    }
  }

  @Test func foreignKeysAreCheckedAfterEachMigration() throws {
    let dbQueue = try DatabaseQueue()
    var migrator = self.migrator
    migrator.registerMigration("Orphan") { db in
      try db.execute(sql: "INSERT INTO reminders (listID, title) VALUES (999, 'lost')")
    }
    let error = try #require(throws: DatabaseError.self) { try migrator.migrate(dbQueue) }
    #expect(error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY)
    #expect(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM reminders") } == 0)
    // Foreign keys are back on afterwards.
    #expect(try dbQueue.read { try Bool.fetchOne($0, sql: "PRAGMA foreign_keys") } == true)
  }

  @Test func aNewerDatabaseIsRefused() throws {
    let dbQueue = try DatabaseQueue()
    try migrator.migrate(dbQueue)
    var older = DatabaseMigrator()
    older.registerMigration("Create lists") { _ in }
    let error = try #require(throws: DatabaseError.self) { try older.migrate(dbQueue) }
    #expect(error.message?.contains("newer version") == true)
    #expect(try dbQueue.read { try older.hasBeenSuperseded($0) })
  }

  @Test func erasesOnSchemaChangeWhenAsked() throws {
    let directory = try TemporaryDirectory()
    let dbPool = try DatabasePool(path: directory.path("db.sqlite"))
    try migrator.migrate(dbPool)
    try dbPool.write { try $0.execute(sql: "INSERT INTO lists (title) VALUES ('Mine')") }

    // Same migrations: nothing is erased.
    var same = migrator
    same.eraseDatabaseOnSchemaChange = true
    try same.migrate(dbPool)
    #expect(try dbPool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM lists") } == 2)

    // An edited migration: the database is rebuilt from scratch.
    var edited = DatabaseMigrator()
    edited.eraseDatabaseOnSchemaChange = true
    edited.registerMigration("Create lists") { db in
      try db.execute(
        sql: "CREATE TABLE lists (id INTEGER PRIMARY KEY, title TEXT NOT NULL, color INTEGER)")
    }
    try edited.migrate(dbPool)
    try dbPool.read { (db: Database) throws in
      #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM lists") == 0)
      #expect(try !db.tableExists("reminders"))
      #expect(try edited.appliedMigrations(db) == ["Create lists"])
      #expect(try Row.fetchAll(db, sql: "PRAGMA table_info(lists)").count == 3)
    }
  }
}
