import Foundation

/// The hub's request stream (Protocols/README.md, "The request stream"): the same requests
/// and replies as the ZeroMQ request socket, over a bare unix stream socket,
/// `<runtime>/hub.stream`. Each message is a frame — a 4-byte big-endian length, then that
/// many bytes. The connection begins with a Noise IK handshake (`NoiseIK`) between the
/// client's CURVE key pair and the hub's, and every frame after it is a Noise transport
/// message: sealed with the session's key for its direction and its place in the stream.
///
/// No thread of libzmq stands between the caller and the kernel: a request is one `sendmsg`
/// from the writer's own thread to the hub's, its reply one `recv` back.
public enum StreamHandshake {
  /// What a client's greeting begins with, and the Noise prologue of both ends: the
  /// protocol and its version.
  public static let magic = Data("hearth/2".utf8)
  /// The greeting: the magic, then the first handshake message with no payload (the
  /// client's ephemeral key, its static key sealed, an empty payload sealed).
  public static let greetingSize = magic.count + NoiseIK.firstMessageSize()
  /// The hub's answer: the second handshake message with no payload.
  public static let answerSize = NoiseIK.secondMessageSize()

  /// The Noise key pair of a CURVE key pair (Z85); nil when either key is not one, or the
  /// public key is not the secret key's.
  public static func keyPair(_ keys: CurveKeyPair) -> Noise.KeyPair? {
    guard let secret = CurveKeyPair.raw(keys.secretKey),
      let publicKey = CurveKeyPair.raw(keys.publicKey)
    else { return nil }
    let pair = Noise.KeyPair(secret: secret)
    return pair.publicKey == publicKey ? pair : nil
  }
}

/// Frames on a byte stream: what has been read, cut into frames as they complete.
public struct FrameBuffer {
  private var bytes: [UInt8] = []
  private var start = 0

  public init() {}

  /// How many bytes wait in the buffer.
  public var count: Int { bytes.count - start }

  public mutating func append(_ chunk: UnsafeRawBufferPointer) {
    if start > 0, start == bytes.count {
      bytes.removeAll(keepingCapacity: true)
      start = 0
    }
    bytes.append(contentsOf: chunk)
  }

  /// The next whole frame; nil when it has not all come. Throws `FrameTooLarge` when its
  /// length is over `limit` (before any of it is kept).
  public mutating func next(limit: Int) throws -> Data? {
    guard count >= 4 else { return nil }
    let length =
      Int(bytes[start]) << 24 | Int(bytes[start + 1]) << 16 | Int(bytes[start + 2]) << 8
      | Int(bytes[start + 3])
    guard length <= limit else { throw FrameTooLarge(length: length, limit: limit) }
    guard count >= 4 + length else { return nil }
    let frame = Data(bytes[(start + 4)..<(start + 4 + length)])
    start += 4 + length
    if start == bytes.count {
      bytes.removeAll(keepingCapacity: bytes.capacity <= 1 << 20)
      start = 0
    } else if start > 1 << 20 {
      bytes.removeFirst(start)
      start = 0
    }
    return frame
  }

  /// The 4-byte length that precedes a frame of `count` bytes.
  public static func header(_ count: Int) -> [UInt8] {
    [
      UInt8(truncatingIfNeeded: count >> 24), UInt8(truncatingIfNeeded: count >> 16),
      UInt8(truncatingIfNeeded: count >> 8), UInt8(truncatingIfNeeded: count),
    ]
  }
}

/// A frame whose length is over the limit: the stream cannot go on (its remaining bytes
/// would have to be read to find the next frame).
public struct FrameTooLarge: Error, Equatable {
  public var length: Int
  public var limit: Int
}

/// Sends a frame's header and body in one `sendmsg` (without `SIGPIPE`): how many bytes
/// went, or -1 with `errno` set.
public func sendFrame(_ fd: Int32, header: [UInt8], body: Data, from offset: Int = 0) -> Int {
  header.withUnsafeBytes { header in
    body.withUnsafeBytes { body in
      var parts = [
        iovec(
          iov_base: UnsafeMutableRawPointer(mutating: header.baseAddress), iov_len: header.count),
        iovec(iov_base: UnsafeMutableRawPointer(mutating: body.baseAddress), iov_len: body.count),
      ]
      // Skip what an earlier call already sent.
      var skip = offset
      for index in parts.indices {
        let taken = min(skip, parts[index].iov_len)
        parts[index].iov_base = parts[index].iov_base.map { $0 + taken }
        parts[index].iov_len -= taken
        skip -= taken
      }
      return parts.withUnsafeMutableBufferPointer { parts in
        var message = msghdr()
        message.msg_iov = parts.baseAddress
        message.msg_iovlen = parts.count
        return Int(sendmsg(fd, &message, Int32(MSG_NOSIGNAL)))
      }
    }
  }
}

/// A client's end of the request stream: blocking, used by one thread at a time.
public final class RequestStream {
  private var fd: Int32
  private var input = FrameBuffer()
  /// Where `recv` reads to, kept between reads.
  private var chunk = [UInt8](repeating: 0, count: 1 << 16)

