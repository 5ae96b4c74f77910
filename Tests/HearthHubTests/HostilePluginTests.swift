import Foundation
import HearthData
import HearthDataTestSupport
import HearthHub
import HearthPlugin
import HearthSQLite
import HearthTestbed
import HearthTransport
import HearthWire
import Testing

/// A hostile plugin — its own process, its own key, none of the victim's secrets — is
/// refused everything it tries as the victim, and leaves the victim's data, schema,
/// registration and cursor as they were.
@Suite struct HostilePluginTests {
  @Test func aPluginWithItsOwnKeyCannotActAsAnother() throws {
    let port = Int.random(in: 20_000..<40_000)
    let tcp = "tcp://127.0.0.1:\(port)"
    let running = try RunningHub { $0.extraRequestEndpoints = [tcp] }
    defer { running.removeFiles() }
    let victim = try HubDatabase.registered(notesPlugin, paths: running.paths)
    // The lowest the victim itself ever reports: its follower starts at its registration.
    let registered = running.hub.lastSequence
    try victim.write { db in try Note.insert { Note.Draft(text: "mine") }.execute(db) }
    let own = try RawClient(running.paths, as: "notes")
    let cursor = running.hub.lastSequence
    #expect(
      try own.send(#"{"v":1,"type":"cursor","id":"c","plugin":"notes","seq":\#(cursor)}"#)["type"]
        as? String == "cursorSaved")
    let before = try snapshot(running.paths)
    let malloryKey = try running.paths.keyring.issue("mallory")
    #expect(malloryKey != (try running.paths.keyring.pluginKeys("notes")))
    let keyFile = running.paths.keyring.keyPath(ofPlugin: "mallory")

    // The victim's interactive transaction is open while the hostile plugin tries to finish it.
    #expect(
      try own.send(
        #"{"v":1,"type":"transaction","id":"open","plugin":"notes","part":0,"statements":[{"sql":"INSERT INTO notes (text) VALUES ('in flight')"}]}"#
      )["type"] as? String == "results")
    let whileOpen = try hostile(running.paths, keyFile, "open", "open")
    #expect(
      whileOpen == [
        "continue-victim-transaction": "unauthorized", "write-as-victim": "unauthorized",
        "register-as-victim": "unauthorized", "register-as-victim-with-migration": "unauthorized",
        "cursor-as-victim": "unauthorized",
      ])
    let commit = try own.send(
      #"{"v":1,"type":"transaction","id":"open","plugin":"notes","part":1,"end":"commit","statements":[]}"#
    )
    #expect(commit["type"] as? String == "committed" && commit["rolledBack"] == nil, "\(commit)")

    let closed = try hostile(running.paths, keyFile, "closed", tcp)
    #expect(
      closed == [
        "register-self": "registered", "write-victim-table": "unauthorized",
        "claim-victim-table": "unauthorized", "tcp-own-key": "welcome",
        "tcp-unknown-key": "no answer",
      ])
    running.stop()

    // Nothing of the victim's changed but its own transaction's row and its cursor (saved
    // when the hub stops). The victim's database reports its cursor too, from its own
    // follower, whose report may land after the one above and name a commit before it; but
    // never one before its registration, where the 0 the hostile plugin sent would be.
    let after = try snapshot(running.paths)
    #expect(after.notes == before.notes + ["in flight"])
    #expect(after.schema == before.schema && after.registration == before.registration)
    #expect(before.cursor == nil && (after.cursor ?? 0) >= registered && registered > 0)
  }

  @Test func aRevokedKeyIsRefusedFromItsNextRequestAndNotIssuedAgain() throws {
    let running = try RunningHub()
    defer { running.stopAndRemove() }
    let notes = try HubDatabase.registered(notesPlugin, paths: running.paths)
    try notes.write { db in try Note.insert { Note.Draft(text: "before") }.execute(db) }
    #expect(try hearth(running.paths, "plugins", "remove", "notes").status == 0)
    let refused = #expect(throws: DatabaseError.self) {
      try notes.write { db in try Note.insert { Note.Draft(text: "revoked") }.execute(db) }
    }
    #expect(refused?.hubCode == .unauthorized)
    // A plugin starting again is not issued a key the owner revoked.
    #expect(throws: DatabaseError.self) {
      try HubTransport.pluginKeys("notes", paths: running.paths, [:])
    }
    let listed = try hearth(running.paths, "plugins", "--json")
    #expect(listed.output.contains(#""key":"revoked""#))
    // The owner issues a new key: the plugin writes again, as itself, with it.
    #expect(try hearth(running.paths, "plugins", "add", "notes").status == 0)
    let again = try HubDatabase.registered(notesPlugin, paths: running.paths)
    try again.write { db in try Note.insert { Note.Draft(text: "again") }.execute(db) }
    let texts = try again.read { db in try String.fetchAll(db, sql: "SELECT text FROM notes") }
    #expect(texts == ["before", "again"])
  }

  /// Runs this build's `hearth` on the hub at `paths`.
  func hearth(_ paths: HubPaths, _ arguments: String...) throws -> (status: Int32, output: String) {
    try runToEnd(
      "hearth",
      arguments + ["--database", paths.databasePath, "--runtime-dir", paths.runtimeDirectory])
  }

  /// The victim's rows, schema, registration, migrations and cursor.
  struct Snapshot: Equatable {
    var notes: [String]
    var schema: [String]
    var registration: [String]
    var cursor: Int64?
  }

  func snapshot(_ paths: HubPaths) throws -> Snapshot {
    var configuration = Configuration()
    configuration.readonly = true
    return try DatabaseQueue(path: paths.databasePath, configuration: configuration).read { db in
      Snapshot(
        notes: try String.fetchAll(db, sql: "SELECT text FROM notes ORDER BY id"),
        schema: try String.fetchAll(
          db,
          sql:
            "SELECT name || ifnull(sql, '') FROM sqlite_schema WHERE tbl_name = 'notes' ORDER BY name"
        ),
        registration: try String.fetchAll(
          db,
          sql: """
            SELECT name || ' ' || version FROM \(HubTables.plugins) WHERE name = 'notes'
            UNION ALL SELECT identifier FROM \(HubTables.pluginMigrations) WHERE plugin = 'notes'
            UNION ALL SELECT plugin || ' ' || name FROM \(HubTables.tables) WHERE name = 'notes'

            """),
        cursor: try Int64.fetchOne(
          db, sql: "SELECT seq FROM \(HubTables.cursors) WHERE plugin = 'notes'"))
    }
  }

  /// Runs Tests/python/hostile_plugin.py, its own process, and returns what it printed.
  func hostile(_ paths: HubPaths, _ keyFile: String, _ phase: String, _ argument: String) throws
    -> [String: String]
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = [
      Executables.packageRoot.appendingPathComponent("Tests/python/hostile_plugin.py").path,
      paths.runtimeDirectory, keyFile, phase, argument,
    ]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    return try JSONDecoder().decode([String: String].self, from: data)
  }
}
