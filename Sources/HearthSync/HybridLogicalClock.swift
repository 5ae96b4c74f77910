/// A time of the sync service's hybrid logical clock (Kulkarni et al., "Logical Physical
/// Clocks", 2014): wall-clock milliseconds, a counter for events within one millisecond (or
/// while the wall clock lags a time already seen), and the hub that made it, which breaks
/// ties the same way on every hub. Times compare in that order.
///
/// As text (`description`, `init?(_:)`) it sorts as it compares: 15 digits of
/// milliseconds, 10 of counter, then the hub id: `001764500000000-0000000003-a1b2`.
public struct HybridTimestamp: Comparable, Hashable, Sendable, CustomStringConvertible {
  public var milliseconds: Int64
  public var counter: Int64
  public var hub: String

  public init(milliseconds: Int64, counter: Int64 = 0, hub: String) {
    self.milliseconds = milliseconds
    self.counter = counter
    self.hub = hub
  }

  public static func < (left: Self, right: Self) -> Bool {
    (left.milliseconds, left.counter, left.hub) < (right.milliseconds, right.counter, right.hub)
  }

  /// `MMMMMMMMMMMMMMM-CCCCCCCCCC-hub`: zero-padded, so that text order is time order.
  public var description: String {
    Self.padded(milliseconds, 15) + "-" + Self.padded(counter, 10) + "-" + hub
  }

  /// Parses `description`'s form; nil for anything else.
  public init?(_ text: String) {
    let parts = text.split(separator: "-", maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].count == 15, parts[1].count == 10, !parts[2].isEmpty,
      let milliseconds = Int64(parts[0]), let counter = Int64(parts[1]),
      milliseconds >= 0, counter >= 0
    else { return nil }
    self.init(milliseconds: milliseconds, counter: counter, hub: String(parts[2]))
  }

  private static func padded(_ value: Int64, _ width: Int) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
  }
}

/// One hub's hybrid logical clock: every local change is stamped with `tick`, and every
/// time seen from another hub goes through `receive`, so that a later stamp is always
/// greater than every stamp this hub has made or seen — whatever the wall clocks say — and
/// stays close to real time.
///
/// A hub moves past every time it receives, however far ahead of its own wall clock: a hub
/// whose clock runs slow must still stamp an edit made after seeing another's value later
/// than that value, or the edit is lost. The bound on a hub whose clock runs far ahead is
/// the server's: it clamps what is pushed to its own clock plus `maximumDrift`
/// (`hearth.meta`), so no time beyond that reaches any hub. Here `maximumDrift` only decides
/// when a received time says that this hub's clock is behind (`receive` reports it).
public struct HybridLogicalClock: Sendable {
  public let hub: String
  /// How far ahead of the local wall clock a remote time may be before `receive` reports
  /// this clock as behind. Default: one minute.
  public var maximumDrift: Int64
  /// The greatest time made or seen.
  public private(set) var last: HybridTimestamp

  public init(hub: String, maximumDrift: Int64 = 60_000, last: HybridTimestamp? = nil) {
    self.hub = hub
    self.maximumDrift = maximumDrift
    self.last = last ?? HybridTimestamp(milliseconds: 0, counter: 0, hub: hub)
  }

  /// The time of a local change at wall-clock time `now` (milliseconds since 1970).
  public mutating func tick(now: Int64) -> HybridTimestamp {
    let next =
      now > last.milliseconds
      ? HybridTimestamp(milliseconds: now, counter: 0, hub: hub)
      : HybridTimestamp(milliseconds: last.milliseconds, counter: last.counter + 1, hub: hub)
    last = next
    return next
  }

  /// Takes in a time seen from another hub at wall-clock time `now`: the clock moves past
  /// it. Returns how far, in milliseconds, the time is ahead of `now` when that is more than
  /// `maximumDrift` (this hub's clock is behind), else nil.
  @discardableResult
  public mutating func receive(_ remote: HybridTimestamp, now: Int64) -> Int64? {
    let wall = max(now, last.milliseconds, remote.milliseconds)
    let counter: Int64 =
      if wall == last.milliseconds && wall == remote.milliseconds {
        max(last.counter, remote.counter) + 1
      } else if wall == last.milliseconds {
        last.counter + 1
      } else if wall == remote.milliseconds {
        remote.counter + 1
      } else {
        0
      }
    last = HybridTimestamp(milliseconds: wall, counter: counter, hub: hub)
    let ahead = remote.milliseconds - now
    return ahead > maximumDrift ? ahead : nil
  }
}
