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
    /// order, over 100 seeded runs: the zone merges to the same value every time, the one of
    /// the greatest hub id, and so does a hub that pulls the pushes.
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
          try server.push(
            [
              SyncRecord(
                type: "lists", name: "tie-\(run)",
                fields: ["title": WireValue(.init(stringLiteral: hub))],
                times: ["title": time], created: time)
            ], hub: hub)
        }
      }
      let titles = try server.connection.execute(
        "SELECT fields ->> 'title' FROM hearth.merged($1)",
        [server.zone]
      ).rows.map { $0[0] ?? nil }
      #expect(titles.count == 100)
      #expect(titles.allSatisfy { $0 == #"{"text": "hub-c"}"# })
      // Every push comes to a hub that pulls, in the order they arrived: it merges them
      // to the same values.
      #expect(try server.pull(after: .start, limit: 1_000, hub: "reader").count == 300)
      let hub = try SyncedHub("reader", server: postgres)
      defer { hub.stopAndRemove() }
      try eventually(timeout: .seconds(30)) { try hub.count("lists") == 100 }
      let pulled = try hub.todo.read { db in
        try String.fetchAll(db, sql: "SELECT title FROM lists ORDER BY id")
      }
      #expect(pulled == Array(repeating: "hub-c", count: 100))
    }

    /// A hub that does not sync a table yet holds what it pulls of it; a row's records
    /// from several pushes, each of some columns, merge while held, so that once the table
    /// is synced the row has every column's latest value, whatever order they came in.
    @Test func aRowsHeldRecordsMergeUntilItsTableIsSynced() throws {
      let postgres = try PostgresServer()
      defer { postgres.stop() }
      let server = try SyncServer(postgres.conninfo())
      let hub = try SyncedHub("reader", server: postgres, syncing: [])
      defer { hub.stopAndRemove() }
      func time(_ offset: Int64, _ hub: String) -> String {
        HybridTimestamp(milliseconds: 1_700_000_000_000 + offset, hub: hub).description
      }
      let text = { (text: String) in WireValue(.init(stringLiteral: text)) }
      try server.push(
        [
          SyncRecord(
            type: "lists", name: "l",
            fields: ["title": text("second"), "color": .init(.init(integerLiteral: 1))],
            times: ["title": time(5, "a"), "color": time(5, "a")], created: time(5, "a"))
        ], hub: "a")
      try server.push(
        [
          SyncRecord(
            type: "lists", name: "l", fields: ["color": .init(.init(integerLiteral: 7))],
            times: ["color": time(9, "b")])
        ],
        hub: "b")
      try server.push(
        [
          SyncRecord(
            type: "lists", name: "l", fields: ["title": text("first")],
            times: ["title": time(1, "c")])
        ],
        hub: "c")
      try eventually(timeout: .seconds(30)) {
        try hub.status()["held"] as? Int == 1 && hub.status()["pulled"] as? Int == 3
      }
      try hub.sync(["lists", "items"])
      try eventually(timeout: .seconds(30)) { try hub.count("lists") == 1 }
      let row = try hub.todo.read { db in
        try Row.fetchOne(db, sql: "SELECT title, color FROM lists WHERE id = 'l'")
      }
      #expect(try row?["title"] as String? == "second")
      #expect(try row?["color"] as Int? == 7)
    }

    /// A hub is not sent back its own pushes while it says it has them (its last
    /// acknowledged push is at or past them); it is sent every other hub's, with their times
    /// read under each push's bound, and pages left empty by this still move its cursor.
    @Test func aHubPullsBackOnlyWhatOthersPushed() throws {
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
        try server.push(
          [record("own-\(index)", ["title": time("a")], created: time("a"))], hub: "a")
      }
      try server.push(
        [record("merged", ["title": time("a"), "color": time("a")], created: time("a"))],
        hub: "a")
      try server.push([record("merged", ["color": time("b", 5)])], hub: "b")
      try server.push([record("merged", ["title": time("a", 9)])], hub: "a")
      // A day ahead of the server: read as the push's bound.
      let ahead = HybridTimestamp(
        milliseconds: Int64(Date().timeIntervalSince1970 * 1000) + 86_400_000, hub: "a")
      let pushed = try server.push(
        [record("ahead", ["title": ahead.description], created: ahead.description)], hub: "a")
      #expect(pushed.bound < ahead.milliseconds)

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
      #expect(pulled.map(\.name) == ["merged"])
      #expect(pulled.first?.fields["color"] != nil && pulled.first?.fields["title"] == nil)
      // Every push was paged through: 14 records in pages of 4, the last one short.
      #expect(pages == 4)
      #expect(try server.pullPage(after: cursor, limit: 4, hub: "a", pushed: .max).records.isEmpty)
      let others = try server.pull(after: .start, limit: 100, hub: "b", pushed: .max)
      #expect(others.count == 13)
      let clamped = others.first { $0.name == "ahead" }?.times["title"]
      #expect(clamped.flatMap(HybridTimestamp.init)?.milliseconds == pushed.bound)
      // A hub that does not have its pushes (restored from a backup taken before them, or
      // its local data dropped) is sent them again.
      #expect(try server.pull(after: .start, limit: 100, hub: "a").count == 14)
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
