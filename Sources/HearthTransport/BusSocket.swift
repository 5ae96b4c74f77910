import CZMQ
import Foundation

/// The ZeroMQ socket types Hearth uses.
public struct SocketKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public let rawValue: Int32
  public init(rawValue: Int32) { self.rawValue = rawValue }

  public static let pair = SocketKind(rawValue: ZMQ_PAIR)
  public static let pub = SocketKind(rawValue: ZMQ_PUB)
  public static let sub = SocketKind(rawValue: ZMQ_SUB)
  public static let req = SocketKind(rawValue: ZMQ_REQ)
  public static let rep = SocketKind(rawValue: ZMQ_REP)
  public static let dealer = SocketKind(rawValue: ZMQ_DEALER)
  public static let router = SocketKind(rawValue: ZMQ_ROUTER)
  public static let pull = SocketKind(rawValue: ZMQ_PULL)
  public static let push = SocketKind(rawValue: ZMQ_PUSH)

  public var description: String {
    switch self {
    case .pair: "PAIR"
    case .pub: "PUB"
    case .sub: "SUB"
    case .req: "REQ"
    case .rep: "REP"
    case .dealer: "DEALER"
    case .router: "ROUTER"
    case .pull: "PULL"
    case .push: "PUSH"
    default: "socket type \(rawValue)"
    }
  }
}

/// A message received, with the identity of the connection it came on.
public struct ReceivedMessage: Sendable {
  public var frames: [Data]
  /// The `User-Id` a ZAP handler admitted the connection with; nil when none did.
  public var userID: String?

  public init(frames: [Data], userID: String?) {
    self.frames = frames
    self.userID = userID
  }
}

/// One ZeroMQ socket.
///
/// Like a SQLite connection, a socket is not thread-safe and deliberately not `Sendable`:
/// one thread or actor owns it. Messages are lists of frames (`[Data]`).
///
/// ```swift
/// let context = BusContext()
/// let socket = try BusSocket(context, .dealer)
/// try socket.connect("ipc:///run/user/1000/hearth/hub.sock")
/// try socket.send([Data(#"{"v":1,"type":"hello"}"#.utf8)])
/// let reply = try socket.receive(timeout: .seconds(1))
/// ```
public final class BusSocket {
  let handle: UnsafeMutableRawPointer
  public let kind: SocketKind
  /// The endpoints bound or connected, for error messages.
  public private(set) var endpoints: [String] = []
  private var isClosed = false
  /// The `ZMQ_RCVTIMEO` last set (libzmq's default: -1, wait as long as it takes).
  private var receiveTimeout: Int32 = -1
  /// The socket's `ZMQ_FD`, once asked for (see `wait(orDescriptors:timeout:)`).
  private var notifier: Int32?
  /// Whether `ZMQ_EVENTS` was read after the socket was last used: its descriptor then
  /// signals the next change (see `wait(orDescriptors:timeout:)`).
  private var isSettled = false
  /// Keeps the context alive as long as the socket.
  private let context: BusContext

  public init(_ context: BusContext, _ kind: SocketKind) throws {
    guard let handle = zmq_socket(context.handle, kind.rawValue) else {
      throw BusError.last("socket", kind: kind.description)
    }
    self.handle = handle
    self.kind = kind
    self.context = context
    // Sockets close at once by default: a closing program never hangs on unsent messages.
    try set(ZMQ_LINGER, Int32(0))
  }

  deinit { close() }

  /// Closes the socket; pending outgoing messages are dropped (linger 0 unless changed).
  public func close() {
    guard !isClosed else { return }
    isClosed = true
    zmq_close(handle)
  }

  public func bind(_ endpoint: String) throws {
    isSettled = false
    guard zmq_bind(handle, endpoint) == 0 else {
      throw BusError.last("bind", kind: kind.description, endpoint: endpoint)
    }
    endpoints.append(endpoint)
  }

  public func connect(_ endpoint: String) throws {
    isSettled = false
    guard zmq_connect(handle, endpoint) == 0 else {
      throw BusError.last("connect", kind: kind.description, endpoint: endpoint)
    }
    endpoints.append(endpoint)
  }

  public func disconnect(_ endpoint: String) throws {
    isSettled = false
    guard zmq_disconnect(handle, endpoint) == 0 else {
      throw BusError.last("disconnect", kind: kind.description, endpoint: endpoint)
    }
    endpoints.removeAll { $0 == endpoint }
  }

