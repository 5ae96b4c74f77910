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

    /// `hearth sync pause` stops pushing and pulling, across a restart, while local writes
    /// go on and `now` says why it cannot; `resume` sends what waited. `verify` finds the
    /// hubs equal to the server, then names a row changed behind sync's back.
    @Test func pauseHoldsSyncAcrossARestartAndVerifyNamesTheRowsThatDiffer() throws {
      let server = try PostgresServer()
      defer { server.stop() }
      let a = try SyncingHubProcess("a", server: server)
      let b = try SyncingHubProcess("b", server: server)
      defer {
        a.stopAndRemove()
        b.stopAndRemove()
      }
      let (hearthA, hearthB) = (
        try FeatureCLI("hearth", hub: a.process), try FeatureCLI("hearth", hub: b.process)
      )
      try a.todo.write { db in
        try db.execute(sql: "INSERT INTO lists (id, title) VALUES ('l', 'Home')")
        for item in 0..<20 {
          try db.execute(
            sql: "INSERT INTO items (id, listID, title) VALUES (?, 'l', ?)",
            arguments: ["i\(item)", "item \(item)"])
        }
      }
      try converge([a, b], server: server)

      var run = try hearthA("sync", "pause")
      #expect(run.status == 0, "\(run.errors)")
      #expect(run.output.contains("paused    nothing is pushed or pulled"), "\(run.output)")
      try a.restart()
      try a.todo.write { db in
        try db.execute(sql: "UPDATE items SET title = 'written while paused' WHERE id = 'i3'")
      }
      run = try hearthA("sync", "now")
      #expect(run.status == 1 && run.errors.contains("sync is paused"), "\(run.errors)")
      #expect(try hearthA("status").output.contains("paused (hearth sync resume)"))
      #expect(try a.status()["paused"] as? Bool == true)
      // Two seconds of rounds: nothing went to the server.
      Thread.sleep(forTimeInterval: 2)
      let title = try server.execute(
        "SELECT fields -> 'title' ->> 'text' FROM hearth.records WHERE record_name = 'i3'")
      #expect(title.rows.first?.first == "item 3")
      #expect(try a.status()["pending"] as? Int == 1)

      run = try hearthA("sync", "resume")
      #expect(run.status == 0, "\(run.errors)")
      #expect(try hearthA("sync", "now").status == 0)
      #expect(try hearthB("sync", "now").status == 0)
      try eventually {
        try b.todo.read { db in
          try String.fetchOne(db, sql: "SELECT title FROM items WHERE id = 'i3'")
        } == "written while paused"
      }

      // Equal: one zone, 21 rows, the same digest on both sides.
      run = try hearthB("sync", "verify")
      #expect(run.status == 0, "\(run.output) \(run.errors)")
      #expect(run.output.contains("hearth/default: equal, 21 rows"), "\(run.output)")
      let json = try #require(try hearthA("sync", "verify", "--json").json() as? [String: Any])
      let zone = try #require((json["zones"] as? [[String: Any]])?.first)
      #expect(zone["digest"] as? String == zone["serverDigest"] as? String)

      // A row changed on the server behind the hubs' back (no newer time: never pulled).
      _ = try server.execute(
        """
        UPDATE hearth.chunks SET records = (
          SELECT jsonb_agg(CASE WHEN r ->> 'name' = 'i7'
            THEN jsonb_set(r, '{fields,title}', '{"text": "tampered"}') ELSE r END ORDER BY n)
          FROM jsonb_array_elements(records) WITH ORDINALITY x(r, n))
        WHERE records @> '[{"name": "i7"}]'
        """)
      run = try hearthB("sync", "verify")
      #expect(run.status == 1)
      #expect(run.output.contains("1 rows differ"), "\(run.output)")
      #expect(
        run.output.contains(#"items i7: title: here "item 7", on the server "tampered""#),
        "\(run.output)")
    }

    /// A hub whose clock is off from the server's by more than a few seconds says so in
    /// `hearth sync`, `hearth status` and its log; one that is right says nothing of it.
    @Test func aHubWhoseClockIsOffSaysSo() throws {
      let server = try PostgresServer()
      defer { server.stop() }
      let slow = try SyncingHubProcess(
        "slow", server: server, settings: "sync-clock-offset-ms = -125000\n")
      let right = try SyncingHubProcess("right", server: server)
      defer {
        slow.stopAndRemove()
        right.stopAndRemove()
      }
      let hearth = try FeatureCLI("hearth", hub: slow.process)
      #expect(try hearth("sync", "now").status == 0)
      let shown = try hearth("sync").output
      #expect(shown.contains("clock     2 min 5 s behind the server's"), "\(shown)")
      #expect(try hearth("status").output.contains("clock 2 min 5 s behind the server's"))
      let skew = try #require(try slow.status()["clockSkew"] as? Int)
      #expect(abs(skew + 125_000) < 2_000, "\(skew)")
      try eventually { slow.logLines.contains { $0.contains("clock is 2 min 5 s behind") } }
      #expect(try FeatureCLI("hearth", hub: right.process)("sync", "now").status == 0)
      #expect(!(try FeatureCLI("hearth", hub: right.process)("status").output.contains("clock")))
    }
  }
}
