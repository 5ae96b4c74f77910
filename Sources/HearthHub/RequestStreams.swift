import Foundation
import HearthWire
import HearthZMQ

/// The hub's end of the request stream (`RequestStream`, Protocols/README.md): its listening
/// socket at `<runtime>/hub.stream` and the connections on it, served by the hub's thread
/// beside the ZeroMQ request socket. Nothing here blocks: the sockets are non-blocking, what
/// a client does not read waits in its connection's output, and a client that lets too much
/// wait is disconnected.
///
/// A request that arrives here is handed to the session as the ROUTER would hand it: the
/// frames `[client, body]` with the connection's key as its user id, `client` being an id
/// no ROUTER makes (`isStreamClient`).
///
/// The hub's thread does everything here; the syncing thread also sends replies (`send`,
/// through `HubOutbox`), so each entry point holds `lock`.
final class RequestStreams: @unchecked Sendable {
  // Safe to share: every mutable property is read and written with `lock` held (each
  // entry point takes it; the private methods run under it); the rest is immutable.
  private let lock = NSLock()

  private enum State {
    /// Waiting for the client's greeting.
    case greeting
    /// The hub has answered; waiting for the client's proof.
    case proving(key: Data, hubNonce: Data, clientNonce: Data, publicKey: Data)
    /// Proven: requests arrive under `userID` (the client's public key, Z85).
    case open(userID: String)
  }

  private struct Connection {
    let fd: Int32
    var state = State.greeting
    var input = FrameBuffer()
    /// Frames waiting for the socket to take them, and how much of the first went.
    var output: [(header: [UInt8], body: Data)] = []
    var sentOfFirst = 0
    var waitingBytes = 0
    /// When it is closed unless it has got further (monotonic nanoseconds): the end of its
    /// handshake, or of the wait for its refusal to be read; nil once it is open.
    var deadline: UInt64?
    /// Closed once its output is out (it was refused).
    var closing = false
  }

  /// The most connections at once; more are closed as they come.
  static let maximumConnections = 1024
  /// How long a client has to finish the handshake, and to read the refusal that closes
  /// its connection.
  static let deadline: UInt64 = 5_000_000_000
  /// How many requests may wait for the session before the hub stops reading.
  static let maximumWaiting = 256

  private let listener: Int32
  let path: String
  private let keys: (secret: Data, public: Data)
  /// The largest frame taken (`HubLimits.transportMaxMessageSize`).
  private let limit: Int
  /// Most bytes waiting for one client to read before it is disconnected.
  private let maximumOutput: Int
  private var connections: [UInt64: Connection] = [:]
  private var nextID: UInt64 = 1
  private var waiting: [ReceivedMessage] = []
  private var waitingStart = 0
  /// Which connection each polled descriptor after the listener's is.
  private var polled: [UInt64] = []
  private var chunk = [UInt8](repeating: 0, count: 1 << 16)

