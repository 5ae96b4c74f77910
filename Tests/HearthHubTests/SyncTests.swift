import Foundation
import HearthDataTestSupport
import HearthHub
import HearthPlugin
import HearthSQLite
import HearthSync
import HearthTestbed
import HearthWire
import Testing

extension SyncSuites {
  /// Sync between hubs through a real PostgreSQL server (initdb + pg_ctl in a temporary
  /// directory), each hub its own database and runtime directory.
  @Suite(.serialized) struct SyncTests {
    @Test func tenThousandRowsInFiftyListsMadeOnOneHubAppearIdenticallyOnTheOthers() throws {
      let cluster = try SyncCluster(["a", "b", "c"])
      defer { cluster.stop() }
      try cluster[0].todo.write { db in
        for list in 0..<50 {
          try db.execute(
            sql: "INSERT INTO lists (id, title, color) VALUES (?, ?, ?)",
            arguments: ["list-\(list)", "List \(list)", list])
          for item in 0..<200 {
            try db.execute(
              sql: "INSERT INTO items (id, listID, title, position) VALUES (?, ?, ?, ?)",
              arguments: ["item-\(list)-\(item)", "list-\(list)", "Item \(list).\(item)", item])
          }
        }
      }
      let dump = try cluster.converge()
      #expect(dump.split(separator: "\n").count == 10_050)
      #expect(try cluster[2].count("items") == 10_000)
      #expect(try cluster.hubs.allSatisfy { try $0.status()["held"] as? Int == 0 })
    }

    @Test func concurrentEditsOfDifferentColumnsOfOneRowAreBothKept() throws {
      let cluster = try SyncCluster(["a", "b"])
      defer { cluster.stop() }
      try cluster[0].todo.write { db in
        try db.execute(sql: "INSERT INTO lists (id, title) VALUES ('l', 'Groceries')")
        try db.execute(sql: "INSERT INTO items (id, listID, title) VALUES ('i', 'l', 'milk')")
      }
      try cluster.converge()
      try cluster[1].goOffline()
      try cluster[0].todo.write { db in
        try db.execute(sql: "UPDATE items SET title = 'oat milk' WHERE id = 'i'")
      }
      try cluster[1].todo.write { db in
        try db.execute(sql: "UPDATE items SET done = 1 WHERE id = 'i'")
      }
      try cluster[1].goOnline()
      let dump = try cluster.converge()
      #expect(dump.contains("oat milk"))
      let done = try cluster[0].todo.read { db in
        try Int.fetchOne(db, sql: "SELECT done FROM items WHERE id = 'i'")
      }
      #expect(done == 1)
    }

    @Test func theLaterEditOfOneColumnWinsEverywhere() throws {
      let cluster = try SyncCluster(["a", "b", "c"])
      defer { cluster.stop() }
      try cluster[0].todo.write { db in
        try db.execute(sql: "INSERT INTO lists (id, title) VALUES ('l', 'first')")
      }
      try cluster.converge()
      try cluster[1].goOffline()
      try cluster[2].goOffline()
      // B edits first, C later, A last: the order they come back in is the other way round.
      for (hub, title) in [(1, "from b"), (2, "from c"), (0, "from a")] {
        try cluster[hub].todo.write { db in
          try db.execute(sql: "UPDATE lists SET title = ? WHERE id = 'l'", arguments: [title])
        }
        Thread.sleep(forTimeInterval: 0.005)
      }
      try cluster[2].goOnline()
      try cluster[1].goOnline()
      let dump = try cluster.converge()
      #expect(dump.contains("from a"))
    }

    @Test func aHubWhoseClockIsAnHourFastDoesNotWinALaterEditBeyondTheBound() throws {
      let cluster = try SyncCluster(["a"])
      defer { cluster.stop() }
      _ = try SyncServer(cluster.server.conninfo())  // the schema, made now
      try cluster.server.execute("UPDATE hearth.meta SET value = '300' WHERE key = 'maximumDrift'")
      cluster.hubs.append(
        try SyncedHub("fast", server: cluster.server) { $0.syncClockOffset = 3_600_000 })
      try cluster[0].todo.write { db in
        try db.execute(sql: "INSERT INTO lists (id, title) VALUES ('l', 'first')")
      }
      try cluster.converge()
      try cluster[1].todo.write { db in
        try db.execute(sql: "UPDATE lists SET title = 'from the fast clock' WHERE id = 'l'")
      }
      try cluster.converge()
      // Past the bound in real time, an edit on the hub with the right clock wins.
      Thread.sleep(forTimeInterval: 0.6)
      try cluster[0].todo.write { db in
        try db.execute(sql: "UPDATE lists SET title = 'later, in real time' WHERE id = 'l'")
      }
      let dump = try cluster.converge()
      #expect(dump.contains("later, in real time"))
    }

