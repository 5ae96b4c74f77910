import Foundation
import HearthDataTestSupport
import HearthTestbed
import Testing

/// A server with two people, alice and bob, each with a hearthd process syncing as them.
private struct TwoPeople {
  let server: PostgresServer
  let alice: SyncingHubProcess
  let bob: SyncingHubProcess

  init() throws {
    server = try SyncSuites.SyncSharingServerTests.people()
    alice = try SyncingHubProcess("alice", server: server, role: "alice")
    bob = try SyncingHubProcess("bob", server: server, role: "bob")
  }

  func stop() {
    alice.stopAndRemove()
    bob.stopAndRemove()
    server.stop()
  }
}

extension SyncSuites {
  /// Sharing a reminders list from the command lines, as two people would: alice's
  /// `hearth-reminders share`, bob's `hearth sync accept`, on two hearthd processes.
  @Suite(.serialized) struct FeatureSharingTests {
    @Test func aListSharedFromTheCommandLineShowsWhoHasIt() throws {
      let people = try TwoPeople()
      defer { people.stop() }
      let (alice, bob) = (people.alice, people.bob)
      let (remindersA, remindersB) = (
        try FeatureCLI("hearth-reminders", hub: alice.process),
        try FeatureCLI("hearth-reminders", hub: bob.process)
      )
      try remindersA("list-add", "Groceries")
      try remindersA("list-add", "Diary")
      try remindersA("add", "Milk", "--list", "Groceries")
      try remindersA("add", "Secret", "--list", "Diary")
      try remindersB("lists")
      var run = try remindersA("share", "Groceries", "--json")
      #expect(run.status == 0, "\(run.errors)")
      let invitation = try #require((try run.json() as? [String: Any])?["invitation"] as? String)
      let hearth = try FeatureCLI("hearth", hub: bob.process)
      run = try hearth("sync", "accept", invitation)
      #expect(run.status == 0, "\(run.errors)")
      #expect(run.output.contains("shared by alice"), "\(run.output)")
      run = try remindersB("lists")
      #expect(run.output.contains("Groceries") && !run.output.contains("Diary"), "\(run.output)")
      #expect(run.output.contains("shared by alice (read-only)"), "\(run.output)")
      #expect(try remindersB("show").output.contains("Milk"))
      // Read-only: bob's reminder is refused, and says why.
      run = try remindersB("add", "Beer", "--list", "Groceries")
      #expect(run.status == 5, "\(run.errors)")
      #expect(
        run.errors.contains("“Groceries”, shared with you by alice to read only"), "\(run.errors)")
      #expect(run.errors.contains("nothing was changed"), "\(run.errors)")
      // Alice's list shows whom it is shared with.
      try eventually(timeout: .seconds(30)) {
        try remindersA("lists").output.contains("shared with bob (read-only)")
      }
      run = try FeatureCLI("hearth", hub: alice.process)("sync", "shares")
      #expect(run.output.contains("shared with bob (read)"), "\(run.output)")
      run = try remindersA("members", "Groceries")
      #expect(run.output.contains("bob  read-only"), "\(run.output)")
      run = try remindersB("members", "Groceries")
      #expect(run.output.contains("alice  owner") && run.output.contains("you  read-only"))
      // Revoked: bob loses it; the list stays shared (with nobody now).
      run = try remindersA("revoke", "Groceries", "carol")
      #expect(run.status == 4 && run.errors.contains("its members: bob"), "\(run.errors)")
      run = try remindersA("revoke", "Groceries", "bob")
      #expect(run.status == 0, "\(run.errors)")
      try eventually(timeout: .seconds(30)) {
        try remindersB("lists").output.hasPrefix("No lists yet")
      }
      #expect(try remindersA("members", "Groceries").output.contains("nobody has accepted it yet"))
      // Shared again and accepted again, by an invitation made for it.
      run = try remindersA("share", "Groceries", "--json")
      let again = try #require((try run.json() as? [String: Any])?["invitation"] as? String)
      #expect(try hearth("sync", "accept", again).status == 0)
      #expect(try remindersB("lists").output.contains("Groceries"))
      // Unshared: gone from bob's hub.
      run = try remindersA("unshare", "Groceries")
      #expect(run.status == 0, "\(run.errors)")
      try eventually(timeout: .seconds(30)) {
        // (The empty list's hint names Groceries too.)
        try remindersB("lists").output.hasPrefix("No lists yet")
      }
      #expect(try remindersA("lists").output.contains("Groceries"))
    }

