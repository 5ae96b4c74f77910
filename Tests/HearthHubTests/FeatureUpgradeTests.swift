import AttachmentsFeature
import Foundation
import HearthDataTestSupport
import HearthPlugin
import HearthTestbed
import HearthWire
import RemindersFeature
import Testing

/// A hub whose reminders and attachments were written by the integer-keyed versions of the
/// features: the current features' migrations rekey them by UUID through the hub (foreign
/// keys enforced there, unlike a local migrator's), keeping every row and relation.
@Suite struct FeatureUpgradeTests {
  @Test func integerKeyedRowsKeepTheirRelationsThroughTheUUIDMigration() throws {
    let live = try LiveHub()
    defer { live.stop() }
    let paths = HubPaths(
      databasePath: live.process.databasePath, runtimeDirectory: live.process.runtimeDirectory)
    func firstVersion(_ registration: PluginRegistration) -> PluginRegistration {
      PluginRegistration(
        name: registration.name, version: registration.version, tables: registration.tables,
        migrations: Array(registration.migrations.prefix(1)))
    }
    let oldReminders = try HubDatabase.registered(
      firstVersion(try remindersRegistration()), paths: paths)
    try oldReminders.write { db in
      try db.execute(
        sql: """
          INSERT INTO remindersLists (id, title) VALUES (1, 'Home'), (2, 'Work');
          INSERT INTO reminders (id, remindersListID, title, notes)
          VALUES (1, 1, 'Milk', 'oat'), (2, 2, 'Report', '');
          INSERT INTO tags (id, title) VALUES (1, 'shop');
          INSERT INTO remindersTags (reminderID, tagID) VALUES (1, 1);
          """)
    }
    let oldAttachments = try HubDatabase.registered(
      firstVersion(try attachmentsRegistration()), paths: paths)
    try oldAttachments.write { db in
      try db.execute(
        sql: """
          INSERT INTO attachments (ownerTable, ownerID, createdAt, note)
          VALUES ('reminders', 1, '2026-01-01 00:00:00.000', 'the oat kind')
          """)
    }

    // The current reminders feature: its registration applies the UUID migration.
    let reminders = try FeatureCLI("hearth-reminders", hub: live.process)
    let rows = try #require(try reminders("show", "--json").json() as? [[String: Any]])
    let titles = rows.compactMap { ($0["reminder"] as? [String: Any])?["title"] as? String }
    #expect(titles == ["Milk", "Report"])
    #expect(rows.map { $0["listTitle"] as? String } == ["Home", "Work"])
    #expect(rows.map { $0["tags"] as? [String] } == [["shop"], []])
    let milk = try #require((rows.first?["reminder"] as? [String: Any])?["id"] as? String)
    #expect(try reminders("search", "oat").output.contains("Milk"))
    #expect(try reminders("tag", String(milk.prefix(6)), "weekly").status == 0)

    // The current attachments feature: its duty finds the note's reminder by its new key.
    let attachments = try FeatureCLI("hearth-attachments", hub: live.process)
    let (duty, output) = try attachments.start(["run", "--interval", "0.1"])
    defer { duty.stop() }
    try eventually {
      let run = try attachments("list", "reminders", milk, "--json")
      return (try? run.json() as? [[String: Any]])?.first?["ownerID"] as? String
        == milk.lowercased()
    }
    #expect(try attachments("list").output.contains("the oat kind"), "\(output.lines)")

    // Synced from now on: the hub captures the features' changes for its sync server.
    let status = try RawClient(paths).send(#"{"v":1,"type":"sync","id":"s"}"#)
    let synced = Set((status["tables"] as? [String]) ?? [])
    #expect(synced.isSuperset(of: ["remindersLists", "reminders", "tags", "remindersTags"]))
    #expect(synced.contains("attachments"))
  }
}
