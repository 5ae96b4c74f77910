import Foundation
import HearthDependencies
import HearthSupport
import HearthWire

/// The hub's end of the request stream (`RequestStream`, Protocols/README.md): its listening
/// socket at `<runtime>/hub.stream` and the connections on it, served by the hub's thread
/// beside the ZeroMQ request socket. Nothing here blocks: the sockets are non-blocking, what
/// a client does not read waits in its connection's output, and a client that lets too much
/// wait is disconnected.
///
/// A request that arrives here is handed to the session with its route
/// (`ReplyRoute.stream`, the connection's number) and the connection's key as its user id.
///
/// What one local process may hold here is bounded (Protocols/README.md "Limits"): the
/// connections of a principal (a plugin, or every key of no plugin together), the
/// connections still in their handshake (past it, the oldest is closed), the requests a
/// connection has waiting (past it, the hub stops reading it), and the replies waiting for
/// clients to read, per connection and all together (past either, the connection with the
/// most waiting is closed). Requests wait per connection and are taken in turn by principal
/// (`FairQueue`); those of a connection that closes go with it, unrun.
///
/// The hub's thread does everything here, replies included (`HubSession.deliver`).
public final class RequestStreams {

  private enum State {
    /// Waiting for the client's greeting.
    case greeting
    /// The hub has answered; waiting for the client's confirmation, the first frame only
    /// the holder of the secret key of `publicKey` can seal.
    case confirming(publicKey: Data)
    /// Confirmed: requests arrive under `userID` (the client's public key, Z85).
    case open(userID: String, principal: String)
  }

  /// A class, not a struct: the hub's thread changes a connection in place on every frame,
  /// where a copy taken out of `connections` and stored back would copy its buffers.
  private final class Connection {
    let fd: Int32
    var state = State.greeting
    /// The handshake's ciphers, from the hub's answer on: every frame after it is sealed.
    var session: NoiseSession?
    var input = FrameBuffer()
    /// Frames waiting for the socket to take them, and how much of the first went.
    var output: [(header: [UInt8], body: Data)] = []
    var sentOfFirst = 0
    var waitingBytes = 0
    /// When it is closed unless it has got further (monotonic nanoseconds): the end of its
    /// handshake, or of the wait for its refusal to be read; nil once it is open.
    var deadline: Duration?
    /// Closed once its output is out (it was refused).
    var closing = false

    init(fd: Int32, deadline: Duration) {
      self.fd = fd
      self.deadline = deadline
    }
  }

  /// What the stream holds at most (see `StreamLimits`).
  public let limits: StreamLimits

  private let listener: Int32
  public let path: String
  private let keys: Noise.KeyPair
  /// The largest frame taken (`HubLimits.transportMaxMessageSize`).
  private let limit: Int
  /// Most bytes waiting for one client to read before it is disconnected.
  private let maximumOutput: Int
  private var connections: [UInt64: Connection] = [:]
  private var nextID: UInt64 = 1
  /// The requests read and not yet taken, and their bytes.
  private var waiting = FairQueue<UInt64, ArrivedRequest>()
  private var waitingBytes = 0
  /// The replies waiting for their clients to read them, all together.
  private var outputBytes = 0
  /// The connections still in their handshake, oldest first (some may have finished it or
  /// closed since: they are skipped).
  private var handshaking: [UInt64] = []
  /// How many connections each principal has open.
  private var openByPrincipal: [String: Int] = [:]
  /// While accepting fails for want of descriptors, the listener rests until then.
  private var acceptRestsUntil: Duration = .zero
  /// What has been refused or closed for a limit, since the start (for `hearth status`).
  private var counters = Counters()

  private struct Counters {
    var refusedConnections = 0
    var closedHandshakes = 0
    var refusedForPrincipal = 0
    var closedForReplies = 0
    var acceptFailures = 0
  }
  /// Output freed by closed connections since memory was last handed back to the system.
  private var freedSinceTrim = 0
  /// Which connection each polled descriptor after the listener's is.
  private var polled: [UInt64] = []
  private var chunk = [UInt8](repeating: 0, count: 1 << 16)
  /// What the deadlines are measured on (the hub's clock).
  private let clock: Stopwatch

