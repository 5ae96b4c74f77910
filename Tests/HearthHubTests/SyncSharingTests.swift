import Foundation
import HearthData
import HearthDataTestSupport
import HearthPlugin
import HearthPostgres
import HearthSQLite
import HearthSync
import HearthTestbed
import HearthWire
import Testing

extension SyncSuites {
  /// Two people, three hubs (alice: A and B; bob: C), one real PostgreSQL: a list shared
  /// read-only, then read-write, then no longer — through the reference's API.
  @Suite(.serialized) struct SyncSharingTests {
    final class People {
      let server: PostgresServer
      let a: SyncedHub
      let b: SyncedHub
      let c: SyncedHub

      init() throws {
        server = try SyncSharingServerTests.people()
        a = try SyncedHub("alice-a", server: server, role: "alice")
        b = try SyncedHub("alice-b", server: server, role: "alice")
        c = try SyncedHub("bob-c", server: server, role: "bob")
      }

      func stop() {
        for hub in [a, b, c] { hub.stopAndRemove() }
        server.stop()
      }
    }

    static func titles(_ hub: SyncedHub) throws -> [String] {
      try hub.todo.read { db in
        try String.fetchAll(
          db,
          sql: "SELECT title FROM lists UNION ALL SELECT title FROM items ORDER BY 1")
      }
    }

    static func waitFor(
      _ hub: SyncedHub, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
      try eventually(timeout: .seconds(30), sourceLocation: sourceLocation) {
        try titles(hub) == expected
      }
      #expect(try titles(hub) == expected, sourceLocation: sourceLocation)
    }

    @Test func aListSharedReadOnlyThenReadWriteThenNoLonger() async throws {
      let people = try People()
      defer { people.stop() }
      let (a, b, c) = (people.a, people.b, people.c)
      let groceries = SyncedList(id: "groceries", title: "Groceries", color: 1)
      try await a.todo.write { db in
        try SyncedList.insert { groceries }.execute(db)
        try SyncedList.insert { SyncedList(id: "diary", title: "Diary", color: 2) }.execute(db)
        try SyncedItem.insert {
          SyncedItem(id: "milk", listID: "groceries", title: "Milk", done: false, position: 0)
          SyncedItem(id: "secret", listID: "diary", title: "Secret", done: false, position: 0)
        }.execute(db)
      }
      try await c.todo.write { db in
        try SyncedList.insert { SyncedList(id: "bobs", title: "Bob's", color: 3) }.execute(db)
      }
      let everything = ["Diary", "Groceries", "Milk", "Secret"]
      try Self.waitFor(b, everything)
      let engineA = try SyncEngine(for: a.todo, tables: SyncedList.self, SyncedItem.self)
      let engineC = try SyncEngine(for: c.todo, tables: SyncedList.self, SyncedItem.self)

      // Read-only.
      let shared = try await engineA.share(record: groceries) { share in
        share[Share.SystemFieldKey.title] = "Join 'Groceries'!"
      }
      #expect(shared.share.publicPermission == .readOnly && shared.share.isOwner)
      #expect(shared.share.title == "Join 'Groceries'!" && shared.share.owner == "alice")
      let invitation = try #require(shared.invitation)
      try await engineC.acceptShare(metadata: ShareMetadata(invitation: invitation))
      #expect(try Self.titles(c) == ["Bob's", "Groceries", "Milk"])
      // An invitation the server does not know: its refusal reaches the plugin as a refused
      // share, with the server's words.
      do {
        try await engineC.acceptShare(
          metadata: ShareMetadata(invitation: SyncServer.newInvitation()))
        Issue.record("an unknown invitation was accepted")
      } catch let error as DatabaseError {
        #expect(error.hubCode == .shareRefused, "\(error)")
        #expect("\(error)".contains("unknown, used or expired"), "\(error)")
      }
      let metadata = try await c.todo.read { db in
        try SyncMetadata.where { $0.recordName.eq("groceries:lists") }.fetchOne(db)
      }
      #expect(metadata?.isShared == true && metadata?.share?.owner == "alice")
      #expect(metadata?.share?.isOwner == false)
      // Bob's writes into it are refused here, with the reference's error.
      for write in Self.writesIntoGroceries {
        do {
          try await c.todo.write(write)
          Issue.record("a write into a read-only share was not refused")
        } catch let error as DatabaseError {
          #expect(error.message == SyncEngine.writePermissionError)
        }
      }
      #expect(try Self.titles(c) == ["Bob's", "Groceries", "Milk"])
      // Bob's own list stays his: written as ever.
      try await c.todo.write { db in
        try SyncedList.find("bobs").update { $0.title = "Bob's list" }.execute(db)
      }
      // Alice's other hub knows it is shared.
      try eventually(timeout: .seconds(30)) {
        try b.todo.read { db in
          try SyncMetadata.where { $0.recordName.eq("groceries:lists") }.fetchOne(db)?.isShared
        } == true
      }

      // Read-write: bob's edits reach both of alice's hubs.
      let again = try await engineA.share(record: groceries) { $0.publicPermission = .readWrite }
      #expect(again.share.publicPermission == .readWrite)
      #expect(again.share.participants == [.init(role: "bob", permission: .readWrite)])
      // Bob's hub learns it in its next whole round (a second at most; one now).
      try await engineC.syncChanges()
      try await c.todo.write { db in
        try SyncedItem.insert {
          SyncedItem(id: "eggs", listID: "groceries", title: "Eggs", done: false, position: 1)
        }.execute(db)
      }
      try await c.todo.write { db in
        try SyncedItem.find("milk").update { $0.title = "Oat milk" }.execute(db)
      }
      let withBobs = ["Diary", "Eggs", "Groceries", "Oat milk", "Secret"]
      try Self.waitFor(a, withBobs)
      try Self.waitFor(b, withBobs)
      try Self.waitFor(c, ["Bob's list", "Eggs", "Groceries", "Oat milk"])

      // On the server, as bob: none of alice's private records.
      let asBob = try PostgresConnection(people.server.conninfo(user: "bob"))
      let visible = try asBob.execute(
        "SELECT count(*) FROM hearth.records WHERE zone = 'alice/default' AND moved_to IS NULL")
      #expect(visible.rows.first?.first == "0")
      let names = try asBob.execute("SELECT record_name FROM hearth.records ORDER BY 1")
      #expect(names.rows.map { $0.first ?? nil } == ["bobs", "eggs", "groceries", "milk"])

      // Stopped: the list leaves bob's hub and stays on alice's, with bob's item.
      try await engineA.unshare(record: groceries)
      try await engineC.syncChanges()
      try Self.waitFor(c, ["Bob's list"])
      try Self.waitFor(a, withBobs)
      try await SyncEngine(for: b.todo, tables: SyncedList.self, SyncedItem.self).syncChanges()
      try Self.waitFor(b, withBobs)
      // Alice's hubs write it as their own again.
      try await b.todo.write { db in
        try SyncedItem.find("eggs").update { $0.title = "Brown eggs" }.execute(db)
      }
      try Self.waitFor(a, ["Brown eggs", "Diary", "Groceries", "Oat milk", "Secret"])
    }

