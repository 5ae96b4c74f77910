import CZMQ
import Foundation

/// The ZeroMQ authentication handler of one context (ZAP, ZeroMQ RFC 27): every CURVE
/// handshake on the context's sockets asks it whether to admit the peer, and under which
/// `User-Id` its messages arrive (`BusSocket.receiveMessage`).
///
/// Bound before the sockets it guards bind, and served on a thread of its own (a handshake
/// waits for its answer).
public final class ZAPHandler {
  /// One handshake: the endpoint's ZAP domain (`BusSocket.setZAPDomain`), the peer's address
  /// and, for CURVE, its public key (Z85).
  public struct Request: Sendable {
    public var domain: String
    public var address: String
    public var mechanism: String
    public var publicKey: String?
  }

  /// The answer: admitted with a user id, or refused with a reason.
  public enum Decision: Sendable, Equatable {
    case admit(userID: String)
    case refuse(reason: String)
  }

  /// Where libzmq asks (fixed by the RFC).
  public static let endpoint = "inproc://zeromq.zap.01"

  private let socket: BusSocket

  public init(_ context: BusContext) throws {
    socket = try BusSocket(context, .rep)
    try socket.bind(Self.endpoint)
  }

  /// Answers handshakes until `stop` rings (the ring is left for other waiters to see).
  public func serve(until stop: Doorbell, _ decide: (Request) -> Decision) throws {
    while true {
      let (readable, rung) = try socket.waitReadable(
        orDescriptors: [stop.descriptor], timeout: .seconds(3600))
      if rung[0] { return }
      if readable { try serve(waitingAtMost: .zero, decide) }
    }
  }

  /// Answers the handshakes that come within `timeout` (the first one waited for, the rest
  /// already there) with `decide`; returns how many it answered.
  @discardableResult
  public func serve(waitingAtMost timeout: Duration, _ decide: (Request) -> Decision) throws
    -> Int
  {
    var answered = 0
    var wait = timeout
    while let frames = try socket.receive(timeout: wait) {
      wait = .zero
      answered += 1
      try socket.send(Self.reply(to: frames, decide))
    }
    return answered
  }

  /// The reply frames to one request (version, request id, status, text, user id,
  /// metadata); a request that is not ZAP 1.0 is refused.
  static func reply(to frames: [Data], _ decide: (Request) -> Decision) -> [Data] {
    let field = { (index: Int) in
      index < frames.count ? String(decoding: frames[index], as: UTF8.self) : ""
    }
    let requestID = frames.count > 1 ? frames[1] : Data()
    let decision: Decision
    if frames.count >= 6, field(0) == "1.0" {
      let mechanism = field(5)
      let key = mechanism == "CURVE" && frames.count > 6 ? CurveKeyPair.z85(frames[6]) : nil
      decision = decide(
        Request(domain: field(2), address: field(3), mechanism: mechanism, publicKey: key))
    } else {
      decision = .refuse(reason: "not a ZAP 1.0 request")
    }
    switch decision {
    case .admit(let userID):
      return [
        Data("1.0".utf8), requestID, Data("200".utf8), Data("OK".utf8), Data(userID.utf8), Data(),
      ]
    case .refuse(let reason):
      return [Data("1.0".utf8), requestID, Data("400".utf8), Data(reason.utf8), Data(), Data()]
    }
  }
}
