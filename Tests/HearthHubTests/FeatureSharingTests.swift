import Foundation
import HearthDataTestSupport
import HearthTestbed
import Testing

extension SyncSuites {
  /// Sharing a reminders list from the command lines, as two people would: alice's
  /// `hearth-reminders share`, bob's `hearth sync accept`, on two hearthd processes.
  @Suite(.serialized) struct FeatureSharingTests {
    @Test func aListSharedFromTheCommandLineShowsWhoHasIt() throws {
      let server = try SyncSharingServerTests.people()
      defer { server.stop() }
      let alice = try SyncingHubProcess("alice", server: server, role: "alice")
      let bob = try SyncingHubProcess("bob", server: server, role: "bob")
      defer {
        alice.stopAndRemove()
        bob.stopAndRemove()
      }
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
      #expect(run.status != 0)
      #expect(run.errors.contains("write-permission"), "\(run.errors)")
      // Alice's list shows whom it is shared with.
      try eventually(timeout: .seconds(30)) {
        try remindersA("lists").output.contains("shared with bob (read-only)")
      }
      run = try FeatureCLI("hearth", hub: alice.process)("sync", "shares")
      #expect(run.output.contains("shared with bob (read)"), "\(run.output)")
      // Unshared: gone from bob's hub.
      run = try remindersA("unshare", "Groceries")
      #expect(run.status == 0, "\(run.errors)")
      try eventually(timeout: .seconds(30)) {
        // (The empty list's hint names Groceries too.)
        try remindersB("lists").output.hasPrefix("No lists yet")
      }
      #expect(try remindersA("lists").output.contains("Groceries"))
    }
  }
}
