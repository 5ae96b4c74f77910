import Foundation
import HearthHub
import Testing

@Suite struct HubSettingsTests {
  @Test func laterSettingsWinFileThenEnvironmentThenFlags() throws {
    let file = """
      # the hub's settings
      database = /from/file.sqlite
      transaction-timeout = 2.5
      wal-limit-mb = 64

      checkpoint-interval = 0
      max-queued-requests = 50
      """
    let configuration = try HubConfiguration(
      file: file, environment: ["HEARTH_DATABASE": "/from/environment.sqlite"],
      flags: ["max-queued-requests": "7", "runtime-dir": "/run/test"])
    #expect(configuration.databasePath == "/from/environment.sqlite")
    #expect(configuration.runtimeDirectory == "/run/test")
    #expect(configuration.transactionTimeout == .milliseconds(2_500))
    #expect(configuration.walLimit == 64 << 20)
    #expect(configuration.checkpointInterval == .zero)
    #expect(configuration.maximumQueuedRequests == 7)
    // What nothing set keeps its default.
    #expect(configuration.heartbeatInterval == .seconds(1))
    #expect(configuration.maximumMessageSize == 4 << 20)
  }

  @Test func anUnknownKeyOrABadValueIsRefusedByName() {
    func refusal(_ file: String) -> InvalidSetting? {
      #expect(throws: InvalidSetting.self) { try HubConfiguration(file: file, environment: [:]) }
    }
    #expect(refusal("wal-limit = 10")?.key == "wal-limit")
    #expect(refusal("transaction-timeout = soon")?.key == "transaction-timeout")
    #expect(refusal("transaction-timeout = 0")?.key == "transaction-timeout")
    #expect(refusal("max-queued-requests = -1")?.key == "max-queued-requests")
    #expect(refusal("wal-limit-mb = 0.5")?.key == "wal-limit-mb")
    #expect(refusal("just words")?.key == "line 1")
    #expect(refusal("retention-days = inf")?.problem.contains("not 'inf'") == true)
  }

  @Test func aFilesErrorNamesTheFileAndLineAndCommentsMayFollowAValue() throws {
    let file = """
      # the hub's settings
      wal-limit-mb = 64   # twice the default
      transaction-timeout = 2\t# seconds

      retention-days = soon
      """
    let refused = #expect(throws: InvalidSetting.self) {
      try HubConfiguration(file: file, fileName: "/etc/hearthd.conf", environment: [:])
    }
    #expect(
      refused?.description
        == "/etc/hearthd.conf:5: retention-days: must be a number of at least 0.001, not 'soon'")
    let fixed = file.replacingOccurrences(of: "retention-days = soon", with: "")
    let configuration = try HubConfiguration(file: fixed, environment: [:])
    #expect(configuration.walLimit == 64 << 20)
    #expect(configuration.transactionTimeout == .seconds(2))
    // A flag that overrides the file's bad value is the one named, without the file.
    let flagged = #expect(throws: InvalidSetting.self) {
      try HubConfiguration(
        file: "wal-limit-mb = 8", fileName: "f", environment: [:], flags: ["wal-limit-mb": "0"])
    }
    #expect(flagged?.location == nil)
    let twice = #expect(throws: InvalidSetting.self) {
      try HubConfiguration(file: "feed-keep = 1\nfeed-keep = 2", fileName: "f", environment: [:])
    }
    #expect(twice?.description == "f:2: feed-keep: set twice (first on line 1)")
  }
}

@Suite struct DatabaseFileModeTests {
  /// The permission bits of `path`.
  func mode(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return try #require(attributes[.posixPermissions] as? Int)
  }

  @Test func theDatabaseIsTheOwnersOnlyWhateverTheUmask() throws {
    let old = umask(0o022)
    defer { umask(old) }
    let running = try RunningHub()
    defer { running.stopAndRemove() }
    let path = running.paths.databasePath
    #expect(try mode(path) == 0o600)
    #expect(try mode(path + "-wal") == 0o600)
    #expect(try mode(path + "-shm") == 0o600)
  }

  @Test func aFileOthersCouldReadIsClosedToThem() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "hearth-mode-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let first = try RunningHub(directory: directory)
    let path = first.paths.databasePath
    first.stop()
    for file in [path, path + "-wal", path + "-shm"]
    where FileManager.default.fileExists(atPath: file) {
      try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
    }
    let second = try RunningHub(directory: directory)
    defer { second.stop() }
    #expect(try mode(path) == 0o600)
  }
}
