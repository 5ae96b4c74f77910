import Foundation
import HearthDataTestSupport
import HearthHub
import HearthPlugin
import HearthPostgres
import HearthSQLite
import HearthTestbed
import HearthWire
import Testing

extension SyncSuites {
  /// Three hearthd processes and one server under seeded random work: lists and items made,
  /// edited and deleted on every hub while hubs drop off the server and come back. Bounded
  /// (a fixed number of steps); at the end every hub has the same rows, `hearth sync verify`
  /// finds each equal to the server, and no hub logged an error or a warning.
  @Suite(.serialized) struct SyncSoakTests {
    @Test(arguments: [7 as UInt64, 2026])
    func randomWorkAndPartitionsEndWithEqualDumpsAndCleanLogs(seed: UInt64) throws {
      let server = try PostgresServer()
      defer { server.stop() }
      let hubs = try ["a", "b", "c"].map { try SyncingHubProcess($0, server: server) }
      defer { for hub in hubs { hub.stopAndRemove() } }
      var random = SeededGenerator(seed: seed)
      var online = [true, true, true]
      var lists: [String] = []
      var items: [String] = []
      for step in 0..<240 {
        let index = Int.random(in: 0..<3, using: &random)
        let hub = hubs[index]
        if Int.random(in: 0..<20, using: &random) == 0 {
          online[index].toggle()
          try hub.restart(online: online[index])
          continue
        }
        let roll = Int.random(in: 0..<100, using: &random)
        let key = "k\(seed)-\(step)"
        let list = lists.randomElement(using: &random)
        let item = items.randomElement(using: &random)
        try hub.todo.write { db in
          switch roll {
          case 0..<15:
            try db.execute(
              sql: "INSERT INTO lists (id, title) VALUES (?, ?)", arguments: [key, "list \(step)"])
            lists.append(key)
          case 15..<50 where list != nil:
            // A list another hub may have deleted meanwhile: then nothing is inserted.
            try db.execute(
              sql: "INSERT INTO items (id, listID, title) SELECT ?, id, ? FROM lists WHERE id = ?",
              arguments: [key, "item \(step)", list])
            items.append(key)
          case 50..<75 where item != nil:
            try db.execute(
              sql: "UPDATE items SET title = ? WHERE id = ?", arguments: ["edit \(step)", item])
          case 75..<88 where item != nil:
            try db.execute(
              sql: "UPDATE items SET done = 1 - done, position = ? WHERE id = ?",
              arguments: [step, item])
          case 88..<95 where item != nil:
            try db.execute(sql: "DELETE FROM items WHERE id = ?", arguments: [item])
          case 95..<100 where list != nil:
            try db.execute(sql: "DELETE FROM lists WHERE id = ?", arguments: [list])
          default:
            try db.execute(
              sql: "UPDATE lists SET color = color + 1 WHERE id = ?", arguments: [list ?? ""])
          }
        }
      }
      for (index, hub) in hubs.enumerated() where !online[index] { try hub.restart(online: true) }
      try converge(hubs, server: server, timeout: .seconds(90))
      // Each hub, checked against the server: equal, row for row.
      for hub in hubs {
        let verify = try FeatureCLI("hearth", hub: hub.process)("sync", "verify")
        #expect(verify.status == 0, "\(hub.name): \(verify.output) \(verify.errors)")
        #expect(verify.output.hasPrefix("hearth/default: equal, "), "\(verify.output)")
      }
      for hub in hubs {
        let complaints = hub.logLines.filter {
          $0.contains(": error: ") || $0.contains(": warning: ")
        }
        #expect(complaints.isEmpty, "\(complaints.prefix(3))")
      }
      #expect(try hubs[0].count("lists") > 0)
    }
  }
}
