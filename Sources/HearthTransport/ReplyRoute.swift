import Foundation

/// Where a request's reply goes, decided once, when the request arrives.
public enum ReplyRoute: Hashable, Sendable {
  /// A peer of the ZeroMQ request socket (the ROUTER), by the identity libzmq gave it.
  case router(Data)
  /// A connection of the request stream, by the number the hub gave it.
  case stream(UInt64)
}

/// A request as it arrived, on either transport: where its reply goes, its frames (one,
/// the request's JSON, unless the client sent something else), and the key its connection
/// was authenticated with (Z85; nil when none was).
public struct ArrivedRequest: Sendable {
  public var route: ReplyRoute
  public var frames: [Data]
  public var userID: String?

  /// A message of the ROUTER: its first frame is the peer's identity.
  public init?(router message: ReceivedMessage) {
    guard let identity = message.frames.first else { return nil }
    self.init(
      route: .router(identity), frames: Array(message.frames.dropFirst()), userID: message.userID)
  }

  public init(route: ReplyRoute, frames: [Data], userID: String?) {
    self.route = route
    self.frames = frames
    self.userID = userID
  }
}