  /// The endpoint actually bound (for `tcp://127.0.0.1:*`, with the port chosen).
  public var lastEndpoint: String? {
    var buffer = [CChar](repeating: 0, count: 1024)
    var size = buffer.count
    guard zmq_getsockopt(handle, ZMQ_LAST_ENDPOINT, &buffer, &size) == 0 else { return nil }
    return text(buffer)
  }

  // MARK: - Sending and receiving

  /// Sends one message of several frames. With `dontWait`, throws `EAGAIN` instead of
  /// waiting when the high-water mark is reached.
  public func send(_ frames: [Data], dontWait: Bool = false) throws {
    isSettled = false
    precondition(!frames.isEmpty, "a message has at least one frame")
    for (index, frame) in frames.enumerated() {
      var flags: Int32 = index < frames.count - 1 ? ZMQ_SNDMORE : 0
      if dontWait { flags |= ZMQ_DONTWAIT }
      var sent: Int32 = -1
      repeat {
        sent = frame.withUnsafeBytes { bytes in
          zmq_send(handle, bytes.baseAddress, bytes.count, flags)
        }
      } while sent < 0 && zmq_errno() == EINTR
      guard sent >= 0 else {
        throw BusError.last("send", kind: kind.description, endpoint: endpoints.first)
      }
    }
  }

  /// Sends one message of text frames.
  public func send(_ frames: [String], dontWait: Bool = false) throws {
    try send(frames.map { Data($0.utf8) }, dontWait: dontWait)
  }

  /// Receives one whole message: every frame of it. Nil when `timeout` passes first
  /// (`nil` timeout: wait as long as it takes; `.zero`: do not wait).
  public func receive(timeout: Duration? = nil) throws -> [Data]? {
    try receiveMessage(timeout: timeout)?.frames
  }

  /// Receives one whole message with the identity the peer's connection was admitted with:
  /// the `User-Id` a ZAP handler gave it (see `ZAPHandler`), nil on a connection no handler
  /// admitted.
  ///
  /// The wait happens inside the first frame's receive (`ZMQ_RCVTIMEO`, or `ZMQ_DONTWAIT`
  /// for `.zero`), not in a `zmq_poll` before it: a `zmq_poll` costs two or three system
  /// calls of its own even when a message is already queued, and this is on every request
  /// and every reply. A signal that interrupts the wait returns nil, as a timeout does.
  public func receiveMessage(timeout: Duration? = nil) throws -> ReceivedMessage? {
    isSettled = false
    let wait = timeout.map { Int32($0.milliseconds) } ?? -1
    if wait != receiveTimeout {
      try set(ZMQ_RCVTIMEO, wait)
      receiveTimeout = wait
    }
    var frames: [Data] = []
    var userID: String?
    repeat {
      var message = zmq_msg_t()
      zmq_msg_init(&message)
      defer { zmq_msg_close(&message) }
      var received = zmq_msg_recv(&message, handle, 0)
      if received < 0, frames.isEmpty, zmq_errno() == EAGAIN || zmq_errno() == EINTR {
        return nil
      }
      // The frames after the first are queued with it: they never wait.
      while received < 0 && zmq_errno() == EINTR { received = zmq_msg_recv(&message, handle, 0) }
      guard received >= 0 else {
        throw BusError.last("receive", kind: kind.description, endpoint: endpoints.first)
      }
      let size = zmq_msg_size(&message)
      if size == 0 {
        frames.append(Data())
      } else {
        frames.append(Data(bytes: zmq_msg_data(&message), count: size))
      }
      // A ROUTER's first frame (the peer's routing id) is its own; the frames the peer sent
      // carry the connection's properties.
      if userID == nil, let value = zmq_msg_gets(&message, "User-Id") {
        userID = String(cString: value)
      }
    } while hasMoreFrames
    return ReceivedMessage(frames: frames, userID: userID)
  }

  private var hasMoreFrames: Bool {
    var more: Int32 = 0
    var size = MemoryLayout<Int32>.size
    zmq_getsockopt(handle, ZMQ_RCVMORE, &more, &size)
    return more != 0
  }

  /// What `poll(for:)` waits for.
  public struct Events: OptionSet, Sendable {
    public let rawValue: Int16
    public init(rawValue: Int16) { self.rawValue = rawValue }
    public static let readable = Events(rawValue: Int16(ZMQ_POLLIN))
    public static let writable = Events(rawValue: Int16(ZMQ_POLLOUT))
  }