  public init(
    path: String, keys: CurveKeyPair, limit: Int, limits: StreamLimits,
    clock: Stopwatch = Stopwatch(ContinuousClock())
  ) throws {
    guard let pair = StreamHandshake.keyPair(keys) else {
      throw StreamError("the hub's CURVE keys are not a Z85 key pair")
    }
    self.path = path
    self.keys = pair
    self.limit = limit
    self.limits = limits
    self.clock = clock
    maximumOutput = min(limits.replyBudget, max(64 << 20, 2 * limit))
    unlink(path)
    listener = socket(
      AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
    guard listener >= 0 else {
      throw StreamError("cannot make the request stream's socket: \(Self.error())")
    }
    guard let bound = withUnixAddress(path, { bind(listener, $0, $1) }) else {
      Glibc.close(listener)
      throw StreamError("the request stream's path is too long for a unix socket: \(path)")
    }
    guard bound == 0, listen(listener, 128) == 0 else {
      let reason = Self.error()
      Glibc.close(listener)
      throw StreamError("cannot listen at \(path): \(reason)")
    }
  }

  /// Whether requests wait for the session (the loop should not sleep).
  public var hasRequests: Bool { !waiting.isEmpty }

  /// How many principals have requests waiting.
  public var waitingPrincipals: Int { waiting.waitingPrincipals }

  /// Whether the client of `route` is still connected: false for a stream connection that
  /// has closed; true for a ZeroMQ client (ZeroMQ does not say when its peers leave).
  public func isConnected(_ route: ReplyRoute) -> Bool {
    guard case .stream(let id) = route else { return true }
    return connections[id] != nil
  }

  /// The connections open now, the replies waiting to be read, the bounds and what they
  /// refused, beside the process's descriptors (`files`).
  public func status(files: (open: Int, soft: Int, hard: Int), waitingElsewhere: Int)
    -> ConnectionStatus
  {
    ConnectionStatus(
      openFiles: files.open, fileLimit: files.soft, fileHardLimit: files.hard,
      streamConnections: connections.count, streamHandshaking: handshakingCount(),
      waitingRequests: waiting.count + waitingElsewhere, replyBytes: outputBytes,
      maxStreamConnections: limits.maximumConnections,
      maxConnectionsPerPrincipal: limits.maximumConnectionsPerPrincipal,
      replyBudget: limits.replyBudget, refusedConnections: counters.refusedConnections,
      closedHandshakes: counters.closedHandshakes,
      refusedForPrincipal: counters.refusedForPrincipal,
      closedForReplies: counters.closedForReplies, acceptFailures: counters.acceptFailures)
  }

  /// What to poll: the listener (unless it rests), then each connection (readable while its
  /// requests and everyone's are under their bounds, writable while output waits).
  public func descriptors() -> [(fd: Int32, events: BusSocket.Events)] {
    let resting = clock.elapsed < acceptRestsUntil
    let overBudget = waitingBytes + bufferedInput() > limits.inputBudget
    var descriptors: [(fd: Int32, events: BusSocket.Events)] = [
      (listener, resting ? [] : .readable)
    ]
    polled.removeAll(keepingCapacity: true)
    for (id, connection) in connections {
      let reading =
        !connection.closing && waiting.count(of: id) < limits.maximumWaitingPerConnection
        && (!overBudget || connection.input.count == 0)
      var events: BusSocket.Events = reading ? .readable : []
      if !connection.output.isEmpty { events.insert(.writable) }
      polled.append(id)
      descriptors.append((connection.fd, events))
    }
    return descriptors
  }

  /// Serves what `descriptors()`' poll found: new connections, what came, what may go.
  /// `principal` names who a key is: a plugin's name, or the same name for every key of
  /// no plugin.
  public func serve(_ ready: [BusSocket.Events], principal: (String) -> String) {
    guard let listening = ready.first else { return }
    if listening.contains(.readable) { accept() }
    for (id, events) in zip(polled, ready.dropFirst()) where !events.isEmpty {
      if events.contains(.writable) { flush(id) }
      if events.contains(.readable) { read(id, principal: principal) }
    }
    // Frames read before their connection had its most waiting: the socket may have
    // nothing more to say, so they are not left for its next readiness.
    for (id, connection) in connections
    where connection.input.count >= 4
      && waiting.count(of: id) < limits.maximumWaitingPerConnection
    {
      handleFrames(id, principal: principal)
    }
    expire()
    trimIfWorthIt()
  }

  /// Up to `count` requests, taken in turn by principal (one of each while several wait,
  /// or while `oneEach`: others wait elsewhere).
  public func take(upTo count: Int, oneEach: Bool = false) -> [ArrivedRequest] {
    let taken = waiting.take(upTo: count, oneEach: oneEach)
    for message in taken { waitingBytes -= message.frames.last?.count ?? 0 }
    return taken
  }

  /// Hands back requests taken and not served (see `FairQueue.putBack`), last first; those
  /// of a connection that has closed meanwhile are dropped.
  public func putBack(_ messages: some BidirectionalCollection<ArrivedRequest>) {
    for message in messages.reversed() {
      guard case .stream(let id) = message.route,
        case .open(_, let principal)? = connections[id]?.state
      else { continue }
      waiting.putBack(message, principal: principal, source: id)
      waitingBytes += message.frames.last?.count ?? 0
    }
  }

  /// Sends `body` on connection `id`: now as far as the socket takes it, the rest when it
  /// is writable. A connection gone drops it.
  public func send(_ id: UInt64, _ body: Data) {
    guard connections[id] != nil else { return }
    enqueue(id, body)
    keepWithinReplyBudget()
  }

  /// Sends what waits (for at most `deadline`, blocking in poll) and closes everything.
  public func close(flushingFor deadline: Duration = .seconds(1)) {
    let end = ContinuousClock.now + deadline
    while ContinuousClock.now < end, connections.values.contains(where: { !$0.output.isEmpty }) {
      let waiting = connections.values.filter { !$0.output.isEmpty }
      _ = try? Descriptors.wait(
        waiting.map { ($0.fd, BusSocket.Events.writable) }, timeout: .milliseconds(50))
      for id in Array(connections.keys) { flush(id) }
    }
    for id in Array(connections.keys) { drop(id) }
    Glibc.close(listener)
    unlink(path)
  }

  // MARK: - Connections

  /// Takes the connections waiting, at most 256 a turn. Past the bound on connections a
  /// new one is closed at once; past the bound on handshakes the oldest handshake is
  /// closed (an honest client finishes in milliseconds, so a flood of idle connections
  /// pushes out only its own). Out of descriptors, the listener rests 100 ms.
  private func accept() {
    for _ in 0..<256 {
      let fd = Glibc.accept(listener, nil, nil)
      guard fd >= 0 else {
        if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM {
          acceptRestsUntil = clock.elapsed + .milliseconds(100)
          counters.acceptFailures += 1
        }
        return
      }
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      guard connections.count < limits.maximumConnections else {
        Glibc.close(fd)
        counters.refusedConnections += 1
        continue
      }
      if handshakingCount() >= limits.maximumHandshaking, let oldest = handshaking.first {
        drop(oldest)
        counters.closedHandshakes += 1
      }
      connections[nextID] = Connection(
        fd: fd, deadline: clock.elapsed + limits.handshakeDeadline)
      handshaking.append(nextID)
      nextID += 1
    }
  }

  /// How many connections are in their handshake (and forgets those no longer).
  private func handshakingCount() -> Int {
    handshaking.removeAll { id in
      guard let connection = connections[id] else { return true }
      if case .open = connection.state { return true }
      return false
    }
    return handshaking.count
  }

  private func drop(_ id: UInt64) {
    guard let connection = connections.removeValue(forKey: id) else { return }
    Glibc.close(connection.fd)
    if case .open(_, let principal) = connection.state {
      openByPrincipal[principal, default: 1] -= 1
      if openByPrincipal[principal] == 0 { openByPrincipal[principal] = nil }
    }
    for message in waiting.remove(source: id) { waitingBytes -= message.frames.last?.count ?? 0 }
    outputBytes -= connection.waitingBytes
    freedSinceTrim += connection.waitingBytes + connection.input.count
  }

  /// The bytes read and not yet framed, all connections together.
  private func bufferedInput() -> Int { connections.values.reduce(0) { $0 + $1.input.count } }

  /// Reads what the connection has (at most 256 KiB a turn, so that one client does not
  /// hold the others up) and handles each frame complete.
  private func read(_ id: UInt64, principal: (String) -> String) {
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
      handleFrames(id, principal: principal)
      if count < chunk.count { return }
      if waiting.count(of: id) >= limits.maximumWaitingPerConnection { return }
    }
  }

