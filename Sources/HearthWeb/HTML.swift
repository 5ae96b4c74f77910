import Foundation
import HearthHTTP

/// HTML text in which every interpolated value is escaped unless it is HTML itself: data
/// shown on a page can be another person's (through sharing), so escaping is the default
/// and markup the exception, spelled `\(html: …)`.
public struct HTML: ExpressibleByStringInterpolation, Sendable {
  public private(set) var text: String

  public init(stringLiteral value: String) { text = value }
  public init(stringInterpolation: Interpolation) { text = stringInterpolation.text }
  public init(raw: String) { text = raw }

  public struct Interpolation: StringInterpolationProtocol {
    var text = ""
    public init(literalCapacity: Int, interpolationCount: Int) {
      text.reserveCapacity(literalCapacity * 2)
    }
    public mutating func appendLiteral(_ literal: String) { text += literal }
    public mutating func appendInterpolation(_ value: String) { text += HTML.escape(value) }
    public mutating func appendInterpolation<T: BinaryInteger>(_ value: T) { text += "\(value)" }
    public mutating func appendInterpolation(html: HTML) { text += html.text }
    public mutating func appendInterpolation(html: [HTML]) {
      for part in html { text += part.text }
    }
  }

  /// `&`, `<`, `>`, `"` and `'` as character references: safe in text and in quoted
  /// attribute values.
  public static func escape(_ value: String) -> String { Markup.escape(value) }

  /// A path segment or query value percent-encoded (everything but unreserved characters).
  public static func urlComponent(_ value: String) -> String {
    let allowed = CharacterSet(
      charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
    return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
  }
}
