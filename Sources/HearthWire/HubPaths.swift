import Foundation
import HearthSupport

/// Where a hub keeps its database and its sockets; the hub and its plugins derive them the
/// same way.
///
/// - database: `$HEARTH_DATABASE`, else `$XDG_DATA_HOME/hearth/hearth.sqlite`
///   (`~/.local/share/hearth/hearth.sqlite`);
/// - sockets: `$HEARTH_RUNTIME_DIR`, else `$XDG_RUNTIME_DIR/hearth`, else
///   `/tmp/hearth-<uid>` — a directory of mode 0700;
/// - keys (`Keyring`): `$HEARTH_KEYS_DIR`, else `keys` beside the database.
public struct HubPaths: Hashable, Sendable {
  public var databasePath: String
  public var runtimeDirectory: String
  private var explicitKeysDirectory: String?

  public init(databasePath: String, runtimeDirectory: String, keysDirectory: String? = nil) {
    self.databasePath = databasePath
    self.runtimeDirectory = runtimeDirectory
    explicitKeysDirectory = keysDirectory
  }

  /// The keyring's directory: `keys` beside the database unless set.
  public var keysDirectory: String {
    get {
      explicitKeysDirectory ?? (databasePath as NSString).deletingLastPathComponent + "/keys"
    }
    set { explicitKeysDirectory = newValue }
  }

  /// Plugin `name`'s own files (`plugins/NAME` beside the database): the one place under the
  /// data directory a plugin's unit may write (`hearth plugins add NAME` makes it).
  public func filesDirectory(ofPlugin name: String) -> String {
    (databasePath as NSString).deletingLastPathComponent + "/plugins/\(name)"
  }

  /// `<runtime>/hub.pub`: the hub's public key, which a client of the ipc sockets
  /// authenticates the hub with (written by the hub when it starts).
  public var hubPublicKeyPath: String { runtimeDirectory + "/hub.pub" }

  /// The public key of the hub now serving these sockets; nil when no hub has written one.
  public func hubPublicKey() -> String? { Self.publicKey(inFile: hubPublicKeyPath) }

  /// The key in a file that holds one public key (Z85) and nothing else; nil when there is
  /// no such file.
  public static func publicKey(inFile path: String) -> String? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    let key = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    return Z85.isKey(key) ? key : nil
  }

  /// hearthd's config file when none is named: `$XDG_CONFIG_HOME/hearth/hearthd.conf`, else
  /// `~/.config/hearth/hearthd.conf`. `hearth sync setup` writes to the same file.
  public static func defaultConfigFile(
    _ environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> String {
    let configHome =
      environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (homeDirectory(environment) + "/.config")
    return configHome + "/hearth/hearthd.conf"
  }

  /// The paths from the environment.
  public static func fromEnvironment(
    _ environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> HubPaths {
    let dataHome =
      environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (homeDirectory(environment) + "/.local/share")
    let database =
      environment["HEARTH_DATABASE"].flatMap { $0.isEmpty ? nil : $0 }
      ?? dataHome + "/hearth/hearth.sqlite"
    let runtime: String
    if let explicit = environment["HEARTH_RUNTIME_DIR"], !explicit.isEmpty {
      runtime = explicit
    } else if let xdg = environment["XDG_RUNTIME_DIR"], !xdg.isEmpty {
      runtime = xdg + "/hearth"
    } else {
      runtime = "/tmp/hearth-\(getuid())"
    }
    let keys = environment["HEARTH_KEYS_DIR"].flatMap { $0.isEmpty ? nil : $0 }
    return HubPaths(databasePath: database, runtimeDirectory: runtime, keysDirectory: keys)
  }

  /// `ipc://<runtime>/hub.sock`: requests (the hub's ROUTER).
  public var requestEndpoint: String { "ipc://\(runtimeDirectory)/hub.sock" }
  /// `<runtime>/hub.stream`: requests over the request stream (a unix stream socket; see
  /// `RequestStream`).
  public var requestStreamPath: String { "\(runtimeDirectory)/hub.stream" }
  /// `ipc://<runtime>/bus.sock`: change events and heartbeats (the hub's PUB).
  public var busEndpoint: String { "ipc://\(runtimeDirectory)/bus.sock" }
}

/// ZeroMQ's Z85 text form of a 32-byte key (a CURVE key): 40 characters of its alphabet.
public enum Z85 {
  /// Whether `text` is a key in Z85.
  public static func isKey(_ text: String) -> Bool {
    text.utf8.count == 40 && text.utf8.allSatisfy { alphabet.contains($0) }
  }

  private static let alphabet = Set(
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#".utf8)
}
