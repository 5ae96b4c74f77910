import Foundation
import HearthDataTestSupport
import HearthHub
import HearthPlugin
import HearthPostgres
import HearthSQLite
import HearthSync
import HearthTestbed
import HearthWire
import Testing

extension SyncSuites {
  /// The merge rule against its oracle, ties, and hubs on different schemas.
  @Suite(.serialized) struct SyncMergeTests {
    /// C is offline while A and B edit 1,000 rows and C edits 100 of them; once C is back,
    /// every hub has, for each column, the value of the edit with the greatest time — the
    /// times read back in the very transactions that made the edits.
    @Test func aPartitionConvergesToWhatTheMergeRuleAppliedToTheWholeHistoryPredicts() throws {
      let cluster = try SyncCluster(["a", "b", "c"])
      defer { cluster.stop() }
      try cluster[0].todo.write { db in
        try db.execute(sql: "INSERT INTO lists (id, title) VALUES ('l', 'All')")
        for item in 0..<1_000 {
          try db.execute(
            sql: "INSERT INTO items (id, listID, title) VALUES (?, 'l', 'initial')",
            arguments: [Self.key(item)])
        }
      }
      try cluster.converge()
      try cluster[2].goOffline()
      var history: [Edit] = []
      history += try Self.edit(cluster[0], rows: 0..<1_000, set: ["title": "a"])
      history += try Self.edit(cluster[1], rows: 0..<1_000, set: ["done": "1"])
      history += try Self.edit(cluster[1], rows: 500..<1_000, set: ["title": "b"])
      history += try Self.edit(cluster[2], rows: 450..<550, set: ["title": "c", "position": "7"])
      try cluster[2].goOnline()
      try cluster.converge()
      let rows = try cluster[2].todo.read { db in
        try Row.fetchAll(db, sql: "SELECT id, title, done, position FROM items")
      }
      var expected: [String: [String: (time: String, value: String)]] = [:]
      for edit in history
      where SyncRecord.isLater(edit.time, than: expected[edit.key]?[edit.column]?.time) {
        expected[edit.key, default: [:]][edit.column] = (edit.time, edit.value)
      }
      var mismatches: [String] = []
      for row in rows {
        let key: String = try row["id"]
        let initial = ["title": "initial", "done": "0", "position": "0"]
        for column in ["title", "done", "position"] {
          let actual = (try row[column] as DatabaseValue).description.trimmingCharacters(
            in: CharacterSet(charactersIn: "'"))
          let want = expected[key]?[column]?.value ?? initial[column]!
          if actual != want { mismatches.append("\(key).\(column) = \(actual), not \(want)") }
        }
      }
      #expect(rows.count == 1_000)
      #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
      // C's titles are the latest of their rows: C's clock went on past what it had seen.
      #expect(expected[Self.key(500)]?["title"]?.value.hasPrefix("c") == true)
    }

    struct Edit {
      var key: String
      var column: String
      var value: String
      var time: String
    }

    static func key(_ item: Int) -> String { "item-" + String(format: "%04d", item) }

    /// Sets `set`'s columns (value + row number, for text) on `rows` in one transaction, and
    /// reads the times the capture gave them in that same transaction.
    static func edit(_ hub: SyncedHub, rows: Range<Int>, set: [String: String]) throws -> [Edit] {
      try hub.todo.write { db in
        var edits: [Edit] = []
        for item in rows {
          for (column, value) in set.sorted(by: { $0.key < $1.key }) {
            let written = column == "title" ? "\(value)-\(item)" : value
            try db.execute(
              sql: "UPDATE items SET \(column) = ? WHERE id = ?", arguments: [written, key(item)])
          }
        }
        let pending = try Row.fetchAll(
          db, sql: "SELECT pk, pending FROM hearth_sync_rows WHERE tbl = 'items'")
        let wanted = Set(rows.map(key))
        for row in pending {
          let key: String = try row["pk"]
          guard wanted.contains(key) else { continue }
          let times =
            try JSONSerialization.jsonObject(with: Data((try row["pending"] as String).utf8))
            as! [String: String]
          for (column, value) in set {
            let item = Int(key.dropFirst(5))!
            let written = column == "title" ? "\(value)-\(item)" : value
            edits.append(Edit(key: key, column: column, value: written, time: times[column]!))
          }
        }
        return edits
      }
    }

    /// Three hubs push one column of one record with times equal but for the hub, in every
    /// order, over 100 seeded runs: the server keeps the same value every time, the one of
    /// the greatest hub id.
    @Test func tiesAreBrokenTheSameWayWhateverTheOrderOfArrival() throws {
      let postgres = try PostgresServer()
      defer { postgres.stop() }
      let server = try SyncServer(postgres.conninfo())
      var generator = SeededGenerator(seed: 17)
      for run in 0..<100 {
        let milliseconds = Int64(1_700_000_000_000) + Int64(run)
        var hubs = ["hub-a", "hub-b", "hub-c"]
        hubs.shuffle(using: &generator)
        for hub in hubs {
          let time = HybridTimestamp(milliseconds: milliseconds, counter: 3, hub: hub).description
          _ = try server.push(
            [
              SyncRecord(
                type: "lists", name: "tie-\(run)",
                fields: ["title": WireValue(.init(stringLiteral: hub))],
                times: ["title": time], created: time)
            ], hub: hub)
        }
      }
      let records = try server.pull(after: .start, limit: 1_000, hub: "reader")
      #expect(records.count == 100)
      #expect(records.allSatisfy { $0.fields["title"] == WireValue(.init(stringLiteral: "hub-c")) })
    }

