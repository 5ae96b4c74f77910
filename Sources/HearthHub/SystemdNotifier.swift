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
    let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    var pathBytes = Array(socketPath.utf8)
    let isAbstract = pathBytes.first == UInt8(ascii: "@")
    if isAbstract { pathBytes[0] = 0 }
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard pathBytes.count < capacity else { return false }
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      buffer.copyBytes(from: pathBytes)
    }
    let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count + (isAbstract ? 0 : 1))
    let message = Array(state.utf8)
    let sent = withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
        sendto(descriptor, message, message.count, 0, socketAddress, length)
      }
    }
    return sent == message.count
  }
}