    /// What bob tries in a share he may only read: add to it, change it, delete from it.
    static let writesIntoGroceries: [@Sendable (Database) throws -> Void] = [
      { db in
        try SyncedItem.insert {
          SyncedItem(id: "beer", listID: "groceries", title: "Beer", done: false, position: 9)
        }.execute(db)
      },
      { db in try SyncedList.find("groceries").update { $0.title = "Mine" }.execute(db) },
      { db in try SyncedItem.find("milk").update { $0.done = true }.execute(db) },
      { db in try SyncedItem.find("milk").delete().execute(db) },
      { db in try SyncedList.find("groceries").delete().execute(db) },
    ]

    @Test func aMemberCannotReachBeyondTheShareByCraftingRecords() async throws {
      let people = try People()
      defer { people.stop() }
      let (a, c) = (people.a, people.c)
      let groceries = SyncedList(id: "groceries", title: "Groceries", color: 1)
      try await a.todo.write { db in
        try SyncedList.insert { groceries }.execute(db)
        try SyncedList.insert { SyncedList(id: "diary", title: "Diary", color: 2) }.execute(db)
        try SyncedItem.insert {
          SyncedItem(id: "secret", listID: "diary", title: "Secret", done: false, position: 0)
        }.execute(db)
      }
      let engineA = try SyncEngine(for: a.todo, tables: SyncedList.self, SyncedItem.self)
      let shared = try await engineA.share(record: groceries) { $0.publicPermission = .readWrite }
      let engineC = try SyncEngine(for: c.todo, tables: SyncedList.self, SyncedItem.self)
      try await engineC.acceptShare(metadata: ShareMetadata(invitation: shared.invitation!))
      // Bob, with his own client of the server: alice's private zone is closed to him...
      let bob = try SyncServer(people.server.conninfo(user: "bob"))
      let later = "009999999999999-0000-bob"
      let pwned = WireValue(DatabaseValue(storage: .text("pwned")))
      #expect(throws: PostgresError.self) {
        _ = try bob.push(
          [
            SyncRecord(
              type: "items", name: "secret", fields: ["title": pwned], times: ["title": later])
          ],
          zone: "alice/default", hub: "bob")
      }
      // ...and what he writes into the share cannot name her private rows, add a second
      // root, or hang a row under her private list.
      _ = try bob.push(
        [
          SyncRecord(
            type: "items", name: "secret", fields: ["title": pwned], times: ["title": later]),
          SyncRecord(
            type: "lists", name: "planted", fields: ["title": pwned], times: ["title": later],
            created: later),
          SyncRecord(
            type: "items", name: "under-diary",
            fields: ["title": pwned, "listID": WireValue(DatabaseValue(storage: .text("diary")))],
            times: ["title": later, "listID": later], created: later),
        ], zone: shared.share.zone, hub: "bob")
      try await engineA.syncChanges()
      #expect(try Self.titles(a) == ["Diary", "Groceries", "Secret"])
      let held = try a.status()["held"] as? Int
      #expect(held == 3)
    }
  }
}
