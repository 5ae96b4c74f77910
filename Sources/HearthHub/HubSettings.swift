import Foundation
import HearthCommandLine
import HearthWire

/// A setting hearthd cannot use: its key, what is wrong with its value, and where it was set
/// when that was a config file's line (`/etc/hearth/hearthd.conf:3`).
public struct InvalidSetting: Error, CustomStringConvertible, Sendable, Equatable {
  public var key: String
  public var problem: String
  public var location: String?

  public init(key: String, problem: String, location: String? = nil) {
    self.key = key
    self.problem = problem
    self.location = location
  }

  public var description: String {
    (location.map { "\($0): " } ?? "") + "\(key): \(problem)"
  }
}

extension HubConfiguration {
  /// Every key hearthd takes, in the config file (`key = value`) or as `--key value`.
  public static let settingKeys: [String] = [
    "database", "runtime-dir", "keys-dir", "transaction-timeout", "max-message-size",
    "max-statements", "heartbeat-interval", "retention-days", "feed-keep", "prune-interval",
    "bus-high-water-mark", "max-queued-requests", "wal-limit-mb", "checkpoint-wait",
    "checkpoint-retry", "checkpoint-interval", "sync-server", "sync-zone", "sync-clock-offset-ms",
    "sync-page", "reply-memory-mb",
  ]

  /// hearthd's configuration from its settings, later ones winning: the config file's lines
  /// (`file`, its text), then `HEARTH_DATABASE` and `HEARTH_RUNTIME_DIR` of `environment`,
  /// then `flags` (`--key value`, without the dashes). An unknown key or a value out of its
  /// range throws `InvalidSetting`; nothing is guessed.
  /// An error in a setting that came from the file names the file (`fileName`) and its line.
  public init(
    file: String?, fileName: String = "config",
    environment: [String: String] = ProcessInfo.processInfo.environment,
    flags: [String: String] = [:]
  ) throws {
    let lines = try file.map { try Self.parseLines($0, fileName: fileName) } ?? [:]
    var settings = lines.mapValues(\.value)
    if let value = environment["HEARTH_DATABASE"], !value.isEmpty { settings["database"] = value }
    if let value = environment["HEARTH_RUNTIME_DIR"], !value.isEmpty {
      settings["runtime-dir"] = value
    }
    settings.merge(flags) { $1 }
    self.init(paths: .fromEnvironment(environment))
    do {
      try apply(settings)
    } catch var invalid as InvalidSetting {
      // Named by its line when the value that failed is the file's.
      if let line = lines[invalid.key], settings[invalid.key] == line.value {
        invalid.location = "\(fileName):\(line.number)"
      }
      throw invalid
    }
  }

  /// The `key = value` lines of a config file (`SettingsFile`), each key's value and line
  /// number; a line that is not one throws `InvalidSetting` naming it.
  static func parseLines(_ text: String, fileName: String) throws
    -> [String: (value: String, number: Int)]
  {
    do {
      return try SettingsFile.lines(text)
    } catch {
      throw InvalidSetting(
        key: error.key, problem: error.problem, location: "\(fileName):\(error.line)")
    }
  }

  private mutating func apply(_ settings: [String: String]) throws {
    if let unknown = settings.keys.sorted().first(where: { !Self.settingKeys.contains($0) }) {
      throw InvalidSetting(
        key: unknown,
        problem: "not a setting of hearthd (\(Self.settingKeys.joined(separator: ", ")))")
    }
    let read = SettingReader(settings: settings)
    if let path = settings["database"] { paths.databasePath = path }
    if let directory = settings["runtime-dir"] { paths.runtimeDirectory = directory }
    if let directory = settings["keys-dir"] { paths.keysDirectory = directory }
    transactionTimeout = try read.seconds("transaction-timeout") ?? transactionTimeout
    heartbeatInterval = try read.seconds("heartbeat-interval") ?? heartbeatInterval
    pruneInterval = try read.seconds("prune-interval") ?? pruneInterval
    checkpointWait = try read.seconds("checkpoint-wait") ?? checkpointWait
    checkpointRetryDelay = try read.seconds("checkpoint-retry") ?? checkpointRetryDelay
    checkpointInterval =
      try read.seconds("checkpoint-interval", zeroAllowed: true) ?? checkpointInterval
    if let days = try read.number("retention-days", atLeast: 0.001) {
      feedRetention = .seconds(Int64(days * 86_400))
    }
    feedKeepRecent = try read.integer("feed-keep", atLeast: 0).map(Int64.init) ?? feedKeepRecent
    maximumQueuedRequests =
      try read.integer("max-queued-requests", atLeast: 1) ?? maximumQueuedRequests
    busHighWaterMark = try read.integer("bus-high-water-mark", atLeast: 1) ?? busHighWaterMark
    maximumMessageSize = try read.integer("max-message-size", atLeast: 1_024) ?? maximumMessageSize
    maximumStatementsPerMessage =
      try read.integer("max-statements", atLeast: 1) ?? maximumStatementsPerMessage
    if let server = settings["sync-server"] { syncServer = server.isEmpty ? nil : server }
    if let zone = settings["sync-zone"] {
      guard !zone.isEmpty, !zone.contains(":") else {
        throw InvalidSetting(key: "sync-zone", problem: "a zone is a name without ':'")
      }
      syncZone = zone
    }
    if let text = settings["sync-clock-offset-ms"] {
      guard let offset = Int64(text) else {
        throw InvalidSetting(
          key: "sync-clock-offset-ms", problem: "must be a whole number, not '\(text)'")
      }
      syncClockOffset = offset
    }
    syncPageSize = try read.integer("sync-page", atLeast: 1) ?? syncPageSize
    if let megabytes = try read.number("wal-limit-mb", atLeast: 1) {
      walLimit = Int(megabytes * 1_048_576)
    }
    if let megabytes = try read.number("reply-memory-mb", atLeast: 1) {
      replyMemoryBudget = Int(megabytes * 1_048_576)
    }
  }
}

/// Reads typed values out of settings, with the error that names the key.
private struct SettingReader {
  var settings: [String: String]

  func number(_ key: String, atLeast minimum: Double) throws -> Double? {
    guard let text = settings[key] else { return nil }
    guard let value = Double(text), value.isFinite, value >= minimum else {
      throw InvalidSetting(
        key: key, problem: "must be a number of at least \(minimum), not '\(text)'")
    }
    return value
  }

  func integer(_ key: String, atLeast minimum: Int) throws -> Int? {
    guard let text = settings[key] else { return nil }
    guard let value = Int(text), value >= minimum else {
      throw InvalidSetting(
        key: key, problem: "must be a whole number of at least \(minimum), not '\(text)'")
    }
    return value
  }

  /// A number of seconds, more than zero (or zero too, where zero turns something off).
  func seconds(_ key: String, zeroAllowed: Bool = false) throws -> Duration? {
    guard let text = settings[key] else { return nil }
    guard let value = Double(text), value.isFinite, value > 0 || (zeroAllowed && value == 0) else {
      throw InvalidSetting(
        key: key,
        problem: "must be a \(zeroAllowed ? "" : "positive ")number of seconds, not '\(text)'")
    }
    return .milliseconds(Int64(value * 1000))
  }
}
