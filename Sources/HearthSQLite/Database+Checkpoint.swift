import CSQLite
import Dispatch
import HearthSupport

#if canImport(Glibc)
  import Glibc
#endif

/// What one checkpoint did (`sqlite3_wal_checkpoint_v2`).
public struct CheckpointResult: Hashable, Sendable {
  /// Frames in the write-ahead log when the checkpoint ended.
  public var walFrameCount: Int
  /// Frames of it now copied into the database file.
  public var checkpointedFrameCount: Int
  /// False when the checkpoint could not do all its mode asks (`SQLITE_BUSY`): a reader
  /// still used the log at the end of the wait, or another connection was checkpointing.
  /// What could be copied without waiting was copied all the same.
  public var isComplete: Bool
}

extension Database {
  /// Checkpoints the write-ahead log in `mode`, waiting at most `wait` for readers and
  /// writers where the mode waits (`.full`, `.restart`, `.truncate`); nil waits as long as
  /// the connection's `busyTimeout`. Must run outside a transaction.
  ///
  /// A reader that holds a snapshot through the wait keeps the frames it reads: the
  /// checkpoint copies what it can and reports `isComplete == false`; the log is restarted
  /// by a later checkpoint once that reader has finished.
  ///
  /// ```swift
  /// let result = try db.checkpoint(.restart, waitingAtMost: .milliseconds(50))
  /// if !result.isComplete { /* a reader held on; try again later */ }
  /// ```
  public func checkpoint(_ mode: CheckpointMode, waitingAtMost wait: Duration? = nil) throws
    -> CheckpointResult
  {
    try checkLocal()
    guard !isReadOnly else {
      throw DatabaseError(
        resultCode: .SQLITE_READONLY,
        message: "\(description) is read-only: only a writer checkpoints")
    }
    Self.checkpoints.withLock { $0[description, default: 0] += 1 }
    var logFrames: Int32 = 0
    var checkpointed: Int32 = 0
    var code: Int32
    if let wait {
      // Polls every 100 µs until the deadline. (SQLite's `busy_timeout` sleeps 1, 2, 5,
      // 10 ms…: a reader that leaves after 0.2 ms would cost the writer 3 ms.)
      var deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(wait.nanoseconds, 0))
      code = withUnsafeMutablePointer(to: &deadline) { deadline in
        sqlite3_busy_handler(
          sqliteConnection,
          { context, _ in
            let deadline = context!.assumingMemoryBound(to: UInt64.self).pointee
            guard DispatchTime.now().uptimeNanoseconds < deadline else { return 0 }
            usleep(100)
            return 1
          }, deadline)
        defer { applyBusyTimeout() }
        return sqlite3_wal_checkpoint_v2(
          sqliteConnection, nil, mode.sqliteMode, &logFrames, &checkpointed)
      }
    } else {
      code = sqlite3_wal_checkpoint_v2(
        sqliteConnection, nil, mode.sqliteMode, &logFrames, &checkpointed)
    }
    guard code == SQLITE_OK || code == SQLITE_BUSY else {
      throw error(code: code, sql: "PRAGMA wal_checkpoint(\(mode.rawValue))")
    }
    return CheckpointResult(
      walFrameCount: Int(max(logFrames, 0)), checkpointedFrameCount: Int(max(checkpointed, 0)),
      isComplete: code == SQLITE_OK)
  }
}

extension Database {
  /// Checkpoints made through `checkpoint(_:waitingAtMost:)` in this process, by the
  /// connection's description ("writer", "reader.0", …): how a hub shows that only its
  /// writer checkpoints.
  public static var checkpointsByConnection: [String: Int] { checkpoints.withLock { $0 } }
  static let checkpoints = Locked([String: Int]())
}

extension Duration {
  var nanoseconds: Int64 {
    components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
  }
}

extension CheckpointMode {
  var sqliteMode: Int32 {
    switch self {
    case .passive: SQLITE_CHECKPOINT_PASSIVE
    case .full: SQLITE_CHECKPOINT_FULL
    case .restart: SQLITE_CHECKPOINT_RESTART
    case .truncate: SQLITE_CHECKPOINT_TRUNCATE
    }
  }
}
