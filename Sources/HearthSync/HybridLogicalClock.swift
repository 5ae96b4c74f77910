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
/// A remote time more than `maximumDrift` ahead of this hub's wall clock is clamped to that
/// bound (and reported), so a hub whose clock runs far ahead cannot push every other hub's
/// clock, and win every later edit, beyond it.
public struct HybridLogicalClock: Sendable {
  public let hub: String
  /// How far ahead of the local wall clock a remote time may be. Default: one minute.
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

  /// Takes in a time seen from another hub at wall-clock time `now`: the clock moves past it
  /// (a remote time beyond `now + maximumDrift` counts as that bound). Returns the remote
  /// time as it is to be used, and whether it was clamped.
  @discardableResult
  public mutating func receive(_ remote: HybridTimestamp, now: Int64) -> (
    time: HybridTimestamp, clamped: Bool
  ) {
    let bound = now + maximumDrift
    let clamped = remote.milliseconds > bound
    let seen =
      clamped ? HybridTimestamp(milliseconds: bound, counter: 0, hub: remote.hub) : remote
    let wall = max(now, last.milliseconds, seen.milliseconds)
    let counter: Int64 =
      if wall == last.milliseconds && wall == seen.milliseconds {
        max(last.counter, seen.counter) + 1
      } else if wall == last.milliseconds {
        last.counter + 1
      } else if wall == seen.milliseconds {
        seen.counter + 1
      } else {
        0
      }
    last = HybridTimestamp(milliseconds: wall, counter: counter, hub: hub)
    return (seen, clamped)
  }
}
