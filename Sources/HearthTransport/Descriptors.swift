import CZMQ

/// Waiting on plain file descriptors (sockets, pipes), through the same `zmq_poll` as the bus
/// sockets: the one place besides `BusSocket` that waits on a descriptor.
public enum Descriptors {
  /// Waits until one of `items` has one of its events (an error or a hang-up counts as
  /// readable), or `timeout` passes (rounded up to a millisecond: under one left is not yet
  /// the end): what each has, all empty when the time passed or a signal interrupted the
  /// wait (the caller's loop looks again).
  public static func wait(
    _ items: [(fd: Int32, events: BusSocket.Events)], timeout: Duration
  ) throws -> [BusSocket.Events] {
    var polled = items.map {
      zmq_pollitem_t(socket: nil, fd: $0.fd, events: $0.events.rawValue, revents: 0)
    }
    let milliseconds = Int((timeout / .milliseconds(1)).rounded(.up))
    let result = zmq_poll(&polled, Int32(polled.count), max(0, milliseconds))
    if result < 0 {
      if zmq_errno() == EINTR { return items.map { _ in [] } }
      throw BusError.last("poll")
    }
    let readableOrWritable = BusSocket.Events.readable.rawValue | BusSocket.Events.writable.rawValue
    return polled.map {
      var ready = BusSocket.Events(rawValue: $0.revents & readableOrWritable)
      if $0.revents & Int16(ZMQ_POLLERR) != 0 { ready.insert(.readable) }
      return ready
    }
  }
}
