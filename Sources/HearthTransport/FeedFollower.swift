import Foundation
import HearthSQLite
import HearthWire

/// Follows the hub's commits in order, none twice, none missed: the one implementation of the
/// protocol's "subscribe, then read the start point, fill gaps from the feed" rule
/// (`Protocols/README.md`, "Following the feed"), used by a plugin's observers and by
/// `hearth subscribe`.
///
/// The bus only rings the doorbell. Every commit event and heartbeat says how far the hub
/// has come; when that is past what was delivered (a high-water-mark drop, a slow start, a
/// restart of either side), the missed commits are read from the durable feed in the
/// database, in order. Those pruned from it meanwhile are reported as `.missed`: whatever the
/// follower derives from them must be read again.
///
/// ```swift
/// let follower = try FeedFollower(
///   context: BusContext(), endpoint: paths.busEndpoint, reader: database, from: .now)
/// while true {
///   for delivery in try follower.poll(timeout: .seconds(1)) { … }
/// }
/// ```
///
/// Not thread-safe: it owns a socket, which is used by the thread that made it.
public final class FeedFollower {
  /// Where following begins.
  public enum Start: Hashable, Sendable {
    /// After the hub's current sequence number (read once subscribed): only new commits.
    case now
    /// After sequence number `seq`: the feed's commits since, then new ones.
    case after(Int64)
  }

  /// What the follower hands on, in sequence order.
  public enum Delivery: Hashable, Sendable {
    case commit(CommitEvent)
    /// Commits `after + 1 … through` are no longer in the feed (pruned).
    case missed(after: Int64, through: Int64)
  }

  /// The sequence number delivered up to.
  public private(set) var position: Int64
  private let socket: BusSocket
  /// Whether the socket takes commit events (heartbeats it always takes).
  private var takesCommits = true
  private let reader: any DatabaseReader
  /// Until when, after commit events were asked for, each wait is short and ends in a read
  /// of the feed: a subscription reaches the hub a moment after it is made, and a commit
  /// published before then is on neither the bus nor in the feed read when subscribing (it
  /// would wait for the next heartbeat, a second).
  private var settlesAt: ContinuousClock.Instant?
  public static let settling = Duration.milliseconds(50)
  static let settlingWait = Duration.milliseconds(5)

  /// Subscribes to `endpoint` (after `prepare`, which may make the socket a CURVE client),
  /// then reads the start point from `reader`, the hub's database.
  public init(
    context: BusContext, endpoint: String, reader: any DatabaseReader, from start: Start,
    receiveHighWaterMark: Int = 10_000, prepare: (BusSocket) throws -> Void = { _ in }
  ) throws {
    self.reader = reader
    socket = try BusSocket(context, .sub)
    try socket.setReceiveHighWaterMark(receiveHighWaterMark)
    try socket.setReconnectInterval(.milliseconds(50))
    try socket.subscribe("commit")
    try socket.subscribe("heartbeat")
    try prepare(socket)
    try socket.connect(endpoint)
    settlesAt = .now + Self.settling
    // Subscribed first, then the start point: a commit in between is announced, or seen in
    // the feed while the subscription settles.
    switch start {
    case .now: position = try reader.read(HubTables.lastSequence)
    case .after(let seq): position = seq
    }
  }

  /// What the feed holds past `position` now (for a start `.after` an old sequence number,
  /// before the first `poll`).
  public func catchUp() throws -> [Delivery] {
    fill(through: try reader.read(HubTables.lastSequence))
  }

  /// Waits up to `timeout` for the bus and returns what is due, in order (often nothing).
  /// While `isObserved()` is false nothing is read or decoded, and the socket takes no
  /// commit events at all (the hub's bus filters them out before they are sent): heartbeats
  /// only move `position`, so a process that only writes spends nothing on the bus. Asked
  /// before the wait and again when a message has come; when it turns true, what the feed
  /// holds past `position` is delivered at once, so a commit made before the commit events
  /// flowed again is not missed. `bell`, rung by another thread, ends the wait (so that an
  /// observer added meanwhile is followed at once, not after the wait). For a moment after
  /// subscribing (`settling`) the waits are short and each ends in a read of the feed.
  public func poll(
    timeout: Duration, isObserved: () -> Bool = { true }, bell: Doorbell? = nil
  ) throws -> [Delivery] {
    if isObserved() != takesCommits {
      takesCommits.toggle()
      if takesCommits {
        // Subscribed first, then the feed read: a commit in between is in one or the other,
        // or in the feed read while the subscription settles.
        try socket.subscribe("commit")
        settlesAt = .now + Self.settling
        let caughtUp = try catchUp()
        if !caughtUp.isEmpty { return caughtUp }
      } else {
        try socket.unsubscribe("commit")
        settlesAt = nil
      }
    }
    if let settlesAt, ContinuousClock.now >= settlesAt { self.settlesAt = nil }
    // (Unsubscribing from commits ends the settling.)
    let settling = settlesAt != nil
    let wait = settling ? min(timeout, Self.settlingWait) : timeout
    guard let frames = try receive(timeout: wait, bell: bell), frames.count == 2 else {
      return settling ? try catchUp() : []
    }
    let isObserved = isObserved()
    switch String(decoding: frames[0], as: UTF8.self) {
    case "commit" where isObserved:
      guard let event = try? WireCoding.decode(CommitEvent.self, from: frames[1]),
        event.seq > position
      else { return [] }
      var deliveries = fill(through: event.seq - 1)
      deliveries.append(.commit(event))
      position = event.seq
      return deliveries
    case "heartbeat":
      guard let beat = try? WireCoding.decode(HeartbeatEvent.self, from: frames[1]) else {
        return []
      }
      guard isObserved else {
        position = max(position, beat.seq)
        return []
      }
      return fill(through: beat.seq)
    default:
      return []
    }
  }

  /// The next message, waiting up to `timeout` for it or for `bell`.
  private func receive(timeout: Duration, bell: Doorbell?) throws -> [Data]? {
    guard let bell else { return try socket.receive(timeout: timeout) }
    let (readable, rung) = try socket.waitReadable(
      orDescriptors: [bell.descriptor], timeout: timeout)
    if rung[0] { bell.clear() }
    return readable ? try socket.receive(timeout: .zero) : nil
  }

  /// The feed's commits after `position` through `last`; what is no longer there is missed.
  private func fill(through last: Int64) -> [Delivery] {
    guard last > position else { return [] }
    defer { position = last }
    guard
      let found = try? reader.read({ db in
        try HubTables.commits(after: position, through: last, db)
      }),
      let first = found.first, found.last?.seq == last,
      found.count == Int(last - first.seq) + 1
    else { return [.missed(after: position, through: last)] }
    let missed: [Delivery] =
      first.seq > position + 1 ? [.missed(after: position, through: first.seq - 1)] : []
    return missed + found.map(Delivery.commit)
  }
}
