import CMicroHTTPD
import Foundation
import HearthSupport

/// What a handler answers: a whole body, or a stream written as it is produced (a
/// Server-Sent Events stream).
public enum HTTPResponse {
  case body(status: Int, headers: [(String, String)], body: Data)
  case stream(status: Int, headers: [(String, String)], producer: any StreamProducer)

  /// A text body with its content type.
  public static func text(
    _ status: Int, _ text: String, type: String = "text/plain; charset=utf-8",
    headers: [(String, String)] = []
  ) -> HTTPResponse {
    .body(status: status, headers: [("Content-Type", type)] + headers, body: Data(text.utf8))
  }

  /// A redirect to `location` (303: the next request is a GET).
  public static func redirect(_ location: String, headers: [(String, String)] = []) -> HTTPResponse
  {
    .body(status: 303, headers: [("Location", location)] + headers, body: Data())
  }
}

/// The body of a streamed response, pulled by the connection's own thread.
public protocol StreamProducer: AnyObject, Sendable {
  /// The next bytes to send, at most `limit`; waits for them, but returns within a second
  /// or so (an empty chunk) so that a stopping server is not held up; nil ends the stream.
  func next(limit: Int) -> Data?
  /// The connection closed (the client went, or the server stops).
  func finish()
}

/// An HTTP/1.1 server on the loopback addresses, through libmicrohttpd: one thread per
/// connection, a bounded number of connections, bounded request headers and bodies.
public final class HTTPServer: @unchecked Sendable {
  // Safe: the daemons, port and addresses are written in `start` before any request can
  // arrive and read again only by `stop`; libmicrohttpd calls `serve` from its threads, and
  // the handler is itself Sendable.
  public struct Limits: Sendable {
    /// Connections at once, over both addresses.
    public var connections = 64
    /// Connections at once from one address.
    public var connectionsPerAddress = 48
    /// Bytes of a request line and headers.
    public var headerBytes = 32 * 1_024
    /// Bytes of a request body.
    public var bodyBytes = 16 * 1_024
    /// Seconds a connection may sit idle.
    public var idleSeconds = 120
    public init() {}
  }

  public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

  private let handler: Handler
  private let limits: Limits
  private let log: Logger
  /// Headers every response carries (a security policy, say).
  private let commonHeaders: [(String, String)]
  private var daemons: [OpaquePointer] = []
  /// The port both addresses listen on.
  public private(set) var port: UInt16 = 0
  /// The addresses listened on (`127.0.0.1`, and `::1` when the machine has IPv6).
  public private(set) var addresses: [String] = []

  public init(
    limits: Limits = Limits(), commonHeaders: [(String, String)] = [], log: Logger,
    handler: @escaping Handler
  ) {
    self.limits = limits
    self.commonHeaders = commonHeaders
    self.log = log
    self.handler = handler
  }

  /// Listens on 127.0.0.1 and ::1 at `port` (0: a port the kernel picks, the same for
  /// both). Throws when 127.0.0.1 cannot be bound; ::1 is skipped (and logged) when the
  /// machine has no IPv6.
  public func start(port requested: UInt16) throws {
    let context = Unmanaged.passUnretained(self).toOpaque()
    guard
      let v4 = hearth_mhd_start_loopback(
        0, requested, accessHandler, context, completionHandler, nil,
        UInt32(limits.connections), UInt32(limits.connectionsPerAddress),
        limits.headerBytes, UInt32(limits.idleSeconds))
    else {
      throw HTTPServerError.cannotListen("127.0.0.1:\(requested)", String(cString: strerror(errno)))
    }
    daemons = [v4]
    port = hearth_mhd_port(v4)
    addresses = ["127.0.0.1"]
    if let v6 = hearth_mhd_start_loopback(
      1, port, accessHandler, context, completionHandler, nil,
      UInt32(limits.connections), UInt32(limits.connectionsPerAddress),
      limits.headerBytes, UInt32(limits.idleSeconds))
    {
      daemons.append(v6)
      addresses.append("::1")
    } else {
      log.notice("not listening on [::1]:\(port): \(String(cString: strerror(errno)))")
    }
  }

  /// Stops listening and waits for every connection's thread (streams end within a second).
  public func stop() {
    for daemon in daemons { MHD_stop_daemon(daemon) }
    daemons = []
  }