  /// Waits until the socket has one of `events`, or `timeout` passes (false).
  public func poll(for events: Events, timeout: Duration) throws -> Bool {
    isSettled = false
    var item = zmq_pollitem_t(socket: handle, fd: 0, events: events.rawValue, revents: 0)
    let result = zmq_poll(&item, 1, Int(timeout.milliseconds))
    if result < 0 {
      // A signal (SIGTERM to a daemon) interrupts the wait: report "nothing yet" and let the
      // caller's loop look at why it was woken.
      if zmq_errno() == EINTR { return false }
      throw BusError.last("poll", kind: kind.description)
    }
    return result > 0
  }

  /// Waits until the socket is readable or one of `descriptors` (file descriptors) is, or
  /// `timeout` passes: whether the socket is, and which of the descriptors are.
  public func waitReadable(orDescriptors descriptors: [Int32], timeout: Duration) throws -> (
    socket: Bool, descriptors: [Bool]
  ) {
    let (socket, ready) = try wait(
      orDescriptors: descriptors.map { ($0, Events.readable) }, timeout: timeout)
    return (socket, ready.map { !$0.isEmpty })
  }

  /// Waits until the socket is readable or one of `descriptors` has one of its events (an
  /// error or a hang-up counts as readable), or `timeout` passes: whether the socket is
  /// readable, and what each descriptor has.
  ///
  /// One `poll(2)`, with the socket's own descriptor (`ZMQ_FD`) beside the others. That
  /// descriptor becomes readable when libzmq has news for the socket, and its news is taken
  /// (and the socket's state read) by `ZMQ_EVENTS` — and by every send and receive, which is
  /// why the state is read again before a wait once the socket has been used (`isSettled`).
  /// Unused since, the descriptor alone says when something comes: a wait then costs one
  /// system call where `zmq_poll` makes four or five.
  public func wait(orDescriptors descriptors: [(fd: Int32, events: Events)], timeout: Duration)
    throws -> (socket: Bool, ready: [Events])
  {
    let notifier = try notifierDescriptor()
    var readableFirst = false
    if !isSettled { readableFirst = try hasMessage() }
    var polled =
      [pollfd(fd: notifier, events: Int16(POLLIN), revents: 0)]
      + descriptors.map { pollfd(fd: $0.fd, events: $0.events.pollEvents, revents: 0) }
    guard
      try Descriptors.poll(&polled, milliseconds: readableFirst ? 0 : timeout.milliseconds)
    else { return (readableFirst, descriptors.map { _ in [] }) }
    var socket = readableFirst
    if !socket, polled[0].revents != 0 { socket = try hasMessage() }
    return (socket, polled.dropFirst().map { Events(polled: $0.revents) })
  }

  /// The socket's `ZMQ_FD` (asked for once).
  private func notifierDescriptor() throws -> Int32 {
    if let notifier { return notifier }
    var descriptor: Int32 = -1
    var size = MemoryLayout<Int32>.size
    guard zmq_getsockopt(handle, ZMQ_FD, &descriptor, &size) == 0 else {
      throw BusError.last("getsockopt(ZMQ_FD)", kind: kind.description)
    }
    notifier = descriptor
    return descriptor
  }

  /// Whether a message waits (`ZMQ_EVENTS`, which also takes libzmq's news for the socket:
  /// when none waits, its descriptor signals the next until the socket is used again; one
  /// that waits is looked for again at the next wait, whoever receives it).
  private func hasMessage() throws -> Bool {
    var events: Int32 = 0
    var size = MemoryLayout<Int32>.size
    guard zmq_getsockopt(handle, ZMQ_EVENTS, &events, &size) == 0 else {
      throw BusError.last("getsockopt(ZMQ_EVENTS)", kind: kind.description)
    }
    let readable = events & ZMQ_POLLIN != 0
    isSettled = !readable
    return readable
  }

  // MARK: - Options

  func set(_ option: Int32, _ value: Int32) throws {
    isSettled = false
    var value = value
    guard zmq_setsockopt(handle, option, &value, MemoryLayout<Int32>.size) == 0 else {
      throw BusError.last("setsockopt(\(option))", kind: kind.description)
    }
  }

  func set(_ option: Int32, _ value: Int64) throws {
    isSettled = false
    var value = value
    guard zmq_setsockopt(handle, option, &value, MemoryLayout<Int64>.size) == 0 else {
      throw BusError.last("setsockopt(\(option))", kind: kind.description)
    }
  }

  func set(_ option: Int32, _ bytes: Data) throws {
    isSettled = false
    let result = bytes.withUnsafeBytes { zmq_setsockopt(handle, option, $0.baseAddress, $0.count) }
    guard result == 0 else { throw BusError.last("setsockopt(\(option))", kind: kind.description) }
  }

