import Foundation

/// Tells systemd how the service is doing (the `sd_notify` protocol, spoken directly: one
/// datagram to `$NOTIFY_SOCKET`). Without `NOTIFY_SOCKET` every call does nothing.
public struct SystemdNotifier: Sendable {
  public let socketPath: String?

  public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
    if let usec = environment["WATCHDOG_USEC"], let value = Double(usec), value > 0 {
      watchdogInterval = .microseconds(Int64(value / 2))
    } else {
      watchdogInterval = nil
    }
  }

  /// Half of `WatchdogSec`, when systemd asked for watchdog pings.
  public let watchdogInterval: Duration?

  /// Sends `state` (`READY=1`, `STATUS=…`, `WATCHDOG=1`, `STOPPING=1`; several joined by
  /// newlines). Returns whether a datagram was sent.
  @discardableResult
  public func notify(_ state: String) -> Bool {
    guard let socketPath else { return false }
    return UnixDatagram.send(Array(state.utf8), to: socketPath)
  }
}
