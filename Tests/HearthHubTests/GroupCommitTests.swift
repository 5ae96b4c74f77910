import Foundation
import HearthData
import HearthDataTestSupport
import HearthHub
import HearthPlugin
import HearthTestbed
import HearthWire
import Synchronization
import Testing

@Suite struct GroupCommitTests {
  /// A hub with plugin `g` registered: its table `g_rows (id, v UNIQUE)`.
  static func hubWithPluginG() throws -> RunningHub {
    let running = try RunningHub()
    do {
      _ = try HubDatabase.registered(
        PluginRegistration(
          name: "g", version: "1", tables: ["g_rows"],
          migrations: [
            .init(id: "1", sql: "CREATE TABLE g_rows (id INTEGER PRIMARY KEY, v TEXT UNIQUE)")
          ]),
        paths: running.paths)
    } catch {
      running.stop()
      running.removeFiles()
      throw error
    }
    return running
  }

  @Test func transactionsThatArriveTogetherShareACommitButNotTheirFailures() throws {
    let running = try Self.hubWithPluginG()
    defer {
      running.stop()
      running.removeFiles()
    }
    let start = running.hub.lastSequence
    let slow = try RawClient(running.paths, as: "g")
    let clients = try (0..<4).map { _ in try RawClient(running.paths, as: "g") }
    // While the hub works on a slow transaction, four one-message transactions arrive: the
    // hub takes them in one burst.
    try slow.socket.send([
      Data(
        #"{"v":1,"type":"transaction","id":"slow","plugin":"g","part":0,"end":"commit","statements":[{"sql":"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000) SELECT count(*) FROM c","rows":true}]}"#
          .utf8)
    ])
    Thread.sleep(forTimeInterval: 0.05)
    for (index, value) in ["b", "dup", "dup", "e"].enumerated() {
      try clients[index].socket.send([
        Data(
          #"{"v":1,"type":"transaction","id":"g\#(index)","plugin":"g","part":0,"end":"commit","statements":[{"sql":"INSERT INTO g_rows (v) VALUES (?)","args":[{"text":"\#(value)"}]}]}"#
            .utf8)
      ])
    }
    func reply(_ client: RawClient) throws -> [String: Any] {
      let frames = try #require(try client.socket.receive(timeout: .seconds(10)))
      return try JSONSerialization.jsonObject(with: frames.last!) as! [String: Any]
    }
    #expect(try reply(slow)["type"] as? String == "committed")
    let replies = try clients.map(reply)
    // The two "dup" inserts arrive in either order (ROUTER queues each connection fairly):
    // one commits, the other fails alone.
    #expect(
      replies[0]["type"] as? String == "committed" && replies[3]["type"] as? String == "committed")
    let duplicates = [replies[1], replies[2]]
    #expect(duplicates.filter { $0["type"] as? String == "committed" }.count == 1)
    #expect(duplicates.filter { $0["code"] as? String == "sqlite" }.count == 1)
    #expect(running.hub.groupCommitCount >= 1)
    let seqs = replies.compactMap { $0["seq"] as? Int }
    #expect(Set(seqs).count == 3)
    #expect(seqs.sorted() == [Int(start) + 1, Int(start) + 2, Int(start) + 3])
    let database = try DatabaseQueue(path: running.paths.databasePath)
    try database.read { db in
      #expect(try String.fetchAll(db, sql: "SELECT v FROM g_rows ORDER BY v") == ["b", "dup", "e"])
      let requests = try String.fetchAll(
        db, sql: "SELECT request FROM hearth_commits WHERE seq > ? ORDER BY seq", arguments: [start]
      )
      #expect(requests.count == 3 && requests.contains("g0") && requests.contains("g3"))
    }
  }

  /// A transaction alone in its commit runs without a savepoint: when its second statement
  /// fails, its first is undone too, it takes no sequence number and leaves no record, and
  /// the same id sent again runs anew.
  @Test func aLoneTransactionThatFailsLeavesNothing() throws {
    let running = try Self.hubWithPluginG()
    defer {
      running.stop()
      running.removeFiles()
    }
    let start = running.hub.lastSequence
    let client = try RawClient(running.paths, as: "g")
    func send(_ id: String, _ values: [String]) throws -> [String: Any] {
      let statements = values.map {
        #"{"sql":"INSERT INTO g_rows (v) VALUES (?)","args":[{"text":"\#($0)"}]}"#
      }
      try client.socket.send([
        Data(
          #"{"v":1,"type":"transaction","id":"\#(id)","plugin":"g","part":0,"end":"commit","statements":[\#(statements.joined(separator: ","))]}"#
            .utf8)
      ])
      let frames = try #require(try client.socket.receive(timeout: .seconds(10)))
      return try JSONSerialization.jsonObject(with: frames.last!) as! [String: Any]
    }
    let failed = try send("lone", ["a", "a"])
    #expect(failed["code"] as? String == "sqlite" && failed["statement"] as? Int == 1)
    let database = try DatabaseQueue(path: running.paths.databasePath)
    let left = try database.read { db in
      (
        try Int.fetchOne(db, sql: "SELECT count(*) FROM g_rows"),
        try Int.fetchOne(db, sql: "SELECT count(*) FROM hearth_requests WHERE id = 'lone'")
      )
    }
    #expect(left.0 == 0 && left.1 == 0)
    #expect(running.hub.lastSequence == start)
    let committed = try send("lone", ["a", "b"])
    #expect(committed["type"] as? String == "committed")
    #expect(committed["seq"] as? Int == Int(start) + 1 && committed["duplicate"] == nil)
    let values = try database.read { db in
      try String.fetchAll(db, sql: "SELECT v FROM g_rows ORDER BY v")
    }
    #expect(values == ["a", "b"])
  }
}