  private func handleFrames(_ id: UInt64, principal: (String) -> String) {
    while let state = connections[id]?.state, connections[id]?.closing == false {
      let open: String?
      if case .open(let userID, _) = state { open = userID } else { open = nil }
      let sealed: Data?
      do {
        sealed = try connections[id]?.input.next(
          limit: open == nil ? StreamHandshake.greetingSize : limit + Noise.tagSize)
      } catch {
        guard open != nil, let error = error as? FrameTooLarge else { return drop(id) }
        return refuse(
          id,
          ErrorReply(
            id: nil, code: .tooLarge,
            message: "a frame of \(error.length - Noise.tagSize) bytes is past the stream's "
              + "limit of \(error.limit - Noise.tagSize); the connection is closed"))
      }
      guard let sealed else { return }
      switch state {
      case .greeting:
        greet(id, sealed)
      case .confirming(let publicKey):
        guard let frame = unseal(id, sealed) else { return }
        guard frame.isEmpty, let userID = CurveKeyPair.z85(publicKey) else { return drop(id) }
        let name = principal(userID)
        guard openByPrincipal[name, default: 0] < limits.maximumConnectionsPerPrincipal else {
          counters.refusedForPrincipal += 1
          return refuse(
            id,
            ErrorReply(
              id: nil, code: .busy,
              message:
                "this key's principal (\(name == Self.anonymous ? "the keys of no plugin" : "plugin \(name)")) "
                + "has \(limits.maximumConnectionsPerPrincipal) connections open to the request "
                + "stream, its most; close one, or use hub.sock"))
        }
        openByPrincipal[name, default: 0] += 1
        connections[id]?.state = .open(userID: userID, principal: name)
        connections[id]?.deadline = nil
      case .open(let userID, let name):
        guard let frame = unseal(id, sealed) else { return }
        waiting.append(
          ArrivedRequest(route: .stream(id), frames: [frame], userID: userID), principal: name,
          source: id)
        waitingBytes += frame.count
        if waiting.count(of: id) >= limits.maximumWaitingPerConnection { return }
      }
    }
  }

