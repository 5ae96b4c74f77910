import Foundation

/// A request frame as the hub accepts it: decoded, and checked against everything that can
/// be checked before the database is touched. A frame that fails gets the `ErrorReply` to
/// send back. This is the hub's whole front door (and what the fuzzer drives).
public enum WireRequest: Hashable, Sendable {
  case hello(HelloRequest)
  case register(RegisterRequest)
  case transaction(TransactionRequest)
  case changes(ChangesRequest)
  case cursor(CursorRequest)
  case sync(SyncRequest)

  /// The limits a request is checked against.
  public struct Limits: Hashable, Sendable {
    public var maximumMessageSize: Int
    public var maximumStatementsPerMessage: Int

    public init(maximumMessageSize: Int, maximumStatementsPerMessage: Int) {
      self.maximumMessageSize = maximumMessageSize
      self.maximumStatementsPerMessage = maximumStatementsPerMessage
    }
  }

  /// The request's id, which its reply carries.
  public var id: String {
    switch self {
    case .hello(let request): request.id
    case .register(let request): request.id
    case .transaction(let request): request.id
    case .changes(let request): request.id
    case .cursor(let request): request.id
    case .sync(let request): request.id
    }
  }

  /// The request as a frame.
  public func encoded() throws -> Data {
    switch self {
    case .hello(let request): try WireCoding.encode(request)
    case .register(let request): try WireCoding.encode(request)
    case .transaction(let request): try WireCoding.encode(request)
    case .changes(let request): try WireCoding.encode(request)
    case .cursor(let request): try WireCoding.encode(request)
    case .sync(let request): try WireCoding.encode(request)
    }
  }

  /// Decodes and checks one request frame.
  public static func parse(_ body: Data, limits: Limits) -> Result<WireRequest, ErrorReply> {
    guard body.count <= limits.maximumMessageSize else {
      return .failure(
        ErrorReply(
          id: nil, code: .tooLarge,
          message: "the request has \(body.count) bytes; the limit is \(limits.maximumMessageSize)")
      )
    }
    // The hot message first, without the generic coders; anything it does not take goes
    // the general way, which also words every refusal.
    if let fast = TransactionRequest.scanned(from: body), fast.v == WireProtocol.version {
      let request = WireRequest.transaction(fast)
      if let refusal = request.refusal(limits) { return .failure(refusal) }
      return .success(request)
    }
    let envelope: WireEnvelope
    do {
      envelope = try WireCoding.decode(WireEnvelope.self, from: body)
    } catch {
      return .failure(
        ErrorReply(
          id: nil, code: .malformed,
          message: "a request is a JSON object with v, type and id (\(describe(error)))"))
    }
    guard envelope.v == WireProtocol.version else {
      return .failure(
        ErrorReply(
          id: envelope.id, code: .unsupportedVersion,
          message: "this hub speaks protocol version \(WireProtocol.version), not \(envelope.v)"))
    }
    let request: WireRequest
    do {
      switch envelope.type {
      case "hello": request = .hello(try WireCoding.decode(HelloRequest.self, from: body))
      case "register": request = .register(try WireCoding.decode(RegisterRequest.self, from: body))
      case "transaction":
        request = .transaction(try WireCoding.decode(TransactionRequest.self, from: body))
      case "changes": request = .changes(try WireCoding.decode(ChangesRequest.self, from: body))
      case "cursor": request = .cursor(try WireCoding.decode(CursorRequest.self, from: body))
      case "sync": request = .sync(try WireCoding.decode(SyncRequest.self, from: body))
      default:
        return .failure(
          ErrorReply(
            id: envelope.id, code: .unknownType,
            message:
              "unknown request type \"\(envelope.type)\" "
              + "(hello, register, transaction, changes, cursor, sync)"
          ))
      }
    } catch {
      return .failure(
        ErrorReply(
          id: envelope.id, code: .malformed,
          message: "a \(envelope.type) request with wrong fields (\(describe(error)))"))
    }
    if let refusal = request.refusal(limits) { return .failure(refusal) }
    return .success(request)
  }

