import Foundation
import HearthSupport
import HearthTransport
import HearthWire
import Testing

/// The keyring's files: issued once, private, read back whole, revoked for good.
@Suite struct KeyringTests {
  func keyring() throws -> (Keyring, URL) {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("hearth-keys-\(UUID().uuidString.prefix(8))")
    return (Keyring(directory: directory.path), directory)
  }

  @Test func anIssuedKeyIsPrivateReadBackAndIssuedOnce() throws {
    let (keyring, directory) = try keyring()
    defer { try? FileManager.default.removeItem(at: directory) }
    let keys = try keyring.issue("notes")
    #expect(try keyring.pluginKeys("notes") == keys)
    #expect(try keyring.pluginKeys("other") == nil)
    var status = stat()
    stat(keyring.keyPath(ofPlugin: "notes"), &status)
    #expect(status.st_mode & 0o777 == 0o600)
    stat(keyring.pluginsDirectory, &status)
    #expect(status.st_mode & 0o777 == 0o700)
    let again = #expect(throws: KeyringError.self) { try keyring.issue("notes") }
    #expect(again?.isAlreadyIssued == true)
    #expect(keyring.issuedKeys().plugins == [keys.publicKey: "notes"])
    // The hub's own pair is made once and kept.
    #expect(try keyring.hubKeys() == keyring.hubKeys())
  }

  @Test func concurrentIssuersLeaveOneWholeKey() throws {
    let (keyring, directory) = try keyring()
    defer { try? FileManager.default.removeItem(at: directory) }
    let won = Locked<[CurveKeyPair]>([])
    DispatchQueue.concurrentPerform(iterations: 16) { _ in
      if let keys = try? keyring.issue("racer") { won.withLock { $0.append(keys) } }
    }
    #expect(won.withLock { $0.count } == 1)
    #expect(try keyring.pluginKeys("racer") == won.withLock { $0.first })
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: keyring.pluginsDirectory)
    #expect(leftovers == ["racer.key"])
  }

  @Test func aRevokedKeyIsGoneAndNotIssuedAgainUnlessAsked() throws {
    let (keyring, directory) = try keyring()
    defer { try? FileManager.default.removeItem(at: directory) }
    let first = try keyring.issue("notes")
    #expect(try keyring.revoke("notes"))
    #expect(try keyring.revoke("notes") == false)
    #expect(try keyring.pluginKeys("notes") == nil)
    #expect(keyring.issuedKeys().plugins.isEmpty)
    #expect(throws: KeyringError.self) { try keyring.issue("notes", unlessRevoked: true) }
    let second = try keyring.issue("notes")
    #expect(second != first)
    #expect(!FileManager.default.fileExists(atPath: keyring.revokedPath(ofPlugin: "notes")))
  }

  /// A reader that keeps what it read sees every change: a key revoked, one issued again (a
  /// new file), a file rewritten in place, a file that is not a key.
  @Test func readingWithACacheSeesEveryChange() throws {
    let (keyring, directory) = try keyring()
    defer { try? FileManager.default.removeItem(at: directory) }
    var cache = IssuedKeyCache()
    let notes = try keyring.issue("notes")
    let tasks = try keyring.issue("tasks")
    #expect(
      keyring.issuedKeys(cache: &cache).plugins == [
        notes.publicKey: "notes", tasks.publicKey: "tasks",
      ])
    #expect(
      keyring.issuedKeys(cache: &cache).plugins == [
        notes.publicKey: "notes", tasks.publicKey: "tasks",
      ])
    try keyring.revoke("tasks")
    #expect(keyring.issuedKeys(cache: &cache).plugins == [notes.publicKey: "notes"])
    let again = try keyring.issue("tasks")
    #expect(
      keyring.issuedKeys(cache: &cache).plugins == [
        notes.publicKey: "notes", again.publicKey: "tasks",
      ])
    // The same file (same inode) given another key's text: read again.
    let other = try CurveKeyPair.generate()
    let path = keyring.keyPath(ofPlugin: "notes")
    let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try file.truncate(atOffset: 0)
    try file.write(contentsOf: Data(KeyFile.text(other, comment: "rewritten").utf8))
    try file.close()
    #expect(
      keyring.issuedKeys(cache: &cache).plugins == [
        other.publicKey: "notes", again.publicKey: "tasks",
      ])
    // Made unreadable in place: named, and its old key no longer counts.
    try Data("not a key\n".utf8).write(to: URL(fileURLWithPath: path))
    let read = keyring.issuedKeys(cache: &cache)
    #expect(read.plugins == [again.publicKey: "tasks"])
    #expect(read.unreadable == ["notes.key"])
  }

  @Test func namesThatAreNotFileNamesAndBadFilesAreRefused() throws {
    for name in ["", "../x", ".hidden", "a/b", String(repeating: "n", count: 65), "naïve"] {
      #expect(!Keyring.isPluginName(name), "\(name)")
    }
    #expect(Keyring.isPluginName("reading-list_2.0"))
    let keys = try CurveKeyPair.generate()
    #expect(try KeyFile.parse(KeyFile.text(keys, comment: "test"), path: "k") == keys)
    #expect(try KeyFile.parse("secret-key = \(keys.secretKey)\n", path: "k") == keys)
    #expect(throws: KeyringError.self) { try KeyFile.parse("public-key = x\n", path: "k") }
    let other = try CurveKeyPair.generate()
    #expect(throws: KeyringError.self) {
      try KeyFile.parse(
        "public-key = \(other.publicKey)\nsecret-key = \(keys.secretKey)\n", path: "k")
    }
  }
}