  /// One request, whole: its body gathered up to the limit, then the handler's answer.
  fileprivate func serve(
    _ connection: OpaquePointer, url: String, method: String,
    upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
    state: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  ) -> MHD_Result {
    let body: RequestBody
    if let existing = state.pointee {
      body = Unmanaged<RequestBody>.fromOpaque(existing).takeUnretainedValue()
    } else {
      // The first call: headers only. Keep a body buffer for what follows.
      body = RequestBody()
      state.pointee = Unmanaged.passRetained(body).toOpaque()
      return .YES
    }
    if uploadSize.pointee > 0 {
      if body.data.count + uploadSize.pointee > limits.bodyBytes {
        body.tooLarge = true
      } else if let upload {
        body.data.append(
          UnsafeRawPointer(upload).assumingMemoryBound(to: UInt8.self), count: uploadSize.pointee)
      }
      uploadSize.pointee = 0
      return .YES
    }
    let response: HTTPResponse
    if body.tooLarge {
      response = .text(413, "request body over \(limits.bodyBytes) bytes\n")
    } else {
      let request = HTTPRequest(
        method: method, path: url, query: Self.values(connection, .GET_ARGUMENT_KIND),
        headers: Self.values(connection, .HEADER_KIND).map { ($0.0.lowercased(), $0.1) },
        body: body.data)
      response = handler(request)
    }
    return queue(response, on: connection)
  }

  private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    let status: Int
    let headers: [(String, String)]
    let made: OpaquePointer?
    switch response {
    case .body(let code, let fields, let body):
      status = code
      headers = fields
      made = body.withUnsafeBytes { bytes in
        hearth_mhd_copied_response(bytes.count, bytes.baseAddress)
      }
    case .stream(let code, let fields, let producer):
      status = code
      headers = fields
      let box = Unmanaged.passRetained(ProducerBox(producer)).toOpaque()
      made = MHD_create_response_from_callback(
        UInt64.max, 16 * 1_024, streamReader, box, streamFinished)
    }
    guard let made else { return .NO }
    for (name, value) in headers + commonHeaders {
      MHD_add_response_header(made, name, value)
    }
    let result = MHD_queue_response(connection, UInt32(status), made)
    MHD_destroy_response(made)
    return result
  }

  /// A connection's values of one kind (headers, query arguments), in order.
  private static func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [(
    String, String
  )] {
    let collected = ValueList()
    let context = Unmanaged.passUnretained(collected).toOpaque()
    _ = MHD_get_connection_values(
      connection, kind,
      { context, _, key, value in
        guard let context, let key else { return .YES }
        let list = Unmanaged<ValueList>.fromOpaque(context).takeUnretainedValue()
        list.values.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
        return .YES
      }, context)
    return collected.values
  }
}

/// Why the server could not start.
public enum HTTPServerError: Error, CustomStringConvertible {
  case cannotListen(String, String)

  public var description: String {
    switch self {
    case .cannotListen(let address, let reason): "cannot listen on \(address): \(reason)"
    }
  }
}

/// A request's body as it arrives.
private final class RequestBody {
  var data = Data()
  var tooLarge = false
}

private final class ValueList {
  var values: [(String, String)] = []
}

private final class ProducerBox {
  let producer: any StreamProducer
  init(_ producer: any StreamProducer) { self.producer = producer }
}

private let accessHandler: MHD_AccessHandlerCallback = {
  context, connection, url, method, _, upload, uploadSize, state in
  guard let context, let connection, let uploadSize, let state else { return .NO }
  let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
  return server.serve(
    connection, url: url.map { String(cString: $0) } ?? "/",
    method: method.map { String(cString: $0) } ?? "GET", upload: upload,
    uploadSize: uploadSize, state: state)
}

private let completionHandler: MHD_RequestCompletedCallback = { _, _, state, _ in
  guard let state, let body = state.pointee else { return }
  Unmanaged<RequestBody>.fromOpaque(body).release()
  state.pointee = nil
}

private let streamReader: MHD_ContentReaderCallback = { context, _, buffer, limit in
  guard let context, let buffer else { return -2 }
  let producer = Unmanaged<ProducerBox>.fromOpaque(context).takeUnretainedValue().producer
  // An empty chunk would have libmicrohttpd call again at once: wait for the next one.
  while true {
    guard let chunk = producer.next(limit: limit) else { return -1 }  // end of stream
    if chunk.isEmpty { continue }
    let count = min(chunk.count, limit)
    chunk.withUnsafeBytes { bytes in
      buffer.update(from: bytes.bindMemory(to: CChar.self).baseAddress!, count: count)
    }
    return count
  }
}

private let streamFinished: MHD_ContentReaderFreeCallback = { context in
  guard let context else { return }
  let box = Unmanaged<ProducerBox>.fromOpaque(context).takeRetainedValue()
  box.producer.finish()
}
