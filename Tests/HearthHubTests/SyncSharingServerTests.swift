import Foundation
import HearthPostgres
import HearthSQLite
import HearthTestbed
import HearthWire
import Testing

@testable import HearthSync

/// Two people on one real PostgreSQL server: the schema's row-level security and its
/// functions, spoken to directly (as each person's role), with no hub.
extension SyncSuites {
  @Suite(.serialized) struct SyncSharingServerTests {
    /// A server with the schema (made by its administrator) and the logins alice and bob.
    static func people() throws -> PostgresServer {
      let server = try PostgresServer()
      _ = try SyncServer(server.conninfo())
      try server.execute("CREATE ROLE alice LOGIN")
      try server.execute("CREATE ROLE bob LOGIN")
      return server
    }

    static func connect(_ role: String, _ server: PostgresServer) throws -> SyncServer {
      try SyncServer(server.conninfo(user: role))
    }

    static func list(_ name: String, title: String, time: String) -> SyncRecord {
      SyncRecord(
        type: "lists", name: name,
        fields: ["title": WireValue(DatabaseValue(storage: .text(title)))],
        times: ["title": time], created: time)
    }

    static func item(_ name: String, in list: String, time: String) -> SyncRecord {
      SyncRecord(
        type: "items", name: name,
        fields: ["listID": WireValue(DatabaseValue(storage: .text(list)))],
        times: ["listID": time], created: time)
    }

