import Foundation
import HearthHub
import HearthPlugin
import HearthSQLite
import HearthWire
import Testing

/// Every operation a plugin may not do, tried through a real hub: each is refused with a
/// typed error, and nothing of its transaction or registration stays (the schema, the other
/// plugin's rows, the hub's own tables and the statement before it are as they were).
@Suite(.serialized) struct AuthorizationMatrixTests {
  /// Forbidden inside a write transaction (each after an allowed insert of the plugin's own).
  static let inTransactions: [(what: String, sql: String)] = [
    ("insert into another plugin's table", "INSERT INTO notes (text) VALUES ('mine now')"),
    ("update another plugin's table", "UPDATE notes SET text = 'changed'"),
    ("delete from another plugin's table", "DELETE FROM notes"),
    ("write the hub's feed", "INSERT INTO hearth_commits VALUES (999, 0, 'probe', 'x', '{}')"),
    ("write the hub's exactly-once records", "DELETE FROM hearth_requests"),
    ("write the hub's plugin list", "UPDATE hearth_plugins SET version = 'forged'"),
    ("write the hub's ownership", "INSERT INTO hearth_tables VALUES ('stolen', 'probe')"),
    ("write the schema table", "UPDATE sqlite_master SET sql = ''"),
    ("create a table outside a migration", "CREATE TABLE probe_extra (x)"),
    ("create an index outside a migration", "CREATE INDEX probe_key ON probe_rows (key)"),
    ("drop its own table outside a migration", "DROP TABLE probe_rows"),
    ("alter its own table outside a migration", "ALTER TABLE probe_rows ADD COLUMN y"),
    ("create a view outside a migration", "CREATE VIEW probe_view AS SELECT 1"),
    (
      "create a trigger outside a migration",
      "CREATE TRIGGER probe_t AFTER INSERT ON probe_rows BEGIN SELECT 1; END"
    ),
    ("create a temporary table", "CREATE TEMP TABLE scratch (x)"),
    (
      "create a temporary trigger on another plugin's table",
      "CREATE TEMP TRIGGER spy AFTER INSERT ON notes BEGIN SELECT 1; END"
    ),
    ("attach a database", "ATTACH DATABASE ':memory:' AS other"),
    ("detach a database", "DETACH DATABASE other"),
    ("load an extension", "SELECT load_extension('/tmp/evil.so')"),
    ("switch the journal mode", "PRAGMA journal_mode = DELETE"),
    ("make the schema writable", "PRAGMA writable_schema = ON"),
    ("turn foreign keys off", "PRAGMA foreign_keys = OFF"),
    ("set the user version", "PRAGMA user_version = 7"),
    ("end the hub's transaction", "COMMIT"),
    ("roll back the hub's transaction", "ROLLBACK"),
    ("open a transaction", "BEGIN"),
    ("analyze outside a migration", "ANALYZE"),
    ("reindex outside a migration", "REINDEX"),
    ("vacuum", "VACUUM"),
    (
      "write another plugin's table through its own trigger",
      "INSERT INTO probe_spill (key) VALUES ('spill')"
    ),
  ]

  /// Forbidden in a migration (each the only migration of a new plugin, `intruder`, which
  /// declares the table `intruder_rows`).
  static let inMigrations: [(what: String, sql: String)] = [
    ("create a table it did not declare", "CREATE TABLE loot (x)"),
    ("drop another plugin's table", "CREATE TABLE intruder_rows (x); DROP TABLE notes"),
    ("alter another plugin's table", "ALTER TABLE notes ADD COLUMN stolen"),
    ("index another plugin's table", "CREATE INDEX spy ON notes (text)"),
    (
      "trigger on another plugin's table",
      "CREATE TRIGGER spy AFTER INSERT ON notes BEGIN SELECT 1; END"
    ),
    ("write another plugin's table", "INSERT INTO notes (text) VALUES ('hi')"),
    ("write the hub's tables", "DELETE FROM hearth_plugins"),
    ("create a temporary table", "CREATE TEMP TABLE scratch (x)"),
    ("attach a database", "ATTACH DATABASE ':memory:' AS other"),
    ("load an extension", "SELECT load_extension('/tmp/evil.so')"),
    ("switch the journal mode", "PRAGMA journal_mode = DELETE"),
    ("make the schema writable", "PRAGMA writable_schema = ON"),
    ("create a view it did not declare", "CREATE VIEW loot_view AS SELECT 1"),
    (
      "rename its table to a name it did not declare",
      "CREATE TABLE intruder_rows (x); ALTER TABLE intruder_rows RENAME TO loot"
    ),
    ("leave its rebuild table behind", "CREATE TABLE new_intruder_rows (x)"),
    ("rebuild another plugin's table", "CREATE TABLE new_notes (x)"),
  ]

