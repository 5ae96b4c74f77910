import Foundation
import HearthSQLite
import HearthTransport
import HearthWire

/// How a plugin reaches its hub, and who it is there: the hub's endpoints (the ipc sockets of
/// `HubPaths` by default, or tcp), and the CURVE key pair its requests authenticate with —
/// the key issued to the plugin (see `HubTransport.pluginKeys`), or a new one for a client
/// that only reads.
///
/// Over tcp the plugin still reads the database file directly, so it must see the hub's file
/// on a local file system (a container sharing the host's data directory, for example).
public struct HubTransport: Hashable, Sendable {
  /// The hub's request endpoint (its ROUTER).
  public var requestEndpoint: String
  /// The hub's change bus (its PUB).
  public var busEndpoint: String
  /// This client's key pair.
  public var keys: CurveKeyPair
  /// The hub's public key: given (tcp), or read from `hubPublicKeyPath` when a request
  /// socket is made (ipc: the hub writes it there at start).
  public var serverKey: String?
  public var hubPublicKeyPath: String?
  /// The hub's request stream (`RequestStream`): requests go there when a hub listens on
  /// it, else to `requestEndpoint`. Nil: always `requestEndpoint`.
  public var streamPath: String?

  public init(
    requestEndpoint: String, busEndpoint: String, keys: CurveKeyPair, serverKey: String?,
    hubPublicKeyPath: String? = nil, streamPath: String? = nil
  ) {
    self.requestEndpoint = requestEndpoint
    self.busEndpoint = busEndpoint
    self.keys = keys
    self.serverKey = serverKey
    self.hubPublicKeyPath = hubPublicKeyPath
    self.streamPath = streamPath
  }

  /// The hub's ipc sockets in `paths.runtimeDirectory`, as `keys`: its request stream,
  /// falling back to its ZeroMQ request socket, unless `stream` is false.
  public static func ipc(_ paths: HubPaths, keys: CurveKeyPair, stream: Bool = true)
    -> HubTransport
  {
    HubTransport(
      requestEndpoint: paths.requestEndpoint, busEndpoint: paths.busEndpoint, keys: keys,
      serverKey: nil, hubPublicKeyPath: paths.hubPublicKeyPath,
      streamPath: stream ? paths.requestStreamPath : nil)
  }

  /// tcp endpoints: `serverKey` is the hub's public key (`public-key` of its `hub.key`);
  /// `keys` must be a key the hub's keyring has issued (the hub refuses others).
  public static func tcp(request: String, bus: String, serverKey: String, keys: CurveKeyPair)
    -> HubTransport
  {
    HubTransport(requestEndpoint: request, busEndpoint: bus, keys: keys, serverKey: serverKey)
  }

  /// `HEARTH_HUB_ENDPOINT`, `HEARTH_BUS_ENDPOINT` and `HEARTH_HUB_PUBLIC_KEY` when all three
  /// are set (tcp), else the ipc sockets of `paths` (the request stream first, unless
  /// `HEARTH_HUB_STREAM` is `off`); authenticated as plugin `plugin` (its key from
  /// `pluginKeys`), or with a new key when `plugin` is nil.
  public static func fromEnvironment(
    _ paths: HubPaths, plugin: String?,
    _ environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> HubTransport {
    let keys = try plugin.map { try pluginKeys($0, paths: paths, environment) } ?? .generate()
    let value = { (name: String) in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
    guard let request = value("HEARTH_HUB_ENDPOINT"), let bus = value("HEARTH_BUS_ENDPOINT"),
      let serverKey = value("HEARTH_HUB_PUBLIC_KEY")
    else { return .ipc(paths, keys: keys, stream: value("HEARTH_HUB_STREAM") != "off") }
    return .tcp(request: request, bus: bus, serverKey: serverKey, keys: keys)
  }

  /// The credential name of a plugin's key under systemd (`LoadCredential=`).
  public static let credentialName = "hearth-plugin.key"

  /// Plugin `name`'s key pair, from the first of: the key file `HEARTH_PLUGIN_KEY` names;
  /// `$CREDENTIALS_DIRECTORY/hearth-plugin.key` (the unit's credential); the keyring's
  /// `plugins/NAME.key`. When none exists and this process can write the keyring (it is the
  /// owner's), a key is issued there, as `hearth plugins add NAME` would — unless the owner
  /// revoked the plugin's key. Throws `DatabaseError` (`SQLITE_AUTH`) when there is no key.
  public static func pluginKeys(
    _ name: String, paths: HubPaths,
    _ environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> CurveKeyPair {
    let value = { (name: String) in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
    do {
      if let path = value("HEARTH_PLUGIN_KEY") {
        guard let keys = try KeyFile.read(path) else {
          throw KeyringError("HEARTH_PLUGIN_KEY names \(path), which does not exist")
        }
        return keys
      }
      if let credentials = value("CREDENTIALS_DIRECTORY"),
        let keys = try KeyFile.read(credentials + "/" + credentialName)
      {
        return keys
      }
      let keyring = paths.keyring
      if let keys = try keyring.pluginKeys(name) { return keys }
      do {
        return try keyring.issue(name, unlessRevoked: true)
      } catch let error as KeyringError where error.isAlreadyIssued {
        // Another process of the plugin issued it a moment ago: that key is the plugin's.
        if let keys = try keyring.pluginKeys(name) { return keys }
        throw error
      }
    } catch let error as KeyringError {
      throw DatabaseError(
        resultCode: .SQLITE_AUTH,
        message: "plugin \(name) has no key to authenticate with the hub: \(error) "
          + "(the owner issues one with `hearth plugins add \(name)`)")
    }
  }

  /// The hub's public key: given, or as the hub published it; throws `hubNotRunning` when
  /// it is not known (no hub has started on these sockets).
  public func hubKey() throws -> String {
    guard let serverKey = serverKey ?? hubPublicKeyPath.flatMap(HubPaths.publicKey(inFile:)) else {
      throw DatabaseError.hubNotRunning(endpoint: requestEndpoint)
    }
    return serverKey
  }

  /// Makes a request socket this transport's CURVE client; throws `hubNotRunning` when the
  /// hub's public key is not known (no hub has started on these sockets).
  public func prepareRequestSocket(_ socket: BusSocket) throws {
    try socket.makeCurveClient(keys, serverKey: try hubKey())
  }

  /// Makes a bus socket a CURVE client when the bus is tcp (the ipc bus is open to any
  /// subscriber).
  func prepareBusSocket(_ socket: BusSocket) throws {
    if let serverKey { try socket.makeCurveClient(keys, serverKey: serverKey) }
  }
}
