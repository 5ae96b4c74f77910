import Foundation
import HearthDataTestSupport
import HearthHub
import HearthTestbed
import Testing

extension SyncSuites {
  /// `hearth sync` against hearthd processes and a real server.
  @Suite(.serialized) struct SyncCommandTests {
    @Test func syncNowStatusResyncAndSetupDoWhatTheySay() throws {
      let server = try PostgresServer()
      defer { server.stop() }
      let a = try SyncingHubProcess("a", server: server)
      let offline = try SyncingHubProcess("off", server: server, online: false)
      defer {
        a.stopAndRemove()
        offline.stopAndRemove()
      }
      let hearth = try FeatureCLI("hearth", hub: a.process)
      try a.todo.write { db in
        try db.execute(sql: "INSERT INTO lists (id, title) VALUES ('l', 'x')")
      }
      // `now` answers once a round begun after it has pushed and pulled: nothing is pending.
      let now = try hearth("sync", "now", "--json")
      #expect(now.status == 0, "\(now.errors)")
      let state = try #require(try now.json() as? [String: Any])
      #expect(state["pending"] as? Int == 0)
      #expect(state["tables"] as? [String] == ["items", "lists"])
      #expect((state["pulled"] as? Int ?? 0) >= 1)
      let records = try server.execute("SELECT count(*) FROM hearth.records")
      #expect(records.rows.first?.first == "1")

      let status = try hearth("sync")
      #expect(status.output.contains("pending   0 rows to push"), "\(status.output)")

      // A resync pushes every row again and pulls everything again, deleting nothing.
      let resync = try hearth("sync", "resync", "--json")
      #expect(resync.status == 0, "\(resync.errors)")
      #expect(try hearth("sync", "now").status == 0)
      #expect(try a.count("lists") == 1)
      let pushes = try server.execute("SELECT seq FROM hearth.records WHERE record_name = 'l'")
      #expect(pushes.rows.first?.first.flatMap { $0.flatMap { Int($0) } } ?? 0 > 1)

      // A hub with no server: `now` fails with what to do.
      let offlineNow = try FeatureCLI("hearth", hub: offline.process)("sync", "now")
      #expect(offlineNow.status == 1)
      #expect(offlineNow.errors.contains("no sync server is set up"), "\(offlineNow.errors)")

      // `setup` checks the server and writes the config file (0600).
      let config = a.directory.appendingPathComponent("setup.conf").path
      try "checkpoint-interval = 0.2\nsync-server = old\n".write(
        toFile: config, atomically: true, encoding: .utf8)
      let setup = try hearth(
        "sync", "setup", server.conninfo(), "--zone", "home", "--config", config)
      #expect(setup.status == 0, "\(setup.errors)")
      let written = try String(contentsOfFile: config, encoding: .utf8)
      #expect(
        written
          == "checkpoint-interval = 0.2\nsync-server = \(server.conninfo())\nsync-zone = home\n"
      )
      let mode = try FileManager.default.attributesOfItem(atPath: config)[.posixPermissions] as? Int
      #expect(mode == 0o600)
      let refused = try hearth("sync", "setup", "host=/nonexistent port=1", "--config", config)
      #expect(refused.status == 1 && refused.errors.contains("cannot use the sync server"))
    }
  }
}
