import Foundation

/// The one way Hearth's programs write what they have to say: a line on standard error,
/// `<N>label: message`, where `<N>` is the priority journald reads (so `journalctl -p
/// warning` finds the warnings of a service systemd runs).
///
/// ```swift
/// let log = Logger(label: "hearthd")
/// log.warning("pruning the feed failed: \(error)")   // <4>hearthd: pruning the feed failed: …
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
  }

  /// Who speaks: the program, or a part of it.
  public var label: String

  public init(label: String) {
    self.label = label
  }

  /// The line as it is written, without its newline.
  public func line(_ priority: Priority, _ message: String) -> String {
    "<\(priority.rawValue)>\(label): \(message)"
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
