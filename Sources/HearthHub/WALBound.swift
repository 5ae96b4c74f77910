import Foundation
import HearthDependencies
import HearthSQLite
import HearthWire

/// Keeps the hub's write-ahead log under `HubConfiguration.walLimit`, whatever the load.
///
/// SQLite rewinds a WAL only when a write begins after a checkpoint that copied every frame
/// and no reader still uses the log. The PASSIVE checkpoints of the checkpointer thread never
/// wait, so under a steady stream of commits that moment never comes and the log grows
/// without end. So after each COMMIT (between two groups: no client's transaction is ever
/// split) the hub's thread looks at the frame count SQLite reported for that commit; past
/// the limit it runs a RESTART checkpoint on the writer connection, waiting at most
/// `checkpointWait` for readers. The next write then starts the log from its beginning, and
/// `journal_size_limit` cuts the file back to the limit.
///
/// What the restart copies itself is only what the checkpointer thread has not: once the log
/// is three quarters full, that thread runs its PASSIVE checkpoints back to back (the writer
/// wakes it), so at the limit little is left for the writer to copy and sync.
///
/// Every checkpoint, the thread's included, runs on the writer's connection, between two
/// commits (the connection runs one call at a time). SQLite 3.7.0 to 3.51.2 corrupt a WAL
/// database when one connection checkpoints while another commits a transaction that resets
/// the log (the WAL-reset bug, fixed in 3.51.3): with one connection doing both, that cannot
/// happen. Readers never checkpoint (`Database` opens them so; docs/sqlite-layer.md).
///
/// A reader holding a snapshot through the wait keeps its frames: the checkpoint copies what
/// it can, the hub goes on serving, and tries again after the next commit once
/// `checkpointRetryDelay` has passed (so that a stuck reader costs the writer one short wait
/// per delay, never a stall).
final class WALBound: Sendable {
  let limit: Int
  let wait: Duration
  let retryDelay: Duration
  /// Bytes of one frame: a page and its 24-byte header.
  let frameBytes: Int

  private struct State {
    var frames = 0
    var peakFrames = 0
    var largestCommitFrames = 0
    var restarts = 0
    var incompleteRestarts = 0
    var restartTime = Duration.zero
    var slowestRestart = Duration.zero
    /// When the next restart may be tried, on the hub's clock.
    var retryAfter: Duration?
    var last: CheckpointStatus?
    var isNearLimit = false
  }
  private let state = Locked(State())
  /// Signalled when the log crosses three quarters of the limit.
  private let wake = DispatchSemaphore(value: 0)

  /// What decides when a restart is tried again (the hub's clock).
  private let clock: Stopwatch

  init(configuration: HubConfiguration, pageSize: Int, clock: Stopwatch) {
    self.clock = clock
    limit = configuration.walLimit
    wait = configuration.checkpointWait
    retryDelay = configuration.checkpointRetryDelay
    frameBytes = pageSize + 24
  }

  /// Sets the writer connection up: the hub checkpoints itself, and the log file is cut back
  /// to the limit after each restart.
  func install(on db: Database) throws {
    try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
    try db.execute(sql: "PRAGMA journal_size_limit = \(limit)")
    db.setWALCommitHook { [self] frames in committed(frames: frames) }
  }

  /// After each COMMIT (SQLite's WAL hook): the frames the log now holds.
  private func committed(frames: Int) {
    let crossed = state.withLock { state in
      // A log that was restarted for this commit holds only its frames.
      let added = frames >= state.frames ? frames - state.frames : frames
      state.frames = frames
      state.peakFrames = max(state.peakFrames, frames)
      state.largestCommitFrames = max(state.largestCommitFrames, added)
      let near = frames * frameBytes > limit / 4 * 3
      defer { state.isNearLimit = near }
      return near && !state.isNearLimit
    }
    if crossed { wake.signal() }
  }

  /// Whether the log is past the limit and a restart may be tried now (cheap: the hub asks
  /// after every commit).
  var restartIsDue: Bool {
    state.withLock { state in
      guard state.frames * frameBytes > limit else { return false }
      if let retryAfter = state.retryAfter, clock.elapsed < retryAfter { return false }
      return true
    }
  }

  /// On the hub's thread, outside any transaction: restarts the log if it is past the limit.
  func checkpointIfNeeded(_ db: Database) {
    guard restartIsDue, !db.isInsideTransaction else { return }
    let start = ContinuousClock.now
    let result: CheckpointResult
    do {
      result = try db.checkpoint(.restart, waitingAtMost: wait)
    } catch {
      Logger(label: "hearthd").warning("the WAL checkpoint failed: \(error)")
      let retryAfter = clock.elapsed + retryDelay
      state.withLock { $0.retryAfter = retryAfter }
      return
    }
    let elapsed = ContinuousClock.now - start
    let retryAt = clock.elapsed + retryDelay
    state.withLock { state in
      state.restartTime += elapsed
      state.slowestRestart = max(state.slowestRestart, elapsed)
      if result.isComplete {
        state.restarts += 1
        state.retryAfter = nil
        // The next write starts the log from the beginning.
        state.frames = 0
        state.isNearLimit = false
      } else {
        // A reader held on: let the writer go for a while.
        state.incompleteRestarts += 1
        state.retryAfter = retryAt
      }
      state.last = CheckpointStatus(
        mode: "restart", at: Int64(Date().timeIntervalSince1970 * 1000),
        complete: result.isComplete,
        walFrames: result.walFrameCount, checkpointedFrames: result.checkpointedFrameCount,
        milliseconds: elapsed.timeInterval * 1000)
    }
  }

  /// Ends the checkpointer's wait now (it stops, or the log crossed three quarters).
  func wakeUp() { wake.signal() }

  /// The checkpointer thread's turn: waits `interval` (2 ms while the log is three quarters
  /// full), then copies what it can with a PASSIVE checkpoint on the writer's connection,
  /// between two of its calls (none while a client's transaction is open).
  func passiveTurn(_ database: DatabasePool, interval: Duration) {
    let pause = state.withLock { $0.isNearLimit } ? .milliseconds(2) : interval
    _ = wake.wait(timeout: .now() + pause.timeInterval)
    var elapsed = Duration.zero
    // A failure (I/O) leaves the WAL longer until the next turn.
    let outcome = try? database.inWriterDatabase { db -> CheckpointResult? in
      guard !db.isInsideTransaction else { return nil }
      let start = ContinuousClock.now
      defer { elapsed = ContinuousClock.now - start }
      return try db.checkpoint(.passive)
    }
    guard let result = outcome ?? nil else { return }
    state.withLock { state in
      state.last = CheckpointStatus(
        mode: "passive", at: Int64(Date().timeIntervalSince1970 * 1000),
        complete: result.isComplete,
        walFrames: result.walFrameCount, checkpointedFrames: result.checkpointedFrameCount,
        milliseconds: elapsed.timeInterval * 1000)
    }
  }

  /// For `welcome` (and so `hearth status`).
  var status: WALStatus {
    state.withLock { state in
      WALStatus(
        bytes: state.frames * frameBytes, limit: limit, peakBytes: state.peakFrames * frameBytes,
        largestCommitBytes: state.largestCommitFrames * frameBytes, restarts: state.restarts,
        incompleteRestarts: state.incompleteRestarts,
        restartMilliseconds: state.restartTime.timeInterval * 1000,
        slowestRestartMilliseconds: state.slowestRestart.timeInterval * 1000,
        checkpoint: state.last, checkpointsByConnection: Database.checkpointsByConnection)
    }
  }
}