  /// The plaintext of a frame after the handshake; nil, the connection closed without a
  /// word, when it does not decrypt: it was not sealed by the client of this handshake, or
  /// was changed, replayed or reordered.
  private func unseal(_ id: UInt64, _ sealed: Data) -> Data? {
    guard let frame = try? connections[id]?.session?.receive.decrypt(sealed)
    else {
      drop(id)
      return nil
    }
    return frame
  }

  /// Answers a greeting (the first message of the Noise IK handshake) with the second;
  /// anything else than a greeting whose handshake message holds closes the connection.
  private func greet(_ id: UInt64, _ frame: Data) {
    guard frame.count == StreamHandshake.greetingSize,
      frame.prefix(StreamHandshake.magic.count) == StreamHandshake.magic
    else { return drop(id) }
    var handshake = NoiseIK.responder(prologue: StreamHandshake.magic, local: keys)
    guard (try? handshake.readFirst(Data(frame.dropFirst(StreamHandshake.magic.count)))) != nil,
      let publicKey = handshake.remoteStatic,
      let (answer, session) = try? handshake.writeSecond()
    else { return drop(id) }
    connections[id]?.state = .confirming(publicKey: publicKey)
    enqueue(id, answer)
    connections[id]?.session = session
  }

  /// Sends `error` and closes the connection once it is out.
  private func refuse(_ id: UInt64, _ error: ErrorReply) {
    if let body = try? WireCoding.encode(error) { enqueue(id, body) }
    connections[id]?.closing = true
    connections[id]?.deadline = clock.elapsed + limits.handshakeDeadline
    if connections[id]?.output.isEmpty ?? false { drop(id) }
  }

  /// Closes the connections past their deadline.
  private func expire() {
    let now = clock.elapsed
    for (id, connection) in connections where connection.deadline.map({ now > $0 }) ?? false {
      drop(id)
    }
  }