  /// Messages queued per peer before sends block (or, on PUB, are dropped). 0: no limit.
  public func setSendHighWaterMark(_ count: Int) throws { try set(ZMQ_SNDHWM, Int32(count)) }

  /// Messages queued per peer on the receiving side.
  public func setReceiveHighWaterMark(_ count: Int) throws { try set(ZMQ_RCVHWM, Int32(count)) }

  /// How long `close` waits to deliver pending messages (default here: not at all).
  public func setLinger(_ duration: Duration) throws { try set(ZMQ_LINGER, duration.milliseconds) }

  /// The largest message accepted from a peer; a larger one drops the connection. -1: none.
  public func setMaximumMessageSize(_ bytes: Int) throws { try set(ZMQ_MAXMSGSIZE, Int64(bytes)) }

  /// How long a new connection has to finish its handshake (CURVE included) before it is
  /// dropped (libzmq's default: 30 s).
  public func setHandshakeDeadline(_ deadline: Duration) throws {
    try set(ZMQ_HANDSHAKE_IVL, Int32(clamping: deadline.milliseconds))
  }

  /// Sends a ZMTP heartbeat every `interval` and drops a peer silent for `timeout`.
  public func setHeartbeat(interval: Duration, timeout: Duration) throws {
    try set(ZMQ_HEARTBEAT_IVL, interval.milliseconds)
    try set(ZMQ_HEARTBEAT_TIMEOUT, timeout.milliseconds)
  }

  /// The identity a ROUTER sees for this DEALER.
  public func setRoutingID(_ id: Data) throws { try set(ZMQ_ROUTING_ID, id) }

  /// ROUTER: fail (`EHOSTUNREACH`) instead of silently dropping a message to an unknown peer.
  public func setRouterMandatory(_ isMandatory: Bool) throws {
    try set(ZMQ_ROUTER_MANDATORY, Int32(isMandatory ? 1 : 0))
  }

  /// Queue messages only to completed connections.
  public func setImmediate(_ isImmediate: Bool) throws {
    try set(ZMQ_IMMEDIATE, Int32(isImmediate ? 1 : 0))
  }

  /// How long a dropped connection waits before reconnecting.
  public func setReconnectInterval(_ duration: Duration) throws {
    try set(ZMQ_RECONNECT_IVL, duration.milliseconds)
  }

  /// SUB: receive messages whose first frame starts with `prefix` ("" for everything).
  public func subscribe(_ prefix: String) throws { try set(ZMQ_SUBSCRIBE, Data(prefix.utf8)) }

  public func unsubscribe(_ prefix: String) throws { try set(ZMQ_UNSUBSCRIBE, Data(prefix.utf8)) }

  /// The ZAP domain of the endpoints bound or connected after this call: what a ZAP handler
  /// is told, to apply each endpoint's rules ("ipc", "tcp").
  public func setZAPDomain(_ domain: String) throws { try set(ZMQ_ZAP_DOMAIN, Data(domain.utf8)) }

  /// Makes the endpoints bound after this call CURVE servers with `keys`: every peer must
  /// know the server's public key (and, when a ZAP handler runs, be admitted by it).
  public func makeCurveServer(_ keys: CurveKeyPair) throws {
    try set(ZMQ_CURVE_SERVER, Int32(1))
    try set(ZMQ_CURVE_SECRETKEY, Data(keys.secretKey.utf8))
  }

  /// Makes the endpoints connected after this call CURVE clients of the server whose public
  /// key is `serverKey`, authenticated as `keys`.
  public func makeCurveClient(_ keys: CurveKeyPair, serverKey: String) throws {
    try set(ZMQ_CURVE_SERVERKEY, Data(serverKey.utf8))
    try set(ZMQ_CURVE_PUBLICKEY, Data(keys.publicKey.utf8))
    try set(ZMQ_CURVE_SECRETKEY, Data(keys.secretKey.utf8))
  }
}

extension Duration {
  /// Whole milliseconds, for libzmq's options (at least 0, at most Int32.max).
  var milliseconds: Int32 {
    let (seconds, attoseconds) = components
    let total = seconds * 1000 + attoseconds / 1_000_000_000_000_000
    return Int32(clamping: max(0, total))
  }

  /// The duration in seconds, for APIs that take a `TimeInterval`.
  public var timeInterval: TimeInterval {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}

/// The text of a NUL-terminated C buffer.
func text(_ buffer: [CChar]) -> String {
  String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