    @Test func aPersonSeesNoneOfAnothersRecordsAndCannotWriteThem() throws {
      let server = try Self.people()
      defer { server.stop() }
      let alice = try Self.connect("alice", server)
      let bob = try Self.connect("bob", server)
      #expect(alice.zone == "alice/default")
      #expect(bob.zone == "bob/default")
      // A private zone before its first push: empty, not refused.
      #expect(try alice.pull(after: .start, limit: 100, hub: "a").isEmpty)
      _ = try alice.push(
        [Self.list("l1", title: "Private", time: "001700000000000-0000-a")], hub: "a")
      _ = try bob.push([Self.list("b1", title: "Bob's", time: "001700000000000-0000-b")], hub: "c")
      // Queried as bob's role on the server itself: none of alice's rows.
      let asBob = try PostgresConnection(server.conninfo(user: "bob"))
      let seen = try asBob.execute("SELECT zone, record_name FROM hearth.records ORDER BY 1")
      #expect(seen.rows.map { $0.compactMap { $0 } } == [["bob/default", "b1"]])
      #expect(throws: PostgresError.self) {
        try asBob.execute("UPDATE hearth.records SET fields = '{}' WHERE zone = 'alice/default'")
      }
      #expect(throws: PostgresError.self) {
        try asBob.execute("SELECT * FROM hearth.members")
      }
      // Nor through the functions: alice's zone, or a zone named as if it were his.
      #expect(throws: PostgresError.self) {
        _ = try bob.pull("alice/default", after: .start, limit: 100, hub: "c")
      }
      #expect(throws: PostgresError.self) {
        _ = try bob.push(
          [Self.list("l1", title: "Mine now", time: "9")], zone: "alice/default", hub: "c")
      }
      #expect(throws: PostgresError.self) {
        _ = try bob.push([Self.list("x", title: "x", time: "9")], zone: "bob/share-x", hub: "c")
      }
      // Alice's other hub pulls it; the hub that pushed it has it as it is already.
      #expect(try alice.pull(after: .start, limit: 100, hub: "a2").map(\.name) == ["l1"])
      #expect(try alice.pull(after: .start, limit: 100, hub: "a", pushed: .max).isEmpty)
    }

    @Test func aShareIsReadByItsMembersAndWrittenOnlyWithPermission() throws {
      let server = try Self.people()
      defer { server.stop() }
      let alice = try Self.connect("alice", server)
      let bob = try Self.connect("bob", server)
      let t = "001700000000000-0000-a"
      _ = try alice.push(
        [
          Self.list("l1", title: "Groceries", time: t), Self.item("i1", in: "l1", time: t),
          Self.list("l2", title: "Private", time: t),
        ], hub: "a")
      let invitation = SyncServer.newInvitation()
      let zone = try alice.share(
        type: "lists", name: "l1", records: [("lists", "l1"), ("items", "i1")],
        permission: .read, invitation: invitation, title: "Groceries")
      #expect(zone.hasPrefix("alice/share-"))
      // The records moved: stubs at home say where.
      let home = try alice.pull(after: .start, limit: 100, hub: "a")
      #expect(Set(home.filter { $0.movedTo == zone }.map(\.name)) == ["l1", "i1"])
      #expect(home.first { $0.name == "l2" }?.movedTo == nil)
      // Before accepting, bob reads nothing of it.
      #expect(throws: PostgresError.self) {
        _ = try bob.pull(zone, after: .start, limit: 100, hub: "c")
      }
      #expect(throws: PostgresError.self) { _ = try bob.accept(SyncServer.newInvitation()) }
      #expect(throws: PostgresError.self) { _ = try alice.accept(invitation) }
      let share = try bob.accept(invitation)
      #expect(share.zone == zone && share.owner == "alice" && share.permission == .read)
      #expect(!share.isOwner && share.members == [.init(role: "bob", permission: .read)])
      let pulled = try bob.pull(zone, after: .start, limit: 100, hub: "c")
      #expect(Set(pulled.map(\.name)) == ["l1", "i1"])
      #expect(
        pulled.first { $0.name == "l1" }?.fields["title"]
          == WireValue(DatabaseValue(storage: .text("Groceries"))))
      // Read-only: bob's write is refused by the server.
      #expect(throws: PostgresError.self) {
        _ = try bob.push(
          [Self.item("i2", in: "l1", time: "001700000000001-0000-c")], zone: zone, hub: "c")
      }
      // The invitation was for one person, once.
      let eve = try { () throws -> SyncServer in
        try server.execute("CREATE ROLE eve LOGIN")
        return try Self.connect("eve", server)
      }()
      #expect(throws: PostgresError.self) { _ = try eve.accept(invitation) }
      // Read-write: bob's item lands, and alice pulls it.
      _ = try alice.share(
        type: "lists", name: "l1", records: [], permission: .readWrite, invitation: nil,
        title: nil)
      _ = try bob.push(
        [Self.item("i2", in: "l1", time: "001700000000001-0000-c")], zone: zone, hub: "c")
      #expect(
        Set(try alice.pull(zone, after: .start, limit: 100, hub: "a").map(\.name)) == [
          "l1", "i1", "i2",
        ])
      // Taken from bob alone: he reads it no more; invited again, he does.
      try alice.revoke(zone, from: "bob")
      #expect(try bob.shares().isEmpty)
      #expect(throws: PostgresError.self) {
        _ = try bob.pull(zone, after: .start, limit: 100, hub: "c")
      }
      let again = SyncServer.newInvitation()
      _ = try alice.share(
        type: "lists", name: "l1", records: [], permission: .readWrite, invitation: again,
        title: nil)
      #expect(try bob.accept(again).permission == .readWrite)
      // Stopped: bob loses it; alice's records, bob's item too, are home again.
      try alice.unshare(zone)
      #expect(try bob.shares().isEmpty)
      #expect(throws: PostgresError.self) {
        _ = try bob.pull(zone, after: .start, limit: 100, hub: "c")
      }
      let back = try alice.pull(after: .start, limit: 100, hub: "a2")
      #expect(Set(back.filter { $0.movedTo == nil }.map(\.name)) == ["l1", "i1", "i2", "l2"])
      #expect(
        try server.execute("SELECT count(*) FROM hearth.records WHERE zone LIKE 'alice/share-%'")
          .rows.first?.first == "0")
    }

    /// A version 4 server, with edits merged, a delete and a share, is upgraded: its records
    /// become chunks, and read back (the `records` view, a pull) as they were.
    @Test func aVersionFourServerIsUpgradedToChunksAndReadsAsBefore() throws {
      let server = try PostgresServer()
      defer { server.stop() }
      let admin = try PostgresConnection(server.conninfo())
      for script in [serverSchemaV1, serverSchemaV2, serverSchemaV3, serverSchemaV4] {
        try admin.executeScript(script)
      }
      func push(_ records: [SyncRecord], hub: String) throws {
        let batch = String(decoding: try JSONEncoder().encode(records), as: UTF8.self)
        _ = try admin.execute(
          "SELECT hearth.push('hearth/default', $1, $2::jsonb)", [hub, batch])
      }
      let (t1, t2) = ("001700000000000-0000-a", "001700000000005-0000-b")
      try push(
        [
          Self.list("l1", title: "Groceries", time: t1), Self.item("i1", in: "l1", time: t1),
          Self.list("l2", title: "Old", time: t1), Self.list("l3", title: "Gone", time: t1),
        ], hub: "a")
      var deleted = SyncRecord(type: "lists", name: "l3")
      deleted.deleted = t2
      try push([Self.list("l2", title: "New", time: t2), deleted], hub: "b")
      _ = try admin.execute(
        """
        SELECT hearth.share('hearth/default', 'lists', 'l1',
          '[{"type": "lists", "name": "l1"}, {"type": "items", "name": "i1"}]', 'read', NULL,
          'Groceries', '1 day')
        """)
      let read = """
        SELECT zone LIKE 'hearth/share-%', record_type, record_name, fields::text, times::text,
          created, deleted, moved_to IS NOT NULL
        FROM hearth.records ORDER BY 1, 2, 3, 8
        """
      let before = try admin.execute(read).rows
      #expect(before.count == 6)

      let upgraded = try SyncServer(server.conninfo())
      #expect(try admin.execute(read).rows == before)
      #expect(
        try admin.execute("SELECT count(*) FROM hearth.chunks").rows.first?.first == "2")
      // A new hub pulls the records as they were merged, and the stubs.
      let home = try upgraded.pull(after: .start, limit: 100, hub: "new-hub")
      #expect(Set(home.map(\.name)) == ["l2", "l3", "l1", "i1"])
      #expect(home.first { $0.name == "l2" }?.fields["title"] == .init(.init(stringLiteral: "New")))
      #expect(Set(home.filter { $0.movedTo != nil }.map(\.name)) == ["l1", "i1"])
      let share = try #require(try upgraded.shares().first?.zone)
      #expect(
        Set(try upgraded.pull(share, after: .start, limit: 100, hub: "new-hub").map(\.name))
          == ["l1", "i1"])
    }

    @Test func aVersionOneServerIsUpgradedAndKeepsItsRecords() throws {
      let server = try PostgresServer()
      defer { server.stop() }
      let admin = try PostgresConnection(server.conninfo())
      try admin.executeScript(serverSchemaV1)
      let batch = try JSONEncoder().encode([
        Self.list("l1", title: "Kept", time: "001700000000000-0000-a")
      ])
      _ = try admin.execute(
        "SELECT hearth.push('default', 'old-hub', $1::jsonb)",
        [String(decoding: batch, as: UTF8.self)])
      let upgraded = try SyncServer(server.conninfo())
      #expect(upgraded.zone == "hearth/default")
      let records = try upgraded.pull(after: .start, limit: 10, hub: "new-hub")
      #expect(records.map(\.name) == ["l1"])
      #expect(records.first?.fields["title"] == WireValue(DatabaseValue(storage: .text("Kept"))))
      #expect(
        try server.execute("SELECT value FROM hearth.meta WHERE key = 'schema'").rows.first?.first
          == String(SyncServer.schemaVersion))
      #expect(
        try server.execute("SELECT hub, zone FROM hearth.cursors WHERE hub = 'old-hub'").rows.first
          == ["old-hub", "hearth/default"])
    }
  }
}