    /// A hub is not sent back a record that is exactly what it pushed; it is sent one that
    /// the server merged with another hub's column, or whose time it clamped, and pages
    /// left empty by this still move its cursor to the end.
    @Test func aHubPullsBackOnlyWhatTheServerMadeOfItsPush() throws {
      let postgres = try PostgresServer()
      defer { postgres.stop() }
      let server = try SyncServer(postgres.conninfo())
      func time(_ hub: String, _ offset: Int64 = 0) -> String {
        HybridTimestamp(milliseconds: 1_700_000_000_000 + offset, hub: hub).description
      }
      func record(_ name: String, _ times: [String: String], created: String? = nil)
        -> SyncRecord
      {
        SyncRecord(
          type: "lists", name: name,
          fields: times.mapValues { WireValue(.init(stringLiteral: $0)) }, times: times,
          created: created)
      }
      for index in 0..<10 {
        _ = try server.push(
          [record("own-\(index)", ["title": time("a")], created: time("a"))], hub: "a")
      }
      _ = try server.push(
        [record("merged", ["title": time("a"), "color": time("a")], created: time("a"))],
        hub: "a")
      _ = try server.push([record("merged", ["color": time("b", 5)])], hub: "b")
      _ = try server.push([record("merged", ["title": time("a", 9)])], hub: "a")
      // A day ahead of the server: clamped to its bound.
      let ahead = HybridTimestamp(
        milliseconds: Int64(Date().timeIntervalSince1970 * 1000) + 86_400_000, hub: "a")
      _ = try server.push(
        [record("ahead", ["title": ahead.description], created: ahead.description)], hub: "a")

      var cursor = SyncCursor.start
      var pulled: [SyncRecord] = []
      var pages = 0
      while true {
        let page = try server.pullPage(after: cursor, limit: 4, hub: "a", pushed: .max)
        pulled += page.records
        pages += 1
        if let last = page.last { cursor = last }
        if page.complete { break }
      }
      #expect(Set(pulled.map(\.name)) == ["merged", "ahead"])
      #expect(pulled.first { $0.name == "merged" }?.fields["color"] != nil)
      let clamped = pulled.first { $0.name == "ahead" }?.times["title"] ?? ""
      #expect(!clamped.isEmpty && clamped < ahead.description)
      // Every page was scanned to the end: 12 records in pages of 4, the last one empty.
      #expect(pages == 4)
      #expect(try server.pullPage(after: cursor, limit: 4, hub: "a", pushed: .max).records.isEmpty)
      #expect(try server.pull(after: .start, limit: 100, hub: "b", pushed: .max).count == 12)
      // A hub that does not have its pushes (restored from a backup taken before them, or
      // its local data dropped) is sent them again.
      #expect(try server.pull(after: .start, limit: 100, hub: "a").count == 12)
    }

    /// B adds a column (a newer version of the plugin); A, still on the old schema, edits
    /// the row: B keeps its column's value, and A has it once it upgrades.
    @Test func aHubOnANewerSchemaKeepsItsNewColumnWhenAnOlderHubEditsTheRow() throws {
      let cluster = try SyncCluster(["a", "b"])
      defer { cluster.stop() }
      try cluster[0].todo.write { db in
        try db.execute(sql: "INSERT INTO lists (id, title) VALUES ('l', 'List')")
        try db.execute(sql: "INSERT INTO items (id, listID, title) VALUES ('i', 'l', 'old title')")
      }
      try cluster.converge()
      let newer = PluginRegistration(
        name: "todo", version: "2", tables: ["lists", "items"],
        migrations: todoPlugin.migrations + [
          .init(
            id: "2",
            sql: "ALTER TABLE items ADD COLUMN notes TEXT NOT NULL ON CONFLICT REPLACE DEFAULT ''")
        ])
      try cluster[1].upgrade(to: newer)
      try cluster[1].todo.write { db in
        try db.execute(sql: "UPDATE items SET notes = 'bring a bag' WHERE id = 'i'")
      }
      try eventually { try cluster.isSettled() }
      try cluster[0].todo.write { db in
        try db.execute(sql: "UPDATE items SET title = 'new title' WHERE id = 'i'")
      }
      try eventually {
        try cluster.isSettled()
          && cluster[1].todo.read { db in
            try String.fetchOne(db, sql: "SELECT title || ', ' || notes FROM items WHERE id = 'i'")
          } == "new title, bring a bag"
      }
      try cluster[0].upgrade(to: newer)
      let notes = try cluster[0].todo.read { db in
        try String.fetchOne(db, sql: "SELECT notes FROM items WHERE id = 'i'")
      }
      #expect(notes == "bring a bag")
      try cluster.converge()
    }
  }
}
