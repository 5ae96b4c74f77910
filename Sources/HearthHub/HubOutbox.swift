import Foundation
import HearthZMQ

/// What the hub sends — replies and the commits' bus events — held in order until the
/// commits before them are durable (`WALSyncer`): no client hears of a commit, no subscriber
/// sees its event, and no reply reports a state, that a power loss could still take back.
/// When nothing waits for the disk, a reply goes out at once.
///
/// Two threads deliver what became durable. The syncing thread, as soon as a sync ends,
/// sends the replies to the request stream's clients itself (`deliverDurable`), so that a
/// writer's acknowledgement waits for no hand-off to the hub's thread; what only the hub's
/// thread may send — replies on the ZeroMQ socket, and the events on the bus — it leaves
/// for that thread (`takeForHubThread`), in order. Everything else lives on the hub's thread.
final class HubOutbox: @unchecked Sendable {
  // Safe to share: every stored property but the immutable ones is read and written with
  // `lock` held; `router` is used only by `sendNow` on a ZeroMQ client, which only the hub's
  // thread calls (the syncing thread hands those replies over instead); `streams` is safe
  // to send on from any thread (it locks itself). Lock order: `lock`, then the streams'.
  private let lock = NSLock()

  /// One thing to send, in the order it was handed over.
  private enum Item {
    /// A commit's events are durable: the hub's sequence number moves past them.
    case durable([ChangeFeed.PublishedCommit])
    case reply(to: ReplyRoute, body: Data)
    /// A commit's events, to publish once its replies are out.
    case publish([ChangeFeed.PublishedCommit])
  }

  /// What only the hub's thread sends.
  enum HubThreadItem {
    /// A reply to a ZeroMQ client (by its identity).
    case reply(to: Data, body: Data)
    /// A commit's events, for the bus.
    case publish([ChangeFeed.PublishedCommit])
  }

  private let router: BusSocket
  private let streams: RequestStreams
  let syncer: WALSyncer
  /// Called, in order and with `lock` held, for each durable commit's sequence number.
  private let onDurable: @Sendable (Int64) -> Void
  /// What waits, each with the ticket of the last commit before it.
  private var held: [(ticket: Int, item: Item)] = []
  /// Durable, and left by the syncing thread for the hub's: ZeroMQ replies and events.
  private var forHubThread: [HubThreadItem] = []
  /// Tickets handed out: one per commit, in commit order.
  private var committed = 0
  /// The one writer of the commits since `aloneSince` (nil: several, or the hub itself),
  /// and whether the last commits wait for `syncHereIfAlone`.
  private var lastWriter: ReplyRoute?
  private var aloneSince: UInt64 = 0
  private var syncsHere = false
  /// How long one writer must have written alone before its commits are synced on the
  /// hub's thread: a second writer, arriving, waits for one such sync at most.
  static let aloneAfter: UInt64 = 20_000_000

  init(
    router: BusSocket, streams: RequestStreams, syncer: WALSyncer,
    onDurable: @escaping @Sendable (Int64) -> Void
  ) {
    self.router = router
    self.streams = streams
    self.syncer = syncer
    self.onDurable = onDurable
  }

  /// Whether everything committed is durable and sent.
  var isEmpty: Bool { lock.withLock { held.isEmpty && forHubThread.isEmpty } }

  /// A commit of `writers`' transactions happened (its events, possibly none): a new
  /// ticket, and a sync is asked for — or, while one writer writes alone, left for
  /// `syncHereIfAlone` to make on the hub's thread. Replies handed over from now on wait
  /// for it.
  func commit(_ events: [ChangeFeed.PublishedCommit], by writers: [ReplyRoute]) {
    let ticket: Int? = lock.withLock {
      committed = syncer.issueTicket()
      held.append((committed, .durable(events)))
      let now = DispatchTime.now().uptimeNanoseconds
      if writers.count != 1 || writers.first != lastWriter {
        lastWriter = writers.count == 1 ? writers[0] : nil
        aloneSince = now
      }
      if lastWriter != nil, now - aloneSince >= Self.aloneAfter {
        syncsHere = true
        return nil
      }
      return committed
    }
    if let ticket { syncer.request(ticket) }
  }

  /// Makes what was committed durable on the hub's thread when `commit` left it so (and the
  /// syncing thread is idle; else asks it); true when the outbox may have more to send.
  func syncHereIfAlone() -> Bool {
    let ticket: Int? = lock.withLock {
      guard syncsHere else { return nil }
      syncsHere = false
      return committed
    }
    guard let ticket else { return false }
    if syncer.syncHere(upTo: ticket) { return true }
    syncer.request(ticket)
    return false
  }

  /// Hands over the events of the last commit, to publish after the replies handed over
  /// since it.
  func publish(_ events: [ChangeFeed.PublishedCommit]) {
    guard !events.isEmpty else { return }
    lock.withLock { held.append((committed, .publish(events))) }
  }

  /// Sends a reply now when nothing is held (nor, for a ZeroMQ client, left for the hub's
  /// thread), else after what is. The hub's thread only.
  func send(_ route: ReplyRoute, _ body: Data) {
    lock.withLock {
      if !held.isEmpty {
        held.append((committed, .reply(to: route, body: body)))
      } else if case .router(let identity) = route, !forHubThread.isEmpty {
        forHubThread.append(.reply(to: identity, body: body))
      } else {
        sendNow(route, body)
      }
    }
  }

  /// Delivers what became durable, on the syncing thread: marks the commits durable and
  /// sends the stream's replies; the rest waits in order for `takeForHubThread`.
  func deliverDurable() {
    lock.withLock { deliverLocked() }
  }

  /// Delivers what became durable, on the hub's thread: returns what only it may send —
  /// ZeroMQ replies and events — in order, the syncing thread's leftovers first.
  func takeForHubThread() -> [HubThreadItem] {
    lock.withLock {
      deliverLocked()
      defer { forHubThread.removeAll() }
      return forHubThread
    }
  }

  private func deliverLocked() {
    let durable = syncer.durable
    let count = held.prefix { $0.ticket <= durable }.count
    guard count > 0 else { return }
    for (_, item) in held.prefix(count) {
      switch item {
      case .durable(let events):
        for event in events { onDurable(event.event.seq) }
      case .reply(.stream(let connection), let body):
        // Sent from either thread while ZeroMQ replies wait for the hub's: a client is on
        // one transport, so no client's replies change order.
        streams.send(connection, body)
      case .reply(.router(let identity), let body):
        forHubThread.append(.reply(to: identity, body: body))
      case .publish(let events):
        forHubThread.append(.publish(events))
      }
    }
    held.removeFirst(count)
  }

  /// Sends an encoded reply, whatever is held. A ZeroMQ client's only on the hub's thread.
  func sendNow(_ route: ReplyRoute, _ body: Data) {
    switch route {
    case .stream(let connection): streams.send(connection, body)
    case .router(let identity):
      // A client that went away is not an error of the hub: its reply is dropped.
      try? router.send([identity, body], dontWait: true)
    }
  }
}