  /// What is wrong with a well-typed request, whatever the database holds.
  func refusal(_ limits: Limits) -> ErrorReply? {
    switch self {
    case .transaction(let request):
      if request.statements.count > limits.maximumStatementsPerMessage {
        return ErrorReply(
          id: request.id, code: .tooManyStatements,
          message: "\(request.statements.count) statements in one message; the limit is "
            + "\(limits.maximumStatementsPerMessage)")
      }
      if let end = request.end, end != "commit", end != "rollback" {
        return ErrorReply(
          id: request.id, code: .malformed, message: "end is \"commit\" or \"rollback\"")
      }
      if let results = request.results, results != "all", results != "none" {
        return ErrorReply(
          id: request.id, code: .malformed, message: "results is \"all\" or \"none\"")
      }
      if let part = request.part, part < 0 {
        return ErrorReply(
          id: request.id, code: .malformed, message: "part is 0 or more, not \(part)")
      }
    case .register(let request):
      let declared = request.tables.map { $0.lowercased() }
      if request.plugin.isEmpty || declared.contains(where: \.isEmpty) {
        return ErrorReply(
          id: request.id, code: .malformed, message: "a plugin and its tables need names")
      }
      if let reserved = declared.first(where: { $0.hasPrefix("hearth_") || $0.hasPrefix("sqlite_") }
      ) {
        return ErrorReply(
          id: request.id, code: .unauthorized, message: "table name \(reserved) is reserved")
      }
    case .changes(let request):
      if request.since < 0 {
        return ErrorReply(
          id: request.id, code: .malformed,
          message: "since is a sequence number, 0 or more, not \(request.since)")
      }
      if let limit = request.limit, !ChangesRequest.limits.contains(limit) {
        return ErrorReply(
          id: request.id, code: .malformed,
          message: "limit is 1 to \(ChangesRequest.limits.upperBound), not \(limit)")
      }
    case .cursor(let request):
      if request.seq < 0 {
        return ErrorReply(
          id: request.id, code: .malformed,
          message: "seq is a sequence number, 0 or more, not \(request.seq)")
      }
    case .sync(let request):
      if !request.tables.isEmpty || request.action == .deleteLocalData,
        request.plugin?.isEmpty ?? true
      {
        return ErrorReply(
          id: request.id, code: .malformed,
          message: "declaring tables and deleteLocalData need the plugin that asks")
      }
    case .hello:
      break
    }
    return nil
  }

  /// The properties `parse` keeps for any input at all, checked by the fuzzer (`Fuzz/`) and
  /// by a test over its corpus; nil when they hold, else what broke:
  /// - what a message's own reader (`WireMessage.scanned(from:)`) accepts, `JSONDecoder`
  ///   accepts too, as the same message (the `transaction` request, the `committed` and
  ///   `results` replies, any envelope);
  /// - a refusal is a reply the client can read: it encodes, and decodes to itself;
  /// - an accepted request means what it said: encoded and parsed again, it is the same
  ///   request (no value changed on the way, no field dropped).
  public static func brokenProperty(of body: Data, limits: Limits) -> String? {
    // Each message's own reader reads what it accepts as the general decoder does.
    if let broken = Self.readsAsFoundation(TransactionRequest.self, body)
      ?? Self.readsAsFoundation(CommittedReply.self, body)
      ?? Self.readsAsFoundation(ResultsReply.self, body)
      ?? Self.readsAsFoundation(WireEnvelope.self, body)
    {
      return broken
    }
    switch parse(body, limits: limits) {
    case .failure(let refusal):
      guard let encoded = try? WireCoding.encode(refusal),
        let decoded = try? WireCoding.decode(ErrorReply.self, from: encoded), decoded == refusal
      else { return "the refusal does not survive encoding: \(refusal)" }
    case .success(let request):
      guard let encoded = try? request.encoded() else {
        return "the accepted request does not encode: \(request)"
      }
      let unlimited = Limits(maximumMessageSize: .max, maximumStatementsPerMessage: .max)
      guard case .success(let again) = parse(encoded, limits: unlimited) else {
        return "the accepted request is refused once encoded again: \(request)"
      }
      guard again == request else {
        return "the request changed in a round trip: \(request) → \(again)"
      }
    }
    return nil
  }

  /// Nil when `Message`'s own reader refuses `body`, or reads it as `JSONDecoder` does;
  /// else what differs.
  static func readsAsFoundation<Message: WireMessage & Equatable>(
    _ type: Message.Type, _ body: Data
  ) -> String? {
    guard let fast = Message.scanned(from: body) else { return nil }
    guard let general = try? JSONDecoder().decode(Message.self, from: body) else {
      return "the reader of \(Message.self) accepts what JSONDecoder refuses: \(fast)"
    }
    return general == fast ? nil : "the reader of \(Message.self) read \(fast), not \(general)"
  }

  /// A decoding error in words, without Swift's coding-path noise.
  public static func describe(_ error: any Error) -> String {
    switch error {
    case DecodingError.keyNotFound(let key, _): return "missing \(key.stringValue)"
    case DecodingError.typeMismatch(_, let context): return context.debugDescription
    case DecodingError.valueNotFound(_, let context): return context.debugDescription
    case DecodingError.dataCorrupted(let context): return context.debugDescription
    default: return "\(error)"
    }
  }
}