  init(path: String, keys: CurveKeyPair, limit: Int) throws {
    guard let secret = CurveKeyPair.raw(keys.secretKey),
      let publicKey = CurveKeyPair.raw(keys.publicKey)
    else { throw HubError("the hub's CURVE keys are not Z85 keys") }
    self.path = path
    self.keys = (secret, publicKey)
    self.limit = limit
    maximumOutput = max(64 << 20, 2 * limit)
    unlink(path)
    listener = socket(
      AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
    guard listener >= 0 else {
      throw HubError("cannot make the request stream's socket: \(Self.error())")
    }
    guard let bound = withUnixAddress(path, { bind(listener, $0, $1) }) else {
      Glibc.close(listener)
      throw HubError("the request stream's path is too long for a unix socket: \(path)")
    }
    guard bound == 0, listen(listener, 128) == 0 else {
      let reason = Self.error()
      Glibc.close(listener)
      throw HubError("cannot listen at \(path): \(reason)")
    }
  }

  /// Whether `client` names a connection of the stream: nine bytes, the first zero. A
  /// ROUTER's own ids are five bytes (a zero, then a number), and an id a peer chooses may
  /// not begin with a zero.
  static func isStreamClient(_ client: Data) -> Bool {
    client.count == 9 && client.first == 0
  }

  private static func client(_ id: UInt64) -> Data {
    var bytes = [UInt8](repeating: 0, count: 9)
    for index in 0..<8 { bytes[8 - index] = UInt8(truncatingIfNeeded: id >> (8 * index)) }
    return Data(bytes)
  }

  private static func connection(_ client: Data) -> UInt64 {
    client.dropFirst().reduce(0) { $0 << 8 | UInt64($1) }
  }

  /// Whether requests wait for the session (the loop should not sleep).
  var hasRequests: Bool { lock.withLock { waitingStart < waiting.count } }

  /// What to poll: the listener, then each connection (readable while few requests wait,
  /// writable while output waits).
  func descriptors() -> [(fd: Int32, events: BusSocket.Events)] {
    lock.lock()
    defer { lock.unlock() }
    let reading = waiting.count - waitingStart < Self.maximumWaiting
    var descriptors: [(fd: Int32, events: BusSocket.Events)] = [(listener, .readable)]
    polled.removeAll(keepingCapacity: true)
    for (id, connection) in connections {
      var events: BusSocket.Events = reading && !connection.closing ? .readable : []
      if !connection.output.isEmpty { events.insert(.writable) }
      polled.append(id)
      descriptors.append((connection.fd, events))
    }
    return descriptors
  }

  /// Serves what `descriptors()`' poll found: new connections, what came, what may go.
  func serve(_ ready: [BusSocket.Events]) {
    lock.lock()
    defer { lock.unlock() }
    guard let listening = ready.first else { return }
    if listening.contains(.readable) { accept() }
    for (id, events) in zip(polled, ready.dropFirst()) where !events.isEmpty {
      if events.contains(.writable) { flush(id) }
      if events.contains(.readable) { read(id) }
    }
    expire()
  }

  /// Up to `count` requests, in the order they came.
  func take(upTo count: Int) -> [ReceivedMessage] {
    lock.lock()
    defer { lock.unlock() }
    let end = min(waiting.count, waitingStart + count)
    let taken = Array(waiting[waitingStart..<end])
    waitingStart = end
    if waitingStart == waiting.count {
      waiting.removeAll(keepingCapacity: true)
      waitingStart = 0
    }
    return taken
  }

  /// Sends `body` to `client`: now as far as the socket takes it, the rest when it is
  /// writable. A connection gone drops it.
  func send(_ client: Data, _ body: Data) {
    lock.lock()
    defer { lock.unlock() }
    let id = Self.connection(client)
    guard connections[id] != nil else { return }
    enqueue(id, body)
  }

  /// Sends what waits (for at most `deadline`, blocking in poll) and closes everything.
  func close(flushingFor deadline: Duration = .seconds(1)) {
    lock.lock()
    defer { lock.unlock() }
    let end = ContinuousClock.now + deadline
    while ContinuousClock.now < end, connections.values.contains(where: { !$0.output.isEmpty }) {
      var items = connections.values.filter { !$0.output.isEmpty }.map {
        pollfd(fd: $0.fd, events: Int16(POLLOUT), revents: 0)
      }
      _ = poll(&items, nfds_t(items.count), 50)
      for id in Array(connections.keys) { flush(id) }
    }
    for connection in connections.values { Glibc.close(connection.fd) }
    connections.removeAll()
    Glibc.close(listener)
    unlink(path)
  }

  // MARK: - Connections

  private func accept() {
    while true {
      let fd = Glibc.accept(listener, nil, nil)
      guard fd >= 0 else { return }
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      guard connections.count < Self.maximumConnections else {
        Glibc.close(fd)
        continue
      }
      connections[nextID] = Connection(
        fd: fd, deadline: DispatchTime.now().uptimeNanoseconds + Self.deadline)
      nextID += 1
    }
  }

  private func drop(_ id: UInt64) {
    guard let connection = connections.removeValue(forKey: id) else { return }
    Glibc.close(connection.fd)
  }

  /// Reads what the connection has (at most 256 KiB a turn, so that one client does not
  /// hold the others up) and handles each frame complete.
  private func read(_ id: UInt64) {
    var total = 0
    while total < 1 << 18, let fd = connections[id]?.fd {
      let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if count < 0 {
        if errno == EINTR { continue }
        if errno != EAGAIN && errno != EWOULDBLOCK { drop(id) }
        return
      }
      if count == 0 { return drop(id) }
      total += count
      chunk.withUnsafeBytes {
        connections[id]?.input.append(UnsafeRawBufferPointer(rebasing: $0[..<count]))
      }
      handleFrames(id)
      if count < chunk.count { return }
    }
  }

  private func handleFrames(_ id: UInt64) {
    while let state = connections[id]?.state, connections[id]?.closing == false {
      let open: String?
      if case .open(let userID) = state { open = userID } else { open = nil }
      let frame: Data?
      do {
        frame = try connections[id]?.input.next(
          limit: open == nil ? StreamHandshake.greetingSize : limit)
      } catch {
        guard open != nil, let error = error as? FrameTooLarge else { return drop(id) }
        return refuse(
          id,
          ErrorReply(
            id: nil, code: .tooLarge,
            message: "a frame of \(error.length) bytes is past the stream's limit of "
              + "\(error.limit); the connection is closed"))
      }
      guard let frame else { return }
      switch state {
      case .greeting:
        greet(id, frame)
      case .proving(let key, let hubNonce, let clientNonce, let publicKey):
        guard frame.count == StreamHandshake.proofSize,
          StreamHandshake.same(
            frame,
            StreamHandshake.clientProof(key: key, hubNonce: hubNonce, clientNonce: clientNonce)),
          let userID = CurveKeyPair.z85(publicKey)
        else {
          return refuse(
            id,
            ErrorReply(
              id: nil, code: .unauthorized,
              message: "the client did not prove it holds the secret key of its public key"))
        }
        connections[id]?.state = .open(userID: userID)
        connections[id]?.deadline = nil
      case .open(let userID):
        waiting.append(ReceivedMessage(frames: [Self.client(id), frame], userID: userID))
      }
    }
  }

  /// Answers a greeting with the hub's nonce and proof; anything else than a greeting
  /// closes the connection.
  private func greet(_ id: UInt64, _ frame: Data) {
    guard frame.count == StreamHandshake.greetingSize,
      frame.prefix(StreamHandshake.magic.count) == StreamHandshake.magic
    else { return drop(id) }
    let publicKey = Data(frame.dropFirst(8).prefix(32))
    let clientNonce = Data(frame.suffix(32))
    guard
      let key = StreamHandshake.sharedKey(
        secret: keys.secret, peer: publicKey, client: publicKey, hub: keys.public)
    else { return drop(id) }
    let hubNonce = StreamHandshake.nonce()
    connections[id]?.state = .proving(
      key: key, hubNonce: hubNonce, clientNonce: clientNonce, publicKey: publicKey)
    enqueue(
      id,
      hubNonce + StreamHandshake.hubProof(key: key, clientNonce: clientNonce, hubNonce: hubNonce))
  }

  /// Sends `error` and closes the connection once it is out.
  private func refuse(_ id: UInt64, _ error: ErrorReply) {
    if let body = try? WireCoding.encode(error) { enqueue(id, body) }
    connections[id]?.closing = true
    connections[id]?.deadline = DispatchTime.now().uptimeNanoseconds + Self.deadline
    if connections[id]?.output.isEmpty ?? false { drop(id) }
  }

  /// Closes the connections past their deadline.
  private func expire() {
    let now = DispatchTime.now().uptimeNanoseconds
    for (id, connection) in connections where connection.deadline.map({ now > $0 }) ?? false {
      drop(id)
    }
  }

  // MARK: - Output

  private func enqueue(_ id: UInt64, _ body: Data) {
    guard var connection = connections[id] else { return }
    connection.output.append((FrameBuffer.header(body.count), body))
    connection.waitingBytes += 4 + body.count
    connections[id] = connection
    guard connection.waitingBytes <= maximumOutput else { return drop(id) }
    if connection.output.count == 1 { flush(id) }
  }

  /// Sends waiting frames until the socket would block.
  private func flush(_ id: UInt64) {
    guard var connection = connections[id] else { return }
    defer { if connections[id] != nil { connections[id] = connection } }
    while let (header, body) = connection.output.first {
      let sent = sendFrame(connection.fd, header: header, body: body, from: connection.sentOfFirst)
      if sent < 0 {
        if errno == EINTR { continue }
        if errno == EAGAIN || errno == EWOULDBLOCK { return }
        connections[id] = connection
        return drop(id)
      }
      connection.sentOfFirst += sent
      connection.waitingBytes -= sent
      if connection.sentOfFirst == header.count + body.count {
        connection.output.removeFirst()
        connection.sentOfFirst = 0
      }
    }
    if connection.closing {
      connections[id] = connection
      drop(id)
    }
  }

  private static func error() -> String { String(cString: strerror(errno)) }
}
