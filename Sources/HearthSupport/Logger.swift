import Foundation

/// The one way Hearth's programs write what they have to say: a line on standard error.
/// Under journald (systemd sets `JOURNAL_STREAM` for a unit whose standard error is the
/// journal) the line is `<N>label: message`, `<N>` the priority journald reads, so that
/// `journalctl -p warning` finds the warnings; elsewhere it carries the time and the
/// priority's name instead, for a person or a log file.
///
/// ```swift
/// let log = Logger(label: "hearthd")
/// log.warning("pruning the feed failed: \(error)")
/// // journald:   <4>hearthd: pruning the feed failed: …
/// // elsewhere:  2026-12-05 20:14:57.123 hearthd: warning: pruning the feed failed: …
/// ```
public struct Logger: Sendable {
  /// syslog's priorities, as journald takes them from a line's `<N>` prefix.
  public enum Priority: Int, Sendable, Comparable {
    case error = 3
    case warning = 4
    case notice = 5
    case info = 6
    case debug = 7

    public static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rawValue < rhs.rawValue }

    var name: String {
      switch self {
      case .error: "error"
      case .warning: "warning"
      case .notice: "notice"
      case .info: "info"
      case .debug: "debug"
      }
    }
  }

  /// Who speaks: the program, or a part of it.
  public var label: String
  /// Whether lines go to journald (priority prefixes) or elsewhere (times and names).
  public var journal: Bool

  /// `journal`: whether standard error is journald's stream (`JOURNAL_STREAM` is set).
  public init(
    label: String, journal: Bool = ProcessInfo.processInfo.environment["JOURNAL_STREAM"] != nil
  ) {
    self.label = label
    self.journal = journal
  }

  /// The line as it is written, without its newline.
  public func line(_ priority: Priority, _ message: String, at time: Date = Date()) -> String {
    if journal { return "<\(priority.rawValue)>\(label): \(message)" }
    let level = priority == .info ? "" : "\(priority.name): "
    return "\(Self.timestamp(time)) \(label): \(level)\(message)"
  }

  /// `2026-12-05 20:14:57.123`, in local time.
  static func timestamp(_ time: Date) -> String {
    var seconds = time_t(time.timeIntervalSince1970.rounded(.down))
    var parts = tm()
    localtime_r(&seconds, &parts)
    let milliseconds = Int((time.timeIntervalSince1970 - Double(seconds)) * 1000)
    return String(
      format: "%04d-%02d-%02d %02d:%02d:%02d.%03d", Int(parts.tm_year) + 1900,
      Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min),
      Int(parts.tm_sec), min(milliseconds, 999))
  }

  public func log(_ priority: Priority, _ message: String) {
    // One write per line: lines of concurrent threads never interleave.
    FileHandle.standardError.write(Data((line(priority, message) + "\n").utf8))
  }

  public func error(_ message: String) { log(.error, message) }
  public func warning(_ message: String) { log(.warning, message) }
  public func notice(_ message: String) { log(.notice, message) }
  public func info(_ message: String) { log(.info, message) }
}