  // MARK: - Output

  /// Queues `body` for the connection, sealed once the handshake has its ciphers (in the
  /// order the frames go out, as their counter says).
  private func enqueue(_ id: UInt64, _ plain: Data) {
    guard let connection = connections[id] else { return }
    var body = plain
    if connection.session != nil {
      guard let sealed = try? connection.session?.send.encrypt(plain) else { return drop(id) }
      body = sealed
    }
    connection.output.append((FrameBuffer.header(body.count), body))
    connection.waitingBytes += 4 + body.count
    outputBytes += 4 + body.count
    guard connection.waitingBytes <= maximumOutput else {
      counters.closedForReplies += 1
      return drop(id)
    }
    if connection.output.count == 1 { flush(id) }
  }

  /// Past the budget of replies waiting for all clients together, closes the connections
  /// with the most waiting until it holds again.
  private func keepWithinReplyBudget() {
    while outputBytes > limits.replyBudget,
      let (id, _) = connections.max(by: { $0.value.waitingBytes < $1.value.waitingBytes })
    {
      counters.closedForReplies += 1
      drop(id)
    }
  }

  /// Hands the memory of closed connections' replies back to the system once 16 MiB of it
  /// is free (glibc keeps freed memory for reuse otherwise).
  private func trimIfWorthIt() {
    guard freedSinceTrim >= 16 << 20 else { return }
    freedSinceTrim = 0
    Memory.returnFreedToSystem()
  }

  /// Sends waiting frames until the socket would block.
  private func flush(_ id: UInt64) {
    guard let connection = connections[id] else { return }
    while let (header, body) = connection.output.first {
      let sent = sendFrame(connection.fd, header: header, body: body, from: connection.sentOfFirst)
      if sent < 0 {
        if errno == EINTR { continue }
        if errno == EAGAIN || errno == EWOULDBLOCK { return }
        return drop(id)
      }
      connection.sentOfFirst += sent
      connection.waitingBytes -= sent
      outputBytes -= sent
      if connection.sentOfFirst == header.count + body.count {
        connection.output.removeFirst()
        connection.sentOfFirst = 0
      }
    }
    if connection.closing { drop(id) }
  }

  private static func error() -> String { String(cString: strerror(errno)) }

  /// The principal of every key issued to no plugin.
  public static let anonymous = "(keys of no plugin)"
}

/// The bounds of the request stream (Protocols/README.md "Limits").
public struct StreamLimits: Sendable {
  /// Connections at once; more are closed as they come.
  public var maximumConnections: Int
  /// Connections at once that have not finished their handshake; past it, the oldest is
  /// closed.
  public var maximumHandshaking = 64
  /// Connections one principal (a plugin; all keys of no plugin together) holds open.
  public var maximumConnectionsPerPrincipal = 64
  /// Requests read from one connection and not yet served; past it, the hub stops reading
  /// the connection until it has served some.
  public var maximumWaitingPerConnection = 32
  /// Bytes of requests read and not served, and of frames partly read, all together: past
  /// it, the hub reads only connections that are between two frames.
  public var inputBudget = 64 << 20
  /// Bytes of replies waiting for their clients to read them, all together.
  public var replyBudget: Int
  /// How long a client has to finish the handshake, and to read the refusal that closes
  /// its connection.
  public var handshakeDeadline: Duration = .seconds(2)

  /// The bounds for a process whose descriptors are limited to `descriptors`: a quarter of
  /// them for the stream (libzmq aborts when it cannot accept on `hub.sock`, so the stream
  /// never takes all), 1,024 at most.
  public init(descriptors: Int, replyBudget: Int) {
    maximumConnections = max(16, min(1024, (descriptors - 64) / 4))
    maximumHandshaking = min(maximumHandshaking, maximumConnections / 2)
    maximumConnectionsPerPrincipal = min(maximumConnectionsPerPrincipal, maximumConnections / 4)
    self.replyBudget = replyBudget
  }
}

/// The request stream's socket could not be made or bound.
public struct StreamError: Error, CustomStringConvertible, Sendable {
  public var description: String
  init(_ description: String) { self.description = description }
}
