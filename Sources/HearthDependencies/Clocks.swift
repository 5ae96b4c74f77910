import HearthSupport

/// A clock you move by hand, for tests of time-dependent behaviour without sleeping: its
/// time stands still until `advance(by:)`, which also wakes the sleepers that are due.
///
/// ```swift
/// let clock = TestClock()
/// try withDependencies { $0.continuousClock = clock } operation: { … }
/// clock.advance(by: .seconds(6))   // what waits 5 s has run out
/// ```
public final class TestClock: Clock, Sendable {
  public struct Instant: InstantProtocol, Sendable {
    /// The time since the clock was made.
    public var offset: Duration

    public init(offset: Duration = .zero) { self.offset = offset }

    public func advanced(by duration: Duration) -> Instant {
      Instant(offset: offset + duration)
    }

    public func duration(to other: Instant) -> Duration { other.offset - offset }

    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  private struct State {
    var now = Instant()
    var sleepers: [(deadline: Instant, wake: CheckedContinuation<Void, any Error>)] = []
  }

  private let state = Locked(State())

  public init() {}

  public var now: Instant { state.withLock { $0.now } }
  public var minimumResolution: Duration { .zero }

  /// Returns once the clock has been advanced to `deadline` (at once if it has).
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    try await withCheckedThrowingContinuation { continuation in
      let isDue = state.withLock { state -> Bool in
        guard deadline > state.now else { return true }
        state.sleepers.append((deadline, continuation))
        return false
      }
      if isDue { continuation.resume() }
    }
  }

  /// How many are asleep on this clock (for a test to know its sleepers have gone to sleep
  /// before it moves the time).
  public var sleepersCount: Int { state.withLock { $0.sleepers.count } }

  /// Moves the time forward by `duration` and wakes every sleeper whose deadline it reaches.
  public func advance(by duration: Duration = .zero) {
    let woken = state.withLock { state in
      state.now = state.now.advanced(by: duration)
      let now = state.now
      let due = state.sleepers.filter { $0.deadline <= now }
      state.sleepers.removeAll { $0.deadline <= now }
      return due.map(\.wake)
    }
    for continuation in woken { continuation.resume() }
  }
}

/// Reads a clock as the time elapsed since a moment: what a loop that is not `async` (the
/// hub's) compares its deadlines with, on whichever clock it was given.
public struct Stopwatch: Sendable {
  private let read: @Sendable () -> Duration

  public init<C: Clock>(_ clock: C) where C.Duration == Duration {
    let start = clock.now
    read = { start.duration(to: clock.now) }
  }

  /// The time elapsed since the stopwatch was made.
  public var elapsed: Duration { read() }
}

private enum ContinuousClockKey: DependencyKey {
  static let liveValue: any Clock<Duration> = ContinuousClock()
}

extension DependencyValues {
  /// The clock that measures intervals and timeouts (live: `ContinuousClock`); set a
  /// `TestClock` to move time by hand.
  public var continuousClock: any Clock<Duration> {
    get { self[ContinuousClockKey.self] }
    set { self[ContinuousClockKey.self] = newValue }
    _modify { yield &self[ContinuousClockKey.self] }
  }
}
