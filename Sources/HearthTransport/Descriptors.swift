import Glibc

/// Waiting on plain file descriptors (sockets, pipes, a ZeroMQ socket's `ZMQ_FD`) with one
/// `poll(2)`: the one place besides `BusSocket` that waits on a descriptor. (`zmq_poll` on
/// plain descriptors first polls with no timeout and then again with it: two system calls
/// for every wait that blocks.)
public enum Descriptors {
  /// Waits until one of `items` has one of its events (an error or a hang-up counts as
  /// readable), or `timeout` passes (rounded up to a millisecond: under one left is not yet
  /// the end): what each has, all empty when the time passed or a signal interrupted the
  /// wait (the caller's loop looks again).
  public static func wait(
    _ items: [(fd: Int32, events: BusSocket.Events)], timeout: Duration
  ) throws -> [BusSocket.Events] {
    var polled = items.map { pollfd(fd: $0.fd, events: $0.events.pollEvents, revents: 0) }
    let milliseconds = Int32(clamping: Int((timeout / .milliseconds(1)).rounded(.up)))
    guard try poll(&polled, milliseconds: max(0, milliseconds)) else {
      return items.map { _ in [] }
    }
    return polled.map { BusSocket.Events(polled: $0.revents) }
  }

  /// One `poll(2)` of `descriptors`: false when a signal interrupted it.
  static func poll(_ descriptors: inout [pollfd], milliseconds: Int32) throws -> Bool {
    let result = descriptors.withUnsafeMutableBufferPointer {
      Glibc.poll($0.baseAddress, nfds_t($0.count), milliseconds)
    }
    if result < 0 {
      if errno == EINTR { return false }
      throw BusError.last("poll")
    }
    return true
  }
}

extension BusSocket.Events {
  /// The same events as `poll(2)` spells them (ZeroMQ numbers them its own way).
  var pollEvents: Int16 {
    (contains(.readable) ? Int16(POLLIN) : 0) | (contains(.writable) ? Int16(POLLOUT) : 0)
  }

  /// What `poll(2)` reported: an error, a hang-up or a bad descriptor counts as readable
  /// (the read that follows finds out which).
  init(polled revents: Int16) {
    self = []
    if revents & Int16(POLLIN | POLLERR | POLLHUP | POLLNVAL) != 0 { insert(.readable) }
    if revents & Int16(POLLOUT) != 0 { insert(.writable) }
  }
}