    /// An attachment goes with the row it is attached to: sharing a list shares its
    /// reminders' images (the file too, byte for byte) and its own notes, not those of a
    /// list kept private; an image attached after sharing follows.
    @Test func attachmentsOfASharedListReachThePersonItIsSharedWith() throws {
      let people = try TwoPeople()
      defer { people.stop() }
      let (alice, bob) = (people.alice, people.bob)
      let remindersA = try FeatureCLI("hearth-reminders", hub: alice.process)
      let (attachmentsA, attachmentsB) = (
        try FeatureCLI("hearth-attachments", hub: alice.process),
        try FeatureCLI("hearth-attachments", hub: bob.process)
      )
      let groceries = try remindersA.made("list-add", "Groceries")
      // Ids in --json as the database holds them, in lower case.
      #expect(groceries == groceries.lowercased())
      try remindersA("list-add", "Diary")
      let milk = try remindersA.made("add", "Milk", "--list", "Groceries", key: "reminder")
      let secret = try remindersA.made("add", "Secret", "--list", "Diary", key: "reminder")
      var generator = SystemRandomNumberGenerator()
      func picture(_ name: String) throws -> (Data, String) {
        let bytes =
          Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
          + Data((0..<(256 << 10)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let path = alice.directory.appendingPathComponent(name)
        try bytes.write(to: path)
        return (bytes, path.path)
      }
      let (first, firstPath) = try picture("first.png")
      let image = try attachmentsA.made(
        "add", "reminders", String(milk.prefix(8)), "--image", firstPath)
      let note = try attachmentsA.made(
        "add", "remindersLists", String(groceries.prefix(8)), "--note", "the corner shop")
      let hidden = try attachmentsA.made(
        "add", "reminders", String(secret.prefix(8)), "--note", "not for bob")
      try attachmentsB("list")
      try FeatureCLI("hearth-reminders", hub: bob.process)("lists")

      let run = try remindersA("share", "Groceries", "--json")
      #expect(run.status == 0, "\(run.errors)")
      let invitation = try #require((try run.json() as? [String: Any])?["invitation"] as? String)
      let accepted = try FeatureCLI("hearth", hub: bob.process)("sync", "accept", invitation)
      #expect(accepted.status == 0, "\(accepted.errors)")

      func arrived(_ id: String, _ bytes: Data) throws -> Bool {
        let shown = try attachmentsB("show", String(id.prefix(8)), "--json")
        guard shown.status == 0, let fields = try shown.json() as? [String: Any],
          fields["pending"] == nil, let path = fields["path"] as? String
        else { return false }
        return FileManager.default.contents(atPath: path) == bytes
      }
      try eventually(timeout: .seconds(30)) { try arrived(image, first) }
      let listed = try attachmentsB("list").output
      #expect(listed.contains("the corner shop"), "\(listed)")
      #expect(!listed.contains("not for bob"), "\(listed)")
      #expect(try attachmentsB("show", String(hidden.prefix(8))).status == 4)
      #expect(try attachmentsB("show", String(note.prefix(8))).status == 0)

      // Attached after sharing: it goes to the share too.
      let (second, secondPath) = try picture("second.png")
      let later = try attachmentsA.made(
        "add", "reminders", String(milk.prefix(8)), "--image", secondPath)
      try eventually(timeout: .seconds(30)) { try arrived(later, second) }
    }
  }
}
