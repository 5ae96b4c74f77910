import Foundation
import HearthDataTestSupport
import HearthPlugin
import HearthPostgres
import HearthSQLite
import HearthTestbed
import HearthWire
import Testing

extension SyncSuites {
  /// The four features on two devices (two hearthd processes, one PostgreSQL), driven by
  /// their own command lines as a person would: what one device does, the other shows.
  @Suite(.serialized) struct FeatureSyncTests {
    /// The features' synced tables, as every device must hold them.
    static let tables = [
      "remindersLists", "reminders", "tags", "remindersTags", "syncUps", "attendees", "meetings",
      "facts", "dailyFacts", "attachments",
    ]

    static func dump(_ peer: SyncingHubProcess) throws -> String {
      try peer.todo.read { db in
        try tables.map { table in
          let key = table == "tags" ? "title" : table == "dailyFacts" ? "day" : "id"
          let rows = try Row.fetchAll(
            db, sql: "SELECT * FROM \(quoteIdentifier(table)) ORDER BY \(quoteIdentifier(key))")
          return "\(table): " + rows.map(\.description).joined(separator: "; ")
        }
        .joined(separator: "\n")
      }
    }

    /// Waits until both hubs have pushed and pulled everything and hold the same rows.
    func converge(_ peers: [SyncingHubProcess], server: PostgresServer) throws -> String {
      var dumps: [String] = []
      let deadline = ContinuousClock.now + .seconds(60)
      while ContinuousClock.now < deadline {
        if try isSettled(peers, server: server) {
          dumps = try peers.map(Self.dump)
          if Set(dumps).count == 1 { return dumps[0] }
        }
        Thread.sleep(forTimeInterval: 0.05)
      }
      Issue.record("the features did not converge: \(dumps)")
      return ""
    }

    @Test func whatOneDeviceDoesTheOtherShows() throws {
      let server = try PostgresServer()
      defer { server.stop() }
      let (a, b) = (
        try SyncingHubProcess("a", server: server), try SyncingHubProcess("b", server: server)
      )
      defer {
        a.stopAndRemove()
        b.stopAndRemove()
      }
      func cli(_ name: String, _ peer: SyncingHubProcess) throws -> FeatureCLI {
        try FeatureCLI("hearth-\(name)", hub: peer.process)
      }
      let (remindersA, remindersB) = (try cli("reminders", a), try cli("reminders", b))

      // Device A: a list, a reminder with a tag, a sync-up with a meeting, a fact, a note.
      try remindersA("list-add", "Groceries")
      let milk = try remindersA.made(
        "add", "Milk", "--list", "Groceries", "--tag", "shop", key: "reminder")
      let syncups = try cli("syncups", a)
      let daily = try syncups.made(
        "add", "Daily", "--attendee", "Ana", "--attendee", "Bo", key: "syncUp")
      _ = try syncups.made("record", daily, "--transcript", "shipped")
      _ = try cli("facts", a).made("add", "42")
      _ = try cli("attachments", a).made(
        "add", "reminders", String(milk.prefix(8)), "--note", "oat")
      // An image of 1 MB: a PNG's signature and bytes that do not compress.
      var generator = SystemRandomNumberGenerator()
      let picture =
        Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        + Data((0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
      let picturePath = a.directory.appendingPathComponent("picture.png")
      try picture.write(to: picturePath)
      let image = try cli("attachments", a).made(
        "add", "reminders", String(milk.prefix(8)), "--image", picturePath.path)
      // Device B registers its features too (its own migrations; nothing of its own yet).
      for name in ["syncups", "facts", "attachments"] { try cli(name, b)("list") }
      try remindersB("lists")
      try converge([a, b], server: server)

      // Device B shows all of it, searchable, by the same handles.
      let shown = try remindersB("show", "--json").output
      #expect(
        shown.contains("\"Milk\"") && shown.contains("\"shop\"") && shown.contains("Groceries"))
      #expect(try remindersB("search", "milk").output.contains("Milk"))  // its own index
      let syncUps = try cli("syncups", b)("list").output
      #expect(syncUps.contains("Daily  5 min  bubblegum  Ana, Bo  · 1 meeting(s)"), "\(syncUps)")
      #expect(try cli("facts", b)("list").output.contains("42 = 2 × 3 × 7"))
      #expect(
        try cli("attachments", b)("list", "reminders", String(milk.prefix(6))).output.contains(
          "oat"))
      // The image's file came with its row, byte for byte.
      let attachmentsB = try cli("attachments", b)
      try eventually(timeout: .seconds(30)) {
        let shown = try attachmentsB("show", String(image.prefix(8)), "--json")
        guard shown.status == 0 else { return false }
        return try (shown.json() as? [String: Any])?["pending"] == nil
      }
      let shownImage = try attachmentsB("show", String(image.prefix(8)), "--json")
      let path = try #require((try shownImage.json() as? [String: Any])?["path"] as? String)
      #expect(FileManager.default.contents(atPath: path) == picture)

      // Edits on both sides: different fields of one reminder, and the same tag added on
      // both (one row: its key is the reminder's and the tag's).
      try remindersB("edit", String(milk.prefix(8)), "--title", "Oat milk")
      try remindersA("edit", String(milk.prefix(8)), "--flag")
      try remindersA("tag", String(milk.prefix(8)), "urgent")
      try remindersB("tag", String(milk.prefix(8)), "urgent")
      let dump = try converge([a, b], server: server)
      #expect(dump.components(separatedBy: "/urgent").count == 2, "\(dump)")
      let row = try #require(
        (try remindersA("info", String(milk.prefix(8)), "--json").json() as? [String: Any]))
      let reminder = try #require(row["reminder"] as? [String: Any])
      #expect(reminder["title"] as? String == "Oat milk" && reminder["isFlagged"] as? Bool == true)
      #expect(row["tags"] as? [String] == ["shop", "urgent"])

      // A list deleted on B goes on A with its reminders.
      try remindersB("list-delete", "Groceries")
      try converge([a, b], server: server)
      #expect(try remindersA("show", "--all", "--json").output == "[]\n")
      #expect(try remindersA("search", "milk").output.contains("Nothing matches"))
    }
  }
}
