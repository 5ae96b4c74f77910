import Foundation
import HearthDataTestSupport
import HearthHub
import HearthPlugin
import HearthSQLite
import HearthTestbed
import HearthWire
import Testing

/// Sync between hubs through a real PostgreSQL server (initdb + pg_ctl in a temporary
/// directory), each hub its own database and runtime directory.
@Suite(.serialized) struct SyncTests {
  @Test func rowsMadeOnOneHubAppearOnTheOthers() throws {
    let cluster = try SyncCluster(["a", "b", "c"])
    defer { cluster.stop() }
    try cluster[0].todo.write { db in
      for list in 0..<5 {
        try db.execute(
          sql: "INSERT INTO lists (id, title) VALUES (?, ?)",
          arguments: ["list-\(list)", "List \(list)"])
        for item in 0..<20 {
          try db.execute(
            sql: "INSERT INTO items (id, listID, title, position) VALUES (?, ?, ?, ?)",
            arguments: ["item-\(list)-\(item)", "list-\(list)", "Item \(item)", item])
        }
      }
    }
    let dump = try cluster.converge()
    #expect(dump.contains("Item 19"))
    #expect(try cluster[2].count("items") == 100)
  }
}
