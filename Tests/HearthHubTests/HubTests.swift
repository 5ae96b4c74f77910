import Foundation
import HearthData
import HearthDataTestSupport
import HearthHub
import HearthPlugin
import HearthTestbed
import HearthWire
import Synchronization
import Testing

@Table
struct Note: Identifiable, Equatable, Sendable {
  let id: Int
  var text = ""
}

@Table
struct Fact: Identifiable, Equatable, Sendable {
  let id: Int
  var body = ""
}

let notesPlugin = PluginRegistration(
  name: "notes", version: "1.0", tables: ["notes"],
  migrations: [
    .init(
      id: "1",
      sql: #"CREATE TABLE "notes" ("id" INTEGER PRIMARY KEY, "text" TEXT NOT NULL DEFAULT '')"#)
  ])

func factsPlugin() throws -> PluginRegistration {
  var migrator = DatabaseMigrator()
  migrator.registerMigration("Create facts") { db in
    try #sql(
      #"CREATE TABLE "facts" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "body" TEXT NOT NULL)"#
    )
    .execute(db)
  }
  return try PluginRegistration(
    name: "facts", version: "1.0", tables: ["facts"], migrator: migrator)
}

@Suite(.serialized) struct HubTests {
  @Test func pluginsRegisterWriteAndSeeEachOthersChanges() throws {
    let running = try RunningHub()
    defer {
      running.stop()
      running.removeFiles()
    }
    let notes = try HubDatabase.registered(notesPlugin, paths: running.paths)
    let facts = try HubDatabase.registered(try factsPlugin(), paths: running.paths)

    @FetchAll(Note.order(by: \.id), database: facts, scheduler: .immediate) var notesSeenByFacts
    @FetchAll(Fact.all, database: notes, scheduler: .immediate) var factsSeenByNotes
    #expect(notesSeenByFacts.isEmpty && factsSeenByNotes.isEmpty)

    let id = try notes.write { db in
      try Note.insert { Note(id: 1, text: "hello") }.execute(db)
      // Reads inside the write see its own writes.
      #expect(try Note.fetchCount(db) == 1)
      return db.lastInsertedRowID
    }
    #expect(id == 1)
    try facts.write { db in try Fact.insert { Fact.Draft(body: "42 is the answer") }.execute(db) }

    eventually { notesSeenByFacts.map(\.text) == ["hello"] }
    eventually { factsSeenByNotes.map(\.body) == ["42 is the answer"] }
    #expect(notes.lastCommittedSequence > 0)

    // One plugin cannot write the other's tables; nothing of that transaction stays.
    let refusal = try #require(throws: DatabaseError.self) {
      try facts.write { db in
        try Fact.insert { Fact.Draft(body: "would be rolled back") }.execute(db)
        try Note.insert { Note(id: 2, text: "not yours") }.execute(db)
      }
    }
    // One error type for a plugin: the hub's rule in `hubCode`, SQLite's authorization code,
    // the failing statement.
    #expect(refusal.hubCode == .unauthorized)
    #expect(refusal.resultCode == .SQLITE_AUTH)
    #expect(refusal.message?.contains("does not own table notes") == true)
    #expect(refusal.sql?.hasPrefix("INSERT INTO \"notes\"") == true)
    #expect(try facts.read { try Fact.fetchCount($0) } == 1)
    #expect(try facts.read { try Note.fetchCount($0) } == 1)
  }

  @Test func aRetriedRequestIsAnsweredOnceFromTheRecord() throws {
    let running = try RunningHub()
    defer {
      running.stop()
      running.removeFiles()
    }
    _ = try HubDatabase.registered(notesPlugin, paths: running.paths)
    let client = try RawClient(running.paths, as: "notes")
    let request = #"""
      {"v":1,"type":"transaction","id":"once-1","plugin":"notes","part":0,"end":"commit",
       "statements":[{"sql":"INSERT INTO notes (text) VALUES (?)","args":[{"text":"once"}]}]}
      """#
    let first = try client.send(request)
    #expect(first["type"] as? String == "committed")
    #expect(first["duplicate"] == nil)
    let second = try client.send(request)
    #expect(second["type"] as? String == "committed")
    #expect(second["duplicate"] as? Bool == true)
    #expect(second["seq"] as? Int == first["seq"] as? Int)
    let count = try DatabaseQueue(path: running.paths.databasePath).read {
      try Int.fetchOne($0, sql: "SELECT count(*) FROM notes WHERE text = 'once'")
    }
    #expect(count == 1)
  }

  @Test func malformedFramesGetTypedErrorsAndTheHubStaysUp() throws {
    let running = try RunningHub { $0.maximumMessageSize = 1_000 }
    defer {
      running.stop()
      running.removeFiles()
    }
    let client = try RawClient(running.paths, as: "ghost")
    let cases: [(Data, String)] = [
      (Data("garbage".utf8), "malformed"),
      (Data([0xFF, 0xFE, 0x00]), "malformed"),
      (Data(#"{"v":2,"type":"hello","id":"x"}"#.utf8), "unsupportedVersion"),
      (Data(#"{"v":1,"type":"dance","id":"x"}"#.utf8), "unknownType"),
      (Data(#"{"v":1,"type":"transaction","id":"x","plugin":7}"#.utf8), "malformed"),
      (
        Data(#"{"v":1,"type":"transaction","id":"x","plugin":"ghost","statements":[]}"#.utf8),
        "notRegistered"
      ),
      (
        Data(
          #"{"v":1,"type":"transaction","id":"y","plugin":"ghost","part":3,"statements":[]}"#.utf8),
        "unknownTransaction"
      ),
      (Data(repeating: UInt8(ascii: "x"), count: 2_000), "tooLarge"),
    ]
    for (frame, code) in cases {
      let reply = try #require(try client.sendRaw([frame]))
      #expect(reply["type"] as? String == "error")
      #expect(
        reply["code"] as? String == code, "\(String(decoding: frame.prefix(40), as: UTF8.self))")
    }
    let multiframe = try #require(try client.sendRaw([Data("{}".utf8), Data("{}".utf8)]))
    #expect(multiframe["code"] as? String == "malformed")
    let hello = try client.send(#"{"v":1,"type":"hello","id":"h"}"#)
    #expect(hello["type"] as? String == "welcome")
    #expect(hello["hub"] as? String == running.hub.instanceID)
  }

  @Test func aPartResentOrOutOfOrderIsRefusedAndRunsNothing() throws {
    let running = try RunningHub()
    defer { running.stopAndRemove() }
    let notes = try HubDatabase.registered(notesPlugin, paths: running.paths)
    let client = try RawClient(running.paths, as: "notes")
    func part(_ number: Int, end: String? = nil) throws -> [String: Any] {
      let ending = end.map { #","end":"\#($0)""# } ?? ""
      return try client.send(
        #"{"v":1,"type":"transaction","id":"t","plugin":"notes","part":\#(number)\#(ending),"#
          + #""statements":[{"sql":"INSERT INTO notes (text) VALUES ('p\#(number)')"}]}"#)
    }
    #expect(try part(0)["type"] as? String == "results")
    // Part 0 again (as after a lost reply), then a part from the future.
    for (number, expected) in [(0, 1), (2, 1)] {
      let refused = try part(number)
      #expect(refused["code"] as? String == "malformed")
      #expect(
        refused["message"] as? String
          == "transaction t is at part \(expected), not \(number); roll it back (end: rollback, "
          + "part \(expected)) and run it again")
    }
    #expect(try part(1, end: "commit")["type"] as? String == "committed")
    let texts = try notes.read {
      try String.fetchAll($0, sql: "SELECT text FROM notes ORDER BY id")
    }
    #expect(texts == ["p0", "p1"])
    // A rollback is taken at any part (a client that lost count may always drop it).
    let begun = try client.send(
      #"{"v":1,"type":"transaction","id":"u","plugin":"notes","part":0,"#
        + #""statements":[{"sql":"INSERT INTO notes (text) VALUES ('dropped')"}]}"#)
    #expect(begun["type"] as? String == "results")
    let dropped = try client.send(
      #"{"v":1,"type":"transaction","id":"u","plugin":"notes","part":7,"end":"rollback","statements":[]}"#
    )
    #expect(dropped["rolledBack"] as? Bool == true)
    #expect(try notes.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM notes") } == 2)
  }

  @Test func aSilentClientIsRolledBackAndOthersContinue() throws {
    let running = try RunningHub { $0.transactionTimeout = .milliseconds(300) }
    defer {
      running.stop()
      running.removeFiles()
    }
    let notes = try HubDatabase.registered(notesPlugin, paths: running.paths)
    let silent = try RawClient(running.paths, as: "notes")
    let opened = try silent.send(
      #"""
      {"v":1,"type":"transaction","id":"silent","plugin":"notes","part":0,
       "statements":[{"sql":"INSERT INTO notes (text) VALUES ('half')"}]}
      """#)
    #expect(opened["type"] as? String == "results")
    // This write waits for the writer, then goes through once the silent one times out.
    try notes.write { db in try Note.insert { Note.Draft(text: "after") }.execute(db) }
    let texts = try notes.read { try Note.order(by: \.id).fetchAll($0).map(\.text) }
    #expect(texts == ["after"])
    let late = try silent.send(
      #"""
      {"v":1,"type":"transaction","id":"silent","plugin":"notes","part":1,"end":"commit","statements":[]}
      """#)
    #expect(late["code"] as? String == "timeout")
  }

  @Test func aStoppedSubscriberCatchesUpFromTheFeed() throws {
    let running = try RunningHub()
    defer {
      running.stop()
      running.removeFiles()
    }
    let notes = try HubDatabase.registered(notesPlugin, paths: running.paths)
    try notes.write { db in try Note.insert { Note.Draft(text: "before") }.execute(db) }
    let start = running.hub.lastSequence
    let client = try RawClient(running.paths)
    for index in 0..<5 {
      try notes.write { db in try Note.insert { Note.Draft(text: "n\(index)") }.execute(db) }
    }
    let reply = try client.send(#"{"v":1,"type":"changes","id":"c","since":\#(start)}"#)
    let commits = try #require(reply["commits"] as? [[String: Any]])
    #expect(commits.map { $0["seq"] as? Int } == (1...5).map { Int(start) + $0 })
    #expect(reply["seq"] as? Int == Int(running.hub.lastSequence))
    let first = try #require(commits.first?["tables"] as? [String: [String: Any]])
    #expect((first["notes"]?["inserted"] as? [Int])?.count == 1)
    #expect(first["notes"]?["updatedColumns"] == nil)

    // The feed names the columns an update changed.
    try notes.write { db in
      try Note.update { $0.text = "edited" }.where { $0.text == "n0" }.execute(db)
    }
    let edit = try client.send(
      #"{"v":1,"type":"changes","id":"e","since":\#(running.hub.lastSequence - 1)}"#)
    let edited = try #require(
      (edit["commits"] as? [[String: Any]])?.first?["tables"] as? [String: [String: Any]])
    #expect(edited["notes"]?["updatedColumns"] as? [String] == ["text"])
    let updated = try #require(edited["notes"]?["updated"] as? [Int])
    #expect(updated.count == 1)
    // … and, row by row, which columns each updated row changed.
    #expect(
      edited["notes"]?["rowColumns"] as? [String: [String]] == ["\(updated[0])": ["text"]])
    // A plugin's observers get them as the SQLite layer reports them.
    let observed = Locked<[DatabaseChanges]>([])
    let observation = notes.observeCommits { changes in observed.withLock { $0.append(changes) } }
    defer { observation.cancel() }
    try notes.write { db in
      try Note.update { $0.text = "again" }.where { $0.text == "n1" }.execute(db)
    }
    eventually { observed.withLock { !$0.isEmpty } }
    let byRow = observed.withLock { $0.last?.tables["notes"]?.updatedColumnsByRow }
    #expect(byRow?.values.map { $0 } == [["text"]])

    // A table whose key is not the rowid: each row is named by its key too, a deleted one
    // by the key it had.
    let lists = try HubDatabase.registered(
      PluginRegistration(
        name: "lists", version: "1", tables: ["lists"],
        migrations: [
          .init(id: "1", sql: "CREATE TABLE lists (id TEXT PRIMARY KEY NOT NULL, title TEXT)")
        ]), paths: running.paths)
    try lists.write { db in
      try db.execute(sql: "INSERT INTO lists VALUES ('9f2c', 'Home'), ('77ab', 'Work')")
    }
    try lists.write { db in
      try db.execute(sql: "UPDATE lists SET title = 'Office' WHERE id = '77ab'")
      try db.execute(sql: "DELETE FROM lists WHERE id = '9f2c'")
    }
    let keyed = try client.send(
      #"{"v":1,"type":"changes","id":"k","since":\#(running.hub.lastSequence - 1)}"#)
    let table = try #require(
      ((keyed["commits"] as? [[String: Any]])?.first?["tables"] as? [String: [String: Any]])?[
        "lists"])
    let keys = try #require(table["keys"] as? [String: [[String: String]]])
    #expect(Set(keys.values.map { $0 }) == [[["text": "77ab"]], [["text": "9f2c"]]])
    let deleted = try #require((table["deleted"] as? [Int])?.first)
    #expect(keys["\(deleted)"] == [["text": "9f2c"]])
  }

  @Test func theSequenceOutlivesAFeedPrunedEmpty() throws {
    let first = try RunningHub()
    defer { first.removeFiles() }
    let notes = try HubDatabase.registered(notesPlugin, paths: first.paths)
    for index in 0..<3 {
      try notes.write { db in try Note.insert { Note.Draft(text: "n\(index)") }.execute(db) }
    }
    let last = first.hub.lastSequence
    #expect(last == 4)  // the registration, then three writes
    first.stop()

    // A retention of zero: the start-up pruning empties the feed.
    let pruning = try RunningHub(directory: first.directory) { $0.feedRetention = .zero }
    let entries = try DatabaseQueue(path: first.paths.databasePath).read { db in
      try Int.fetchOne(db, sql: "SELECT count(*) FROM hearth_commits")
    }
    #expect(entries == 0)
    #expect(pruning.hub.lastSequence == last)
    pruning.stop()

    // Started again over the empty feed, the hub goes on from where it was.
    let again = try RunningHub(directory: first.directory)
    defer { again.stop() }
    #expect(again.hub.lastSequence == last)
    let writer = try HubDatabase.registered(notesPlugin, paths: again.paths)
    try writer.write { db in try Note.insert { Note.Draft(text: "after") }.execute(db) }
    #expect(writer.lastCommittedSequence == last + 1)
  }

  @Test func theFeedIsPrunedPastTheSlowestRegisteredCursorOnly() throws {
    let running = try RunningHub {
      $0.feedKeepRecent = 2
      $0.pruneInterval = .milliseconds(50)
    }
    defer {
      running.stop()
      running.removeFiles()
    }
    let client = try RawClient(running.paths, as: "watcher")
    let registered = try client.send(
      #"{"v":1,"type":"register","id":"r","plugin":"watcher","version":"1","tables":[],"migrations":[]}"#
    )
    #expect(registered["type"] as? String == "registered")
    #expect(
      try client.send(#"{"v":1,"type":"cursor","id":"k0","plugin":"watcher","seq":0}"#)["type"]
        as? String == "cursorSaved")

    let notes = try HubDatabase.registered(notesPlugin, paths: running.paths)
    for index in 0..<10 {
      try notes.write { db in try Note.insert { Note.Draft(text: "n\(index)") }.execute(db) }
    }
    let last = running.hub.lastSequence
    func horizon() throws -> Int64 {
      Int64(
        try #require(
          client.send(#"{"v":1,"type":"changes","id":"h","since":0}"#)["horizon"] as? Int))
    }
    func cursor(_ plugin: String) throws -> Int64? {
      try notes.read { db in
        try Int64.fetchOne(
          db, sql: "SELECT seq FROM hearth_cursors WHERE plugin = ?", arguments: [plugin])
      }
    }
    // The plugin's own database reports how far its observers have read.
    eventually { (try? cursor("notes")) == last }
    // The watcher has read nothing: the whole feed stays.
    Thread.sleep(forTimeInterval: 0.2)
    #expect(try horizon() == 1)

    let partly = try client.send(
      #"{"v":1,"type":"cursor","id":"k1","plugin":"watcher","seq":\#(last - 5)}"#)
    #expect(partly["type"] as? String == "cursorSaved")
    eventually { (try? horizon()) == last - 4 }

    // Everyone has read everything: the newest `feedKeepRecent` entries stay.
    _ = try client.send(#"{"v":1,"type":"cursor","id":"k2","plugin":"watcher","seq":\#(last)}"#)
    eventually { (try? horizon()) == last - 1 }
    let stillHeld = try client.send(#"{"v":1,"type":"changes","id":"c","since":\#(last - 2)}"#)
    #expect((stillHeld["commits"] as? [Any])?.count == 2)

    let stranger = try RawClient(running.paths, as: "nobody")
      .send(#"{"v":1,"type":"cursor","id":"k3","plugin":"nobody","seq":0}"#)
    #expect(stranger["code"] as? String == "notRegistered")
    // Another plugin's cursor is refused: the connection's key is the watcher's.
    let other = try client.send(#"{"v":1,"type":"cursor","id":"k5","plugin":"notes","seq":0}"#)
    #expect(other["code"] as? String == "unauthorized")
    let ahead = try client.send(
      #"{"v":1,"type":"cursor","id":"k4","plugin":"watcher","seq":\#(last + 1)}"#)
    #expect(ahead["code"] as? String == "malformed")
  }

  @Test func migrationsMayTouchOnlyTheirOwnTables() throws {
    let running = try RunningHub()
    defer {
      running.stop()
      running.removeFiles()
    }
    _ = try HubDatabase.registered(notesPlugin, paths: running.paths)
    let thief = PluginRegistration(
      name: "thief", version: "1", tables: ["loot"],
      migrations: [.init(id: "1", sql: "CREATE TABLE loot (x); DROP TABLE notes")])
    let error = try #require(throws: DatabaseError.self) {
      _ = try HubDatabase.registered(thief, paths: running.paths)
    }
    #expect(error.hubCode == .unauthorized)
    #expect(
      try DatabaseQueue(path: running.paths.databasePath).read { try $0.tableExists("notes") })
    #expect(
      try !DatabaseQueue(path: running.paths.databasePath).read { try $0.tableExists("loot") })
    let squatter = PluginRegistration(
      name: "squatter", version: "1", tables: ["notes"], migrations: [])
    let conflict = try #require(throws: DatabaseError.self) {
      _ = try HubDatabase.registered(squatter, paths: running.paths)
    }
    #expect(conflict.message?.contains("belongs to plugin notes") == true)
  }
}
