import Foundation

/// A pipe as a doorbell: rung from any thread, waited on beside a socket
/// (`BusSocket.waitReadable(orDescriptors:)`, `Descriptors.wait`) by the thread that owns it.
public final class Doorbell: Sendable {
  /// The end to wait on.
  public let descriptor: Int32
  private let ringer: Int32

  public init() throws {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else {
      let code = errno
      throw BusError(code: code, message: String(cString: strerror(code)), operation: "pipe")
    }
    for end in ends {
      _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
    }
    (descriptor, ringer) = (ends[0], ends[1])
  }

  deinit {
    close(descriptor)
    close(ringer)
  }

  /// A full pipe is rung already.
  public func ring() {
    var one: UInt8 = 1
    _ = write(ringer, &one, 1)
  }

  /// Takes the rings that came (so that the next wait waits).
  public func clear() {
    var buffer = [UInt8](repeating: 0, count: 256)
    while read(descriptor, &buffer, buffer.count) > 0 {}
  }

  /// Waits up to `timeout` for a ring; clears it.
  public func wait(timeout: Duration) {
    _ = try? Descriptors.wait([(descriptor, .readable)], timeout: timeout)
    clear()
  }
}
