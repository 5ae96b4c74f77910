import CZMQ

/// A ZeroMQ context: the I/O threads sockets share. One per process is enough.
///
/// Thread-safe, as libzmq's contexts are. Closing it (or releasing it) waits for the sockets
/// made from it to close.
public final class BusContext: @unchecked Sendable {
  // Safe to share: libzmq documents a context as thread-safe; `handle` never changes.
  let handle: UnsafeMutableRawPointer

  public init() {
    handle = zmq_ctx_new()
  }

  deinit { zmq_ctx_term(handle) }

  /// libzmq's version, for example (4, 3, 4).
  public static var version: (major: Int, minor: Int, patch: Int) {
    var major: Int32 = 0
    var minor: Int32 = 0
    var patch: Int32 = 0
    zmq_version(&major, &minor, &patch)
    return (Int(major), Int(minor), Int(patch))
  }

  /// Whether libzmq was built with CURVE security (Debian's is, through libsodium).
  public static var hasCurve: Bool { zmq_has("curve") == 1 }
}

/// A ZeroMQ failure, with the socket and endpoint it concerns.
public struct BusError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The `errno` libzmq reported (`EAGAIN`, `EADDRINUSE`, …).
  public var code: Int32
  public var message: String
  public var operation: String
  public var socketKind: String?
  public var endpoint: String?

  public init(
    code: Int32, message: String, operation: String, socketKind: String? = nil,
    endpoint: String? = nil
  ) {
    self.code = code
    self.message = message
    self.operation = operation
    self.socketKind = socketKind
    self.endpoint = endpoint
  }

  /// The error libzmq just reported.
  static func last(_ operation: String, kind: String? = nil, endpoint: String? = nil) -> BusError {
    let code = zmq_errno()
    return BusError(
      code: code, message: String(cString: zmq_strerror(code)), operation: operation,
      socketKind: kind, endpoint: endpoint)
  }

  /// Nothing to receive now, or a send would block (`EAGAIN`).
  public var wouldBlock: Bool { code == EAGAIN }

  public var description: String {
    var text = "ZeroMQ \(operation) failed: \(message) (errno \(code))"
    if let socketKind { text += " on a \(socketKind) socket" }
    if let endpoint { text += " at \(endpoint)" }
    return text
  }
}