  /// What must not change: the schema, every row of the other plugin and of the hub's
  /// tables, and the probe's rows.
  func snapshot(_ database: HubDatabase) throws -> [String] {
    try database.read { db in
      var lines = try Row.fetchAll(
        db, sql: "SELECT type, name, sql FROM sqlite_master ORDER BY type, name"
      ).map { "\($0)" }
      for table in [
        "notes", "probe_rows", "probe_spill", "hearth_commits", "hearth_requests", "hearth_plugins",
        "hearth_tables", "hearth_plugin_migrations",
      ] {
        lines += try Row.fetchAll(db, sql: "SELECT * FROM \(table)").map { "\(table): \($0)" }
      }
      return lines
    }
  }

  @Test func schemaInspectingPragmasMayBeReadInBothForms() throws {
    let running = try RunningHub()
    defer { running.stopAndRemove() }
    let notes = try HubDatabase.registered(notesPlugin, paths: running.paths)
    let (info, names, version, integrity) = try notes.write { db in
      (
        try Row.fetchAll(db, sql: "PRAGMA table_info(notes)").map { try $0["name"] as String },
        try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('notes') ORDER BY cid"),
        try Int.fetchOne(db, sql: "PRAGMA user_version"),
        try String.fetchAll(db, sql: "PRAGMA integrity_check(notes)")
      )
    }
    #expect(info == ["id", "text"])
    #expect(names == ["id", "text"])
    #expect(version == 0)
    #expect(integrity == ["ok"])
    // Setting stays refused.
    let refusal = #expect(throws: DatabaseError.self) {
      try notes.write { try $0.execute(sql: "PRAGMA user_version = 7") }
    }
    #expect(refusal?.hubCode == .unauthorized)
    #expect(refusal?.message == "pragma user_version may be read, not set")
  }

  @Test func everyForbiddenOperationIsRefusedAndLeavesNothing() throws {
    let running = try RunningHub()
    defer {
      running.stop()
      running.removeFiles()
    }
    let notes = try HubDatabase.registered(notesPlugin, paths: running.paths)
    try notes.write { try $0.execute(sql: "INSERT INTO notes (text) VALUES ('kept')") }
    let probe = try HubDatabase.registered(
      PluginRegistration(
        name: "probe", version: "1", tables: ["probe_rows", "probe_spill"],
        migrations: [
          .init(
            id: "1",
            sql: """
              CREATE TABLE probe_rows (id INTEGER PRIMARY KEY, key TEXT NOT NULL);
              CREATE TABLE probe_spill (id INTEGER PRIMARY KEY, key TEXT NOT NULL);
              CREATE TRIGGER probe_spill_notes AFTER INSERT ON probe_spill
              BEGIN INSERT INTO notes (text) VALUES ('spilled'); END;
              """)
        ]),
      paths: running.paths)
    let before = try snapshot(probe)

    for (what, sql) in Self.inTransactions {
      let refusal = #expect(throws: (any Error).self, "\(what) was allowed") {
        try probe.write { db in
          try db.execute(sql: "INSERT INTO probe_rows (key) VALUES ('before')")
          try db.execute(sql: sql)
        }
      }
      if let reply = refusal as? DatabaseError, reply.hubCode != nil {
        #expect(reply.hubCode == .unauthorized, "\(what): \(reply)")
      } else if sql != "UPDATE sqlite_master SET sql = ''" && sql != "VACUUM" {
        // SQLite itself refuses these two before the authorizer is asked.
        Issue.record("\(what): not an authorization error: \(String(describing: refusal))")
      }
      #expect(try snapshot(probe) == before, "\(what) left something behind")
    }

    for (index, (what, sql)) in Self.inMigrations.enumerated() {
      let intruder = PluginRegistration(
        name: "intruder\(index)", version: "1", tables: ["intruder_rows", "loot_rows"],
        migrations: [.init(id: "1", sql: sql)])
      let refusal = #expect(throws: DatabaseError.self, "\(what) was allowed in a migration") {
        _ = try HubDatabase.registered(intruder, paths: running.paths)
      }
      #expect(refusal?.hubCode == .unauthorized, "\(what): \(String(describing: refusal))")
      #expect(try snapshot(probe) == before, "\(what) left something behind")
    }
    // The probe still writes its own table.
    try probe.write { try $0.execute(sql: "INSERT INTO probe_rows (key) VALUES ('fine')") }
    #expect(try probe.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM probe_rows") } == 1)
  }
}
