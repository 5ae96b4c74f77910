import Foundation
import HearthCommandLine
import HearthData
import HearthService

/// Redraws `render`'s text whenever a commit touches `tables`, by any process, until the
/// process is interrupted: the `watch` command of a feature.
///
/// Commits that arrive while a frame is drawn are folded into the next one, so a burst of
/// writes costs one redraw. On a terminal each frame replaces the last; into a pipe, frames
/// follow each other, separated by a line.
public func watch(
  _ database: any DatabaseReader, tables: Set<String>, title: String,
  render: @escaping () throws -> String
) -> Never {
  let pending = DispatchSemaphore(value: 0)
  let observation = database.observeCommits { changes in
    if changes.isSchemaChanged || changes.touches(tables) { pending.signal() }
  }
  let isTerminal = isatty(STDOUT_FILENO) != 0
  let time = DateFormatter()
  time.dateFormat = "HH:mm:ss"
  // The observation ends when it is released: keep it for as long as the loop runs (an
  // optimized build may otherwise release it after its last use, which the loop is not).
  withExtendedLifetime(observation) { () -> Never in
    while true {
      let body: String
      do {
        body = try render()
      } catch {
        body = "cannot read the data: \(error)"
      }
      let frame =
        "\(title) — \(time.string(from: Date())) — Ctrl-C to stop\n\n\(body.shownAsText)\n"
      // Clear the screen and go home on a terminal; a separator in a pipe.
      let output = isTerminal ? "\u{1B}[H\u{1B}[2J" + frame : "----\n" + frame
      FileHandle.standardOutput.write(Data(output.utf8))
      pending.wait()
      while pending.wait(timeout: .now() + .milliseconds(20)) == .success {}
    }
  }
}

/// Runs `duty` every `interval` until SIGTERM or SIGINT: the `run` mode that
/// `hearth-feature@NAME.service` starts. A failing duty is retried (the hub may be
/// restarting) after a wait that doubles up to a minute; the log gets one line when it starts
/// failing and one when it works again, not a line a turn. The process only ends when asked.
public func runDuties(
  name: String, interval: Duration, _ duty: @escaping @Sendable () throws -> Void
) -> Never {
  let logger = Logger(label: name)
  logger.info("running (every \(interval))")
  let duties = LoopService("duties") { loop in
    var backoff = RetryBackoff(interval: interval)
    repeat {
      do {
        try duty()
        if let failures = backoff.succeeded() {
          logger.notice("working again after \(failures) failed attempt(s)")
        }
      } catch {
        if backoff.failed() {
          logger.warning("\(error) (trying again, less often while it fails)")
        }
      }
    } while loop.wait(for: backoff.wait)
  }
  do {
    // A duty caught in a request to a hub that does not answer (hung, being replaced) must
    // not hold up the stop: what it was writing either committed or is written again at the
    // next start, since every duty is idempotent.
    try ServiceGroup([duties], logger: logger, grace: .seconds(1)).run()
  } catch {
    exit(1)
  }
  logger.info("stopping")
  exit(0)
}

/// The waits of a duty that fails: `interval` while it works, then doubling from it on each
/// failure up to `ceiling`.
public struct RetryBackoff: Sendable {
  public let interval: Duration
  public let ceiling: Duration
  /// How long to wait before the next attempt.
  public private(set) var wait: Duration
  /// Failures in a row.
  public private(set) var failures = 0

  public init(interval: Duration, ceiling: Duration = .seconds(60)) {
    self.interval = interval
    self.ceiling = max(ceiling, interval)
    self.wait = interval
  }

  /// Records a failure; true when it is the first of a run (the one to log).
  public mutating func failed() -> Bool {
    failures += 1
    wait = failures == 1 ? interval : min(wait * 2, ceiling)
    return failures == 1
  }

  /// Records a success; how many failures it ends, when there were any (the recovery to log).
  public mutating func succeeded() -> Int? {
    defer {
      failures = 0
      wait = interval
    }
    return failures > 0 ? failures : nil
  }
}
