import Foundation
import HearthZMQ

/// What the hub sends — replies and the commits' bus events — held in order until the
/// commits before them are durable (`WALSyncer`): no client hears of a commit, no subscriber
/// sees its event, and no reply reports a state, that a power loss could still take back.
/// When nothing waits for the disk, a reply goes out at once. Lives on the hub's thread.
final class HubOutbox {
  /// One thing to send, in the order it was handed over.
  enum Item {
    /// A commit's events are durable: the hub's sequence number moves past them.
    case durable([ChangeFeed.PublishedCommit])
    case reply(client: Data, body: Data)
    /// A commit's events, to publish once its replies are out.
    case publish([ChangeFeed.PublishedCommit])
  }

  private let router: BusSocket
  private let streams: RequestStreams
  let syncer: WALSyncer
  /// What waits, each with the ticket of the last commit before it.
  private var held: [(ticket: Int, item: Item)] = []
  /// Tickets handed out: one per commit, in commit order.
  private(set) var committed = 0
  /// The one writer of the commits since `aloneSince` (nil: several, or the hub itself),
  /// and whether the last commits wait for `syncHereIfAlone`.
  private var lastWriter: Data?
  private var aloneSince: UInt64 = 0
  private var syncsHere = false
  /// How long one writer must have written alone before its commits are synced on the
  /// hub's thread: a second writer, arriving, waits for one such sync at most.
  static let aloneAfter: UInt64 = 20_000_000

  init(router: BusSocket, streams: RequestStreams, syncer: WALSyncer) {
    self.router = router
    self.streams = streams
    self.syncer = syncer
  }

  /// Whether everything committed is durable and sent.
  var isEmpty: Bool { held.isEmpty }

  /// A commit of `writers`' transactions happened (its events, possibly none): a new
  /// ticket, and a sync is asked for — or, while one writer writes alone, left for
  /// `syncHereIfAlone` to make on the hub's thread. Replies handed over from now on wait
  /// for it.
  func commit(_ events: [ChangeFeed.PublishedCommit], by writers: [Data]) {
    committed += 1
    held.append((committed, .durable(events)))
    let now = DispatchTime.now().uptimeNanoseconds
    if writers.count != 1 || writers.first != lastWriter {
      lastWriter = writers.count == 1 ? writers[0] : nil
      aloneSince = now
    }
    if lastWriter != nil, now - aloneSince >= Self.aloneAfter {
      syncsHere = true
    } else {
      syncer.request(committed)
    }
  }

  /// Makes what was committed durable on the hub's thread when `commit` left it so (and the
  /// syncing thread is idle; else asks it); true when the outbox may have more to send.
  func syncHereIfAlone() -> Bool {
    guard syncsHere else { return false }
    syncsHere = false
    if syncer.syncHere(upTo: committed) { return true }
    syncer.request(committed)
    return false
  }

  /// Hands over the events of the last commit, to publish after the replies handed over
  /// since it.
  func publish(_ events: [ChangeFeed.PublishedCommit]) {
    guard !events.isEmpty else { return }
    held.append((committed, .publish(events)))
  }

  /// Sends a reply now when nothing is held, else after what is.
  func send(_ client: Data, _ body: Data) {
    guard held.isEmpty else { return held.append((committed, .reply(client: client, body: body))) }
    sendNow(client, body)
  }

  /// What may go out now: everything held up to the durable ticket, in order.
  func takeDurable() -> [Item] {
    let durable = syncer.durable
    let count = held.prefix { $0.ticket <= durable }.count
    guard count > 0 else { return [] }
    defer { held.removeFirst(count) }
    return held.prefix(count).map(\.item)
  }

  /// Sends an encoded reply, whatever is held.
  func sendNow(_ client: Data, _ body: Data) {
    if RequestStreams.isStreamClient(client) { return streams.send(client, body) }
    // A client that went away is not an error of the hub: its reply is dropped.
    try? router.send([client, body], dontWait: true)
  }
}