  /// Why a stream could not be opened.
  public enum Failure: Error, Equatable {
    /// Nothing listens at the path (no hub, or an older one without a stream).
    case notListening
    /// The hub did not answer the greeting in time, or closed the connection.
    case noAnswer
    /// The process at the path did not prove it holds the hub's key.
    case notTheHub
    /// A key is not a CURVE key, or the socket could not be made.
    case unusable(String)
  }

  /// The handshake's ciphers; nil until it is done.
  private var session: NoiseSession?

  private init(fd: Int32) { self.fd = fd }

  deinit { close() }

  /// Connects to `path` and runs the handshake as `keys` with the hub whose public key is
  /// `hubKey` (both Z85), waiting at most `timeout` for the hub's answer.
  public static func open(
    path: String, keys: CurveKeyPair, hubKey: String, timeout: Duration
  ) throws -> RequestStream {
    guard let pair = StreamHandshake.keyPair(keys), let hubPublic = CurveKeyPair.raw(hubKey)
    else { throw Failure.unusable("a key is not a Z85 CURVE key, or not its pair's") }
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw Failure.unusable(String(cString: strerror(errno))) }
    let stream = RequestStream(fd: fd)
    guard let connected = withUnixAddress(path, { connect(fd, $0, $1) }) else {
      throw Failure.unusable("the path is too long for a unix socket: \(path)")
    }
    guard connected == 0 else { throw Failure.notListening }
    var handshake = NoiseIK.initiator(
      prologue: StreamHandshake.magic, local: pair, remoteStatic: hubPublic)
    do {
      try stream.sendRaw(StreamHandshake.magic + handshake.writeFirst())
    } catch let error as Noise.Failure {
      throw Failure.unusable("the hub's key cannot be used: \(error)")
    }
    guard let answer = try? stream.receiveRaw(timeout: timeout, limit: 1 << 16),
      answer.count == StreamHandshake.answerSize
    else { throw Failure.noAnswer }
    // Only the holder of the hub's secret key makes an answer that decrypts.
    guard let (_, session) = try? handshake.readSecond(answer) else { throw Failure.notTheHub }
    stream.session = session
    try stream.send(Data())
    return stream
  }

  /// Sends one request (or any body), sealed, as one frame (blocking while the hub's buffer
  /// is full).
  public func send(_ body: Data) throws {
    guard var session else { throw StreamClosed(reason: "the handshake is not done") }
    let sealed = try session.send.encrypt(body)
    self.session = session
    try sendRaw(sealed)
  }

  /// The next frame, opened, waiting at most `timeout`: nil when none came in time. Throws
  /// `StreamClosed` when the hub closed the connection or sent a frame that does not
  /// decrypt, `FrameTooLarge` past `limit`.
  public func receive(timeout: Duration, limit: Int = Int(Int32.max)) throws -> Data? {
    guard var session else { throw StreamClosed(reason: "the handshake is not done") }
    guard
      let sealed = try receiveRaw(
        timeout: timeout, limit: min(limit, Int(Int32.max)) + Noise.tagSize)
    else { return nil }
    do {
      let body = try session.receive.decrypt(sealed)
      self.session = session
      return body
    } catch {
      close()
      throw StreamClosed(reason: "a frame from the hub did not decrypt (\(error))")
    }
  }

  private func sendRaw(_ body: Data) throws {
    let header = FrameBuffer.header(body.count)
    var sent = 0
    while sent < 4 + body.count {
      let count = sendFrame(fd, header: header, body: body, from: sent)
      if count < 0 {
        if errno == EINTR { continue }
        throw StreamClosed(reason: String(cString: strerror(errno)))
      }
      sent += count
    }
  }

  private func receiveRaw(timeout: Duration, limit: Int) throws -> Data? {
    let deadline = ContinuousClock.now + timeout
    while true {
      if let frame = try input.next(limit: limit) { return frame }
      let left = deadline - ContinuousClock.now
      guard left > .zero else { return nil }
      let ready: [BusSocket.Events]
      do {
        ready = try Descriptors.wait([(fd, .readable)], timeout: left)
      } catch {
        throw StreamClosed(reason: "\(error)")
      }
      if ready[0].isEmpty { continue }
      try readAvailable()
    }
  }

  /// Reads what the socket has (one `recv` of up to 64 KiB).
  private func readAvailable() throws {
    let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
    if count < 0 {
      if errno == EINTR || errno == EAGAIN { return }
      throw StreamClosed(reason: String(cString: strerror(errno)))
    }
    if count == 0 { throw StreamClosed(reason: "the hub closed the connection") }
    chunk.withUnsafeBytes { input.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
  }

  public func close() {
    if fd >= 0 { Glibc.close(fd) }
    fd = -1
  }
}

/// The connection ended: the hub closed it (it stopped, or refused what came), or the
/// socket failed.
public struct StreamClosed: Error, CustomStringConvertible {
  public var reason: String
  public var description: String { "the request stream closed: \(reason)" }
}
