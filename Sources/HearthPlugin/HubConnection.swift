import Dispatch
import Foundation
import HearthSQLite
import HearthTransport
import HearthWire

/// A feature process's line to the hub (`RequestLine`), used on one serial queue. Replies are
/// matched by request id (a long transaction may have a part in flight while its next part is
/// built: `post`, then `reply(to:)`); stale ones (from a request that timed out) are dropped.
final class HubConnection: @unchecked Sendable {
  // Safe to share: `line`, `awaited` and `stashed` are used only inside `queue.sync`, so
  // one thread at a time.
  private let queue = DispatchQueue(label: "hearth.plugin.requests")
  private let context: BusContext
  /// Made when the first request goes out, and again after one went unanswered: it
  /// authenticates the hub with the key the hub has published then.
  private var line: RequestLine?
  let transport: HubTransport
  var endpoint: String { transport.requestEndpoint }
  let timeout: Duration
  /// Whether the hub may be down: before the first request, and after one went unanswered.
  /// The next request then first checks that something listens on a unix socket (which
  /// refuses at once when nothing does), instead of waiting out the timeout.
  private var mayBeDown = true
  /// The hub's limits, from a `hello` (the first time the hub answers; again after a
  /// restart, which may change them).
  private var limits: HubLimits?
  /// How many posted requests of each id wait for their reply, and the replies read while
  /// waiting for another one.
  private var awaited: [String: Int] = [:]
  private var stashed: [String: [(type: String, body: Data)]] = [:]

  init(context: BusContext, transport: HubTransport, timeout: Duration) throws {
    self.context = context
    self.transport = transport
    self.timeout = timeout
  }

  /// Sends `message` and waits for the reply with its id: the decoded `Reply`, or the hub's
  /// `ErrorReply` thrown (the callers turn it into a `DatabaseError` where they know the
  /// statement). Throws `DatabaseError.hubUnavailable` when no reply comes within the timeout.
  func request<Reply: WireMessage>(
    _ message: some WireMessage, id: String, as type: Reply.Type, timeout: Duration? = nil
  ) throws -> Reply {
    let (_, frame) = try request(message, id: id, timeout: timeout)
    return try WireCoding.decode(Reply.self, from: frame)
  }

  /// Sends `message` and returns the type and body of the reply with its id (an error reply
  /// is thrown as `ErrorReply`), waiting `timeout` (the connection's unless given).
  func request(_ message: some WireMessage, id: String, timeout: Duration? = nil) throws -> (
    type: String, body: Data
  ) {
    try post(message, id: id)
    return try reply(to: id, timeout: timeout)
  }

  /// Sends `message` without waiting: its reply (the next one with its id) is read by
  /// `reply(to:)`, and kept meanwhile if another request's wait reads it first.
  func post(_ message: some WireMessage, id: String) throws {
    let body = try WireCoding.encode(message)
    try queue.sync {
      var line = try currentLine()
      if let limits, body.count > limits.maxMessageSize {
        // The hub would refuse it — or, past the transport's cut-off, drop it unanswered.
        throw ErrorReply(
          id: id, code: .tooLarge,
          message: "the request is \(body.count) bytes; the hub takes at most "
            + "\(limits.maxMessageSize) (max-message-size)")
      }
      do {
        try line.send(body)
      } catch is StreamClosed {
        // The hub that held the stream stopped. When no reply is awaited from it, nothing is
        // lost: the request goes to the hub there is now, on a new stream.
        let owed = !awaited.isEmpty
        dropLine()
        guard !owed else {
          throw DatabaseError.hubClosedStream(endpoint: transport.streamPath ?? endpoint)
        }
        line = try currentLine()
        try line.send(body)
      }
      awaited[id, default: 0] += 1
    }
  }

  /// Forgets the line and every reply awaited on it (a new line is made for the next request,
  /// which checks, then, whether the hub is up).
  private func dropLine() {
    line?.close()
    line = nil
    mayBeDown = true
    (awaited, stashed) = ([:], [:])
  }

  /// Waits for the reply to the oldest request of `id` posted and not yet answered.
  func reply(to id: String, timeout: Duration? = nil) throws -> (type: String, body: Data) {
    let timeout = timeout ?? self.timeout
    return try queue.sync {
      let (type, frame) = try nextReply(to: id, timeout: timeout)
      if type == "error" { throw try WireCoding.decode(ErrorReply.self, from: frame) }
      return (type, frame)
    }
  }

