import Foundation
import HearthTransport

/// What the hub sends — replies and the commits' bus events — held in order until the
/// commits before them are durable (`WALSyncer`): no client hears of a commit, no subscriber
/// sees its event, and no reply reports a state, that a power loss could still take back.
/// When nothing waits for the disk, a reply goes out at once.
///
/// A state machine, and nothing more: it sends nothing and reads no clock. The hub's thread
/// hands it each commit (with its ticket), each reply and each commit's events, and gets
/// back what may go now, in order (`Delivery`), which `HubSession.deliver` sends — the one
/// place replies and events leave the hub.
struct HubOutbox {
  /// One thing to deliver, in the order it was handed over.
  enum Delivery {
    /// These commits are durable: the hub's sequence number moves past their events.
    case durable([ChangeFeed.PublishedCommit])
    case reply(to: ReplyRoute, body: Data)
    /// A commit's events, for the bus, once its replies are out.
    case publish([ChangeFeed.PublishedCommit])
  }

  /// What waits, each with the ticket of the last commit before it.
  private var held: [(ticket: Int, delivery: Delivery)] = []
  /// The ticket of the last commit handed over.
  private(set) var lastTicket = 0
  /// The one writer of the commits since `aloneSince` (nil: several, or the hub itself),
  /// and whether the last commits wait for a sync on the hub's thread (`takeSyncHere`).
  private var lastWriter: ReplyRoute?
  private var aloneSince: Duration = .zero
  private var syncsHere = false
  /// How long one writer must have written alone before its commits are synced on the
  /// hub's thread: a second writer, arriving, waits for one such sync at most.
  static let aloneAfter: Duration = .milliseconds(20)

  /// Whether everything committed is durable and delivered.
  var isEmpty: Bool { held.isEmpty }

  /// A commit of `writers`' transactions (its events, possibly none) whose ticket is
  /// `ticket`, at `now` (on the hub's clock): what is handed over from now on waits
  /// for it. Returns whether the syncer should be asked for it (true), or the sync is left to
  /// the hub's thread (`takeSyncHere`) because one writer has written alone for a while.
  mutating func commit(
    ticket: Int, _ events: [ChangeFeed.PublishedCommit], by writers: [ReplyRoute], now: Duration
  ) -> Bool {
    lastTicket = ticket
    held.append((ticket, .durable(events)))
    if writers.count != 1 || writers.first != lastWriter {
      lastWriter = writers.count == 1 ? writers[0] : nil
      aloneSince = now
    }
    if lastWriter != nil, now - aloneSince >= Self.aloneAfter {
      syncsHere = true
      return false
    }
    return true
  }

  /// The ticket to sync on the hub's thread, when `commit` left the sync to it (once).
  mutating func takeSyncHere() -> Int? {
    guard syncsHere else { return nil }
    syncsHere = false
    return lastTicket
  }

  /// Hands over the events of the last commit, to publish after the replies handed over
  /// since it.
  mutating func publish(_ events: [ChangeFeed.PublishedCommit]) {
    guard !events.isEmpty else { return }
    held.append((lastTicket, .publish(events)))
  }

  /// A reply: returned, to send now, when nothing is held; else held after what is.
  mutating func reply(to route: ReplyRoute, _ body: Data) -> Delivery? {
    guard held.isEmpty else {
      held.append((lastTicket, .reply(to: route, body: body)))
      return nil
    }
    return .reply(to: route, body: body)
  }

  /// What may go now that the commits up to `ticket` are durable, in order.
  mutating func durable(upTo ticket: Int) -> [Delivery] {
    let count = held.prefix { $0.ticket <= ticket }.count
    guard count > 0 else { return [] }
    defer { held.removeFirst(count) }
    return held.prefix(count).map(\.delivery)
  }
}
