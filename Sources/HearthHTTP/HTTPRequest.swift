import Foundation

/// One HTTP request as the server hands it over: the method, the path (percent-decoded by
/// the server, without the query), the query's arguments and the headers in the order they
/// came (header names lower-cased), and the body.
public struct HTTPRequest: Sendable {
  public var method: String
  public var path: String
  public var query: [(String, String)]
  public var headers: [(String, String)]
  public var body: Data

  public init(
    method: String, path: String, query: [(String, String)] = [],
    headers: [(String, String)] = [], body: Data = Data()
  ) {
    self.method = method
    self.path = path
    self.query = query
    self.headers = headers
    self.body = body
  }

  /// The first value of header `name` (lower case).
  public func header(_ name: String) -> String? {
    headers.first { $0.0 == name }?.1
  }

  /// The first value of query argument `name`, nil when absent or empty.
  public func argument(_ name: String) -> String? {
    query.first { $0.0 == name }.flatMap { $0.1.isEmpty ? nil : $0.1 }
  }

  /// The cookies of the `Cookie` headers, by name (the first of a name wins).
  public var cookies: [String: String] {
    var cookies: [String: String] = [:]
    for (name, value) in headers where name == "cookie" {
      for (key, text) in Self.cookiePairs(value) where cookies[key] == nil {
        cookies[key] = text
      }
    }
    return cookies
  }

  /// `a=1; b=2` as pairs; a part without `=` or with an empty name is skipped, quotes
  /// around a value are taken off (RFC 6265 §4.2.1).
  public static func cookiePairs(_ header: String) -> [(String, String)] {
    header.split(separator: ";").compactMap { part in
      guard let equals = part.firstIndex(of: "=") else { return nil }
      let name = part[..<equals].trimmingCharacters(in: .whitespaces)
      var value = part[part.index(after: equals)...].trimmingCharacters(in: .whitespaces)
      if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
        value = String(value.dropFirst().dropLast())
      }
      return name.isEmpty ? nil : (name, value)
    }
  }

  /// An `application/x-www-form-urlencoded` body as pairs: `+` is a space, `%XX` a byte;
  /// a pair whose bytes are not UTF-8 is skipped.
  public static func formPairs(_ body: Data) -> [(String, String)] {
    guard let text = String(data: body, encoding: .utf8) else { return [] }
    return text.split(separator: "&").compactMap { part in
      let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard let name = percentDecoded(String(pieces[0])), !name.isEmpty else { return nil }
      guard let value = percentDecoded(pieces.count > 1 ? String(pieces[1]) : "") else {
        return nil
      }
      return (name, value)
    }
  }

  /// `%XX` and `+` decoded; nil when an escape is malformed or the bytes are not UTF-8.
  public static func percentDecoded(_ text: String) -> String? {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    var iterator = text.utf8.makeIterator()
    while let byte = iterator.next() {
      switch byte {
      case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
      case UInt8(ascii: "%"):
        guard let high = iterator.next().flatMap(hexValue),
          let low = iterator.next().flatMap(hexValue)
        else { return nil }
        bytes.append(high << 4 | low)
      default: bytes.append(byte)
      }
    }
    return String(validating: bytes, as: UTF8.self)
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
