import Foundation
import HearthWire
import HearthZMQ

/// How a plugin reaches its hub: the ipc sockets of `HubPaths` (the default), or tcp
/// endpoints, which the hub serves with CURVE only.
///
/// Over tcp the plugin still reads the database file directly, so it must see the hub's file
/// on a local file system (a container sharing the host's data directory, for example).
public struct HubTransport: Hashable, Sendable {
  /// The hub's request endpoint (its ROUTER).
  public var requestEndpoint: String
  /// The hub's change bus (its PUB).
  public var busEndpoint: String
  /// For tcp: the hub's public key and this plugin's key pair.
  public var curve: CurveClient?

  public init(requestEndpoint: String, busEndpoint: String, curve: CurveClient? = nil) {
    self.requestEndpoint = requestEndpoint
    self.busEndpoint = busEndpoint
    self.curve = curve
  }

  /// The hub's ipc sockets in `paths.runtimeDirectory`.
  public static func ipc(_ paths: HubPaths) -> HubTransport {
    HubTransport(requestEndpoint: paths.requestEndpoint, busEndpoint: paths.busEndpoint)
  }

  /// tcp endpoints with CURVE: `serverKey` is the hub's public key (`curvePublicKey` in its
  /// configuration); the plugin's own key pair is new unless given.
  public static func tcp(
    request: String, bus: String, serverKey: String, keys: CurveKeyPair? = nil
  ) throws -> HubTransport {
    HubTransport(
      requestEndpoint: request, busEndpoint: bus,
      curve: CurveClient(keys: try keys ?? .generate(), serverKey: serverKey))
  }

  /// `HEARTH_HUB_ENDPOINT`, `HEARTH_BUS_ENDPOINT` and `HEARTH_HUB_PUBLIC_KEY` when all three
  /// are set (tcp with CURVE), else the ipc sockets of `paths`.
  public static func fromEnvironment(
    _ paths: HubPaths, _ environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> HubTransport {
    let value = { (name: String) in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
    guard let request = value("HEARTH_HUB_ENDPOINT"), let bus = value("HEARTH_BUS_ENDPOINT"),
      let serverKey = value("HEARTH_HUB_PUBLIC_KEY")
    else { return .ipc(paths) }
    return try .tcp(request: request, bus: bus, serverKey: serverKey)
  }

  /// Applies the transport's security to a socket before it connects.
  func prepare(_ socket: BusSocket) throws {
    if let curve { try socket.makeCurveClient(curve.keys, serverKey: curve.serverKey) }
  }
}

/// A CURVE client's keys: its own pair and the server's public key.
public struct CurveClient: Hashable, Sendable {
  public var keys: CurveKeyPair
  public var serverKey: String

  public init(keys: CurveKeyPair, serverKey: String) {
    self.keys = keys
    self.serverKey = serverKey
  }
}