  /// The next reply with `id`: one kept from an earlier wait, or the next that comes. Replies
  /// to another request still awaited are kept; any other is stale and dropped.
  private func nextReply(to id: String, timeout: Duration) throws -> (type: String, body: Data) {
    defer {
      awaited[id, default: 1] -= 1
      if awaited[id] == 0 { awaited[id] = nil }
    }
    if var kept = stashed[id], !kept.isEmpty {
      let reply = kept.removeFirst()
      stashed[id] = kept.isEmpty ? nil : kept
      return reply
    }
    let deadline = ContinuousClock.now + timeout
    while true {
      let left = deadline - ContinuousClock.now
      let frame: Data?
      do {
        frame = left > .zero ? try line?.receive(timeout: left) : nil
      } catch is StreamClosed {
        // The hub closed the stream (it stopped): no reply will come on it.
        dropLine()
        throw DatabaseError.hubClosedStream(endpoint: transport.streamPath ?? endpoint)
      }
      guard let frame else {
        // Whatever the hub answers later belongs to a request the caller gave up on: a new
        // line leaves it behind (and every reply awaited on this one).
        dropLine()
        throw DatabaseError.hubUnavailable(endpoint: endpoint, timeout: timeout)
      }
      guard let envelope = try? WireCoding.decode(WireEnvelope.self, from: frame) else { continue }
      if envelope.id == id || envelope.id == nil { return (envelope.type, frame) }
      if let other = envelope.id, awaited[other] != nil {
        stashed[other, default: []].append((envelope.type, frame))
      }
    }
  }
}

extension HubConnection {
  /// The line to send on, made now when there is none. Throws `hubNotRunning` at once when
  /// the hub's unix socket has no listener.
  fileprivate func currentLine() throws -> RequestLine {
    if mayBeDown {
      let prefix = "ipc://"
      if endpoint.hasPrefix(prefix),
        !HubPaths.socketAnswers(at: String(endpoint.dropFirst(prefix.count)))
      {
        throw DatabaseError.hubNotRunning(endpoint: endpoint)
      }
    }
    let line = try self.line ?? RequestLine.open(transport, context: context, timeout: timeout)
    self.line = line
    if mayBeDown {
      mayBeDown = false
      limits = try? askLimits(line)
    }
    return line
  }

  /// The hub's limits, from its `welcome` (nil from an older hub, or no answer in time).
  fileprivate func askLimits(_ line: RequestLine) throws -> HubLimits? {
    let id = RequestID.make()
    try line.send(try WireCoding.encode(HelloRequest(id: id)))
    let deadline = ContinuousClock.now + timeout
    while case let left = deadline - ContinuousClock.now, left > .zero,
      let frame = try line.receive(timeout: left)
    {
      guard let welcome = try? WireCoding.decode(WelcomeReply.self, from: frame), welcome.id == id
      else { continue }
      return welcome.limits
    }
    return nil
  }
}

/// A line to the hub's requests: the request stream when the hub offers one (a unix socket
/// the caller's thread writes and reads itself), else a DEALER socket. Used by one thread at
/// a time.
public enum RequestLine {
  case stream(RequestStream)
  case socket(BusSocket)

  /// The request stream when `transport` names one and a hub listens there, else a DEALER on
  /// the request endpoint; `timeout` bounds the stream's handshake.
  public static func open(_ transport: HubTransport, context: BusContext, timeout: Duration)
    throws -> RequestLine
  {
    if let path = transport.streamPath {
      let hubKey = try transport.hubKey()
      do {
        return .stream(
          try RequestStream.open(path: path, keys: transport.keys, hubKey: hubKey, timeout: timeout)
        )
      } catch RequestStream.Failure.notListening {
        // A hub without the stream: its ZeroMQ socket.
      } catch RequestStream.Failure.notTheHub {
        throw DatabaseError(
          resultCode: .SQLITE_AUTH,
          message: "the process at \(path) did not prove it holds the hub's key (\(hubKey))")
      } catch RequestStream.Failure.noAnswer {
        throw DatabaseError.hubUnavailable(endpoint: path, timeout: timeout)
      }
    }
    let socket = try BusSocket(context, .dealer)
    try socket.setReconnectInterval(.milliseconds(50))
    try socket.setHeartbeat(interval: .seconds(1), timeout: .seconds(3))
    try transport.prepareRequestSocket(socket)
    try socket.connect(transport.requestEndpoint)
    return .socket(socket)
  }

  public func send(_ body: Data) throws {
    switch self {
    case .stream(let stream): try stream.send(body)
    case .socket(let socket): try socket.send([body])
    }
  }

  /// The next message, or nil when none came within `timeout`.
  public func receive(timeout: Duration) throws -> Data? {
    switch self {
    case .stream(let stream): try stream.receive(timeout: timeout)
    case .socket(let socket): try socket.receive(timeout: timeout)?.last
    }
  }

  public func close() {
    switch self {
    case .stream(let stream): stream.close()
    case .socket(let socket): socket.close()
    }
  }
}
