import CSodium
import Foundation
import HearthHTTP

/// Who may read the pages: whoever holds the token. The token is random, kept in a file
/// only the owner reads (`web.token`, mode 0600, in hearth-web's directory beside the hub's
/// sockets) so that it outlives a restart of the server, printed at start in a link that
/// logs in. Logging in exchanges it
/// for a cookie (`HttpOnly; SameSite=Strict`) whose value is BLAKE2b keyed with the token:
/// the cookie proves the token without being it, and replacing the token (deleting the
/// file) logs every browser out.
public struct WebAuth: Sendable {
  public let token: String
  let session: String
  public static let cookieName = "hearth_web"

  public init(token: String) {
    self.token = token
    session = Self.sessionValue(for: token)
  }

  /// The token in `path`, made (32 random bytes, hex) when the file does not exist.
  public static func load(from path: String) throws -> WebAuth {
    if let text = try? String(contentsOfFile: path, encoding: .utf8) {
      let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
      if token.count == 64, token.allSatisfy(\.isHexDigit) { return WebAuth(token: token) }
    }
    var bytes = [UInt8](repeating: 0, count: 32)
    guard sodium_init() >= 0 else { throw WebAuthError("libsodium did not start") }
    randombytes_buf(&bytes, bytes.count)
    let token = bytes.map { String(format: "%02x", $0) }.joined()
    let temporary = path + ".new"
    guard
      FileManager.default.createFile(
        atPath: temporary, contents: Data((token + "\n").utf8),
        attributes: [.posixPermissions: 0o600])
    else { throw WebAuthError("cannot write \(temporary)") }
    guard rename(temporary, path) == 0 else {
      throw WebAuthError("cannot write \(path): \(String(cString: strerror(errno)))")
    }
    return WebAuth(token: token)
  }

  /// Whether `candidate` is the token, compared in constant time.
  public func isToken(_ candidate: String) -> Bool {
    Self.constantTimeEqual(candidate, token)
  }

  /// Whether the request carries the session cookie.
  public func isLoggedIn(_ request: HTTPRequest) -> Bool {
    guard let cookie = request.cookies[Self.cookieName] else { return false }
    return Self.constantTimeEqual(cookie, session)
  }

  /// The `Set-Cookie` value that logs a browser in.
  public var loginCookie: String {
    "\(Self.cookieName)=\(session); Path=/; HttpOnly; SameSite=Strict"
  }

  /// The one that logs it out.
  public static let logoutCookie = "\(cookieName)=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"

  static func sessionValue(for token: String) -> String {
    var out = [UInt8](repeating: 0, count: 32)
    let key = Array(token.utf8)
    let message = Array("hearth-web session".utf8)
    _ = crypto_generichash(&out, out.count, message, UInt64(message.count), key, key.count)
    return out.map { String(format: "%02x", $0) }.joined()
  }

  static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
    let left = Array(a.utf8)
    let right = Array(b.utf8)
    guard left.count == right.count else { return false }
    return sodium_memcmp(left, right, left.count) == 0
  }
}

public struct WebAuthError: Error, CustomStringConvertible {
  public var description: String
  init(_ description: String) { self.description = description }
}
