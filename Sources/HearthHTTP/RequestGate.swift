import Foundation

/// The checks every request passes before anything else reads it: it names one of the
/// server's own hosts (a page on another site that resolves its name to 127.0.0.1 — DNS
/// rebinding — names its own), and when it comes from a page, the page is one of ours.
public struct RequestGate: Sendable {
  /// `host:port` forms the server answers to, lower case: `127.0.0.1:8428`,
  /// `[::1]:8428`, `localhost:8428`, and any the owner added.
  public let hosts: Set<String>

  public init(port: UInt16, extraHosts: [String] = []) {
    var hosts: Set<String> = ["127.0.0.1:\(port)", "[::1]:\(port)", "localhost:\(port)"]
    for host in extraHosts { hosts.insert(host.lowercased()) }
    self.hosts = hosts
  }

  public enum Verdict: Equatable, Sendable {
    case allowed
    case refused(String)
  }

  public func check(_ request: HTTPRequest) -> Verdict {
    let hostHeaders = request.headers.filter { $0.0 == "host" }
    guard hostHeaders.count == 1, let host = hostHeaders.first?.1 else {
      return .refused("a request names exactly one Host")
    }
    guard hosts.contains(host.lowercased()) else {
      return .refused("Host \(Self.printable(host)) is not this server's")
    }
    if let origin = request.header("origin") {
      guard origin != "null", let named = Self.host(ofOrigin: origin), hosts.contains(named) else {
        return .refused("Origin \(Self.printable(origin)) is not this server's")
      }
    }
    if request.header("sec-fetch-site") == "cross-site" {
      return .refused("a request from another site")
    }
    return .allowed
  }

  /// `host:port` of an origin `http://host:port`; nil for any other scheme or form.
  public static func host(ofOrigin origin: String) -> String? {
    let prefix = "http://"
    guard origin.lowercased().hasPrefix(prefix) else { return nil }
    let rest = origin.dropFirst(prefix.count).lowercased()
    guard !rest.isEmpty, !rest.contains("/"), !rest.contains("@") else { return nil }
    return String(rest)
  }

  /// A header's value as it may be shown in a message: at most 80 characters of printable
  /// ASCII.
  public static func printable(_ text: String) -> String {
    String(
      text.unicodeScalars.prefix(80).map {
        $0.isASCII && $0.value >= 0x20 && $0.value < 0x7f ? Character($0) : "?"
      })
  }

  /// `Last-Event-ID` (or `since`) as a feed sequence number: digits only, at most 18.
  public static func sequence(_ text: String?) -> Int64? {
    guard let text, !text.isEmpty, text.count <= 18, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 })
    else { return nil }
    return Int64(text)
  }

  /// A `next` path to return to after logging in: a path on this server, never another
  /// site (`//evil`, `/\evil`, `http:`).
  public static func localPath(_ text: String?) -> String? {
    guard let text, text.hasPrefix("/"), !text.hasPrefix("//"), !text.hasPrefix("/\\"),
      text.count <= 2_000,
      text.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7f })
    else { return nil }
    return text
  }
}
