import Foundation
import HearthSupport
import HearthZMQ

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

  /// The hub's and its plugins' keys.
  public var keyring: Keyring { Keyring(directory: keysDirectory) }

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
    return CurveKeyPair.isKey(key) ? key : nil
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

  /// Whether a process accepts connections on the unix socket at `path`: false at once when
  /// there is no such file, or nothing listens on it (a file left by a killed hub refuses).
  public static func socketAnswers(at path: String) -> Bool {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    return withUnixAddress(path) { connect(fd, $0, $1) } == 0
  }
}

/// Calls `body` with `path` as a unix socket's address (for `connect` or `bind`); nil when the
/// path is too long for one.
public func withUnixAddress<Result>(
  _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
) -> Result? {
  var address = sockaddr_un()
  address.sun_family = sa_family_t(AF_UNIX)
  let bytes = Array(path.utf8)
  guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
  withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes + [0]) }
  return withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
    }
  }
}

extension BusSocket {
  /// Connects this DEALER to the hub's request socket at `paths` as a CURVE client
  /// authenticated as `keys` — a new pair when nil, which the hub takes as a reader only
  /// (`hello`, `changes`). Throws when no hub has published its key there.
  public func connectToHub(_ paths: HubPaths, as keys: CurveKeyPair? = nil) throws {
    guard let serverKey = paths.hubPublicKey() else {
      throw BusError(
        code: ENOENT, message: "no hub has published its key at \(paths.hubPublicKeyPath)",
        operation: "connect", socketKind: kind.description, endpoint: paths.requestEndpoint)
    }
    try makeCurveClient(keys ?? .generate(), serverKey: serverKey)
    try connect(paths.requestEndpoint)
  }
}
