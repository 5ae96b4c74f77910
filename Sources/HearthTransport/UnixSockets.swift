import Foundation
import HearthWire

extension HubPaths {
  /// The hub's and its plugins' keys.
  public var keyring: Keyring { Keyring(directory: keysDirectory) }

  /// Whether a process accepts connections on the unix socket at `path`: false at once when
  /// there is no such file, or nothing listens on it (a file left by a killed hub refuses).
  public static func socketAnswers(at path: String) -> Bool {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    return withUnixAddress(path) { connect(fd, $0, $1) } == 0
  }
}

/// Calls `body` with `path` as a unix socket's address (for `connect`, `bind` or `sendto`):
/// a file's path, or a name in the abstract namespace written with a leading `@` (as
/// systemd's `NOTIFY_SOCKET` may be); nil when the path is too long for one.
public func withUnixAddress<Result>(
  _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
) -> Result? {
  var address = sockaddr_un()
  address.sun_family = sa_family_t(AF_UNIX)
  var bytes = Array(path.utf8)
  let isAbstract = bytes.first == UInt8(ascii: "@")
  if isAbstract { bytes[0] = 0 } else { bytes.append(0) }
  guard bytes.count <= MemoryLayout.size(ofValue: address.sun_path) else { return nil }
  withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
  let length =
    isAbstract
    ? MemoryLayout<sa_family_t>.size + bytes.count : MemoryLayout<sockaddr_un>.size
  return withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(length)) }
  }
}

/// Unix datagrams: systemd's notification socket, and a test's stand-in for it.
public enum UnixDatagram {
  /// Sends `message` as one datagram to the socket at `path`; whether it all went.
  public static func send(_ message: [UInt8], to path: String) -> Bool {
    let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    let sent = withUnixAddress(path) { address, length in
      sendto(descriptor, message, message.count, Int32(MSG_NOSIGNAL), address, length)
    }
    return sent == message.count
  }

  /// A datagram socket bound at a path, and what arrives on it.
  public final class Receiver {
    public let path: String
    private let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)

    /// Binds a new socket at `path` (a file left there is removed first).
    public init(path: String) throws {
      self.path = path
      unlink(path)
      descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
      guard descriptor >= 0 else { throw BusError.last("socket", endpoint: path) }
      guard withUnixAddress(path, { bind(descriptor, $0, $1) }) == 0 else {
        let error = BusError.last("bind", endpoint: path)
        close(descriptor)
        throw error
      }
    }

    deinit {
      close(descriptor)
      unlink(path)
    }

    /// The next datagram, waiting at most `timeout`; nil when none came.
    public func receive(timeout: Duration) throws -> [UInt8]? {
      guard try Descriptors.wait([(descriptor, .readable)], timeout: timeout)[0].contains(.readable)
      else { return nil }
      let count = buffer.withUnsafeMutableBytes {
        recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
      }
      return count < 0 ? nil : Array(buffer[..<count])
    }
  }
}

extension BusSocket {
  /// Connects this DEALER to the hub's request socket at `paths` as a CURVE client
  /// authenticated as `keys` — a new pair when nil, which the hub takes as a reader only
  /// (`hello`, `changes`). Throws when no hub has published its key there.
  public func connectToHub(_ paths: HubPaths, as keys: CurveKeyPair? = nil) throws {
    guard let serverKey = paths.hubPublicKey() else {
      throw BusError(
        code: ENOENT, message: "no hub has published its key at \(paths.hubPublicKeyPath)",
        operation: "connect", socketKind: kind.description, endpoint: paths.requestEndpoint)
    }
    try makeCurveClient(keys ?? .generate(), serverKey: serverKey)
    try connect(paths.requestEndpoint)
  }
}