    @Test func anEditMadeAfterSeeingAnotherWinsWhateverTheClocksSay() throws {
      let cluster = try SyncCluster(["right"])
      defer { cluster.stop() }
      let skews: [Int64] = [-90_000, -3_600_000, -86_400_000, 90_000, 3_600_000, 86_400_000]
      for skew in skews {
        cluster.hubs.append(
          try SyncedHub("skew\(skew)", server: cluster.server) { $0.syncClockOffset = skew })
      }
      func title(_ hub: Int, _ id: String) throws -> String? {
        try cluster[hub].todo.read { db in
          try String.fetchOne(db, sql: "SELECT title FROM lists WHERE id = ?", arguments: [id])
        }
      }
      func edit(_ hub: Int, _ id: String, _ title: String) throws {
        try cluster[hub].todo.write { db in
          try db.execute(sql: "UPDATE lists SET title = ? WHERE id = ?", arguments: [title, id])
        }
      }
      for (index, skew) in skews.enumerated() {
        let (skewed, id) = (index + 1, "l\(index)")
        try cluster[0].todo.write { db in
          try db.execute(sql: "INSERT INTO lists (id, title) VALUES (?, 'first')", arguments: [id])
        }
        try cluster.converge()
        // The hub with the right clock edits; the skewed hub sees it, then edits the same
        // column: its edit is the later one, everywhere.
        try edit(0, id, "from the right clock")
        try cluster.converge()
        #expect(try title(skewed, id) == "from the right clock")
        try edit(skewed, id, "then from the skewed clock")
        try cluster.converge()
        for hub in cluster.hubs.indices {
          #expect(try title(hub, id) == "then from the skewed clock", "skew \(skew) ms, hub \(hub)")
        }
        // The other order: the skewed hub first, then the right one.
        try edit(skewed, id, "from the skewed clock")
        try cluster.converge()
        try edit(0, id, "then from the right clock")
        try cluster.converge()
        for hub in cluster.hubs.indices {
          #expect(try title(hub, id) == "then from the right clock", "skew \(skew) ms, hub \(hub)")
        }
      }
    }

    @Test func aDeleteWinsOverAConcurrentEditWhicheverArrivesFirst() throws {
      for deleteFirst in [true, false] {
        let cluster = try SyncCluster(["a", "b"])
        defer { cluster.stop() }
        try cluster[0].todo.write { db in
          try db.execute(sql: "INSERT INTO lists (id, title) VALUES ('l', 'Trip')")
          try db.execute(sql: "INSERT INTO items (id, listID, title) VALUES ('i', 'l', 'tent')")
          try db.execute(sql: "INSERT INTO lists (id, title) VALUES ('other', 'Kept')")
        }
        try cluster.converge()
        // The editor adds a child and edits one while the deleter deletes the parent; the
        // one that stays offline arrives second.
        let (deleter, editor) = (cluster[0], cluster[1])
        try (deleteFirst ? editor : deleter).goOffline()
        try deleter.todo.write { db in try db.execute(sql: "DELETE FROM lists WHERE id = 'l'") }
        try editor.todo.write { db in
          try db.execute(sql: "UPDATE items SET title = 'big tent' WHERE id = 'i'")
          try db.execute(sql: "INSERT INTO items (id, listID, title) VALUES ('new', 'l', 'map')")
          try db.execute(sql: "UPDATE lists SET title = 'Trip!' WHERE id = 'l'")
        }
        try (deleteFirst ? editor : deleter).goOnline()
        let dump = try cluster.converge()
        #expect(!dump.contains("Trip"), "delete first: \(deleteFirst)")
        #expect(!dump.contains("tent") && !dump.contains("map"), "delete first: \(deleteFirst)")
        #expect(dump.contains("Kept"))
      }
    }

    @Test func aRowDeletedThenInsertedAgainUnderItsKeyStays() throws {
      let cluster = try SyncCluster(["a", "b"])
      defer { cluster.stop() }
      try cluster[0].todo.write { db in
        try db.execute(sql: "INSERT INTO lists (id, title) VALUES ('l', 'one')")
      }
      try cluster.converge()
      try cluster[0].todo.write { db in try db.execute(sql: "DELETE FROM lists WHERE id = 'l'") }
      try cluster[0].todo.write { db in
        try db.execute(sql: "INSERT INTO lists (id, title) VALUES ('l', 'again')")
      }
      let dump = try cluster.converge()
      #expect(dump.contains("again"))
      // And in one transaction.
      try cluster[1].todo.write { db in
        try db.execute(sql: "DELETE FROM lists WHERE id = 'l'")
        try db.execute(sql: "INSERT INTO lists (id, title) VALUES ('l', 'third')")
      }
      #expect(try cluster.converge().contains("third"))
    }

    @Test func childrenPulledBeforeTheirParentAcrossAPageBoundaryApplyWithoutAForeignKeyError()
      throws
    {
      // Records of one push share its number and come in name order: "items" before "lists".
      let cluster = try SyncCluster(["a", "b"]) { $0.syncPageSize = 7 }
      defer { cluster.stop() }
      try cluster[0].todo.write { db in
        try db.execute(sql: "INSERT INTO lists (id, title) VALUES ('l', 'Parent')")
        for item in 0..<20 {
          try db.execute(
            sql: "INSERT INTO items (id, listID, title) VALUES (?, 'l', ?)",
            arguments: ["i\(item)", "child \(item)"])
        }
      }
      try cluster.converge()
      #expect(try cluster[1].count("items") == 20)
      #expect(try cluster[1].status()["held"] as? Int == 0)
    }
  }
}
