import Foundation

/// Where a request goes, from its method and path; `json` is the page's JSON twin (the same
/// path with `.json`).
public enum Route: Equatable, Sendable {
  case hub(json: Bool)
  case feed(json: Bool)
  case tables(json: Bool)
  case table(String, json: Bool)
  case row(String, RowKey, json: Bool)
  case events
  case login
  case logout
  case asset(String)

  public init?(method: String, path: String) {
    let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
      .map(String.init)
    guard path.hasPrefix("/"), !parts.contains(where: { $0 == ".." || $0 == "." }) else {
      return nil
    }
    switch method {
    case "GET", "HEAD": break
    case "POST":
      guard parts == ["login"] || parts == ["logout"] else { return nil }
    default: return nil
    }
    func twin(_ part: String) -> (String, Bool) {
      part.hasSuffix(".json") ? (String(part.dropLast(5)), true) : (part, false)
    }
    switch parts.count {
    case 1:
      switch parts[0] {
      case "", "hub": self = .hub(json: false)
      case "hub.json": self = .hub(json: true)
      case "feed": self = .feed(json: false)
      case "feed.json": self = .feed(json: true)
      case "tables": self = .tables(json: false)
      case "tables.json": self = .tables(json: true)
      case "events": self = .events
      case "favicon.ico": self = .asset("favicon.ico")
      case "login": self = .login
      case "logout":
        guard method == "POST" else { return nil }
        self = .logout
      default: return nil
      }
    case 2 where parts[0] == "tables" && !parts[1].isEmpty:
      let (name, json) = twin(parts[1])
      guard !name.isEmpty else { return nil }
      self = .table(name, json: json)
    case 2 where parts[0] == "static" && ["app.js", "app.css"].contains(parts[1]):
      self = .asset(parts[1])
    case 3 where parts[0] == "tables" && !parts[1].isEmpty:
      let (text, json) = twin(parts[2])
      guard let key = RowKey(text) else { return nil }
      self = .row(parts[1], key, json: json)
    default:
      return nil
    }
  }
}

/// A row in a path: its rowid (`42`), or the values of its primary key for a table without
/// rowids (`k.` and a keyset token).
public enum RowKey: Equatable, Sendable {
  case rowid(Int64)
  case key([KeyValue])

  public init?(_ text: String) {
    if text.hasPrefix("k.") {
      guard let values = KeyValue.decodeToken(String(text.dropFirst(2))), !values.isEmpty else {
        return nil
      }
      self = .key(values)
    } else {
      guard !text.isEmpty, text.count <= 20, let rowid = Int64(text) else { return nil }
      self = .rowid(rowid)
    }
  }

  public var pathComponent: String {
    switch self {
    case .rowid(let rowid): String(rowid)
    case .key(let values): "k." + KeyValue.token(values)
    }
  }
}

/// A database value in a link: a keyset position (`after=`) or a row's key. Carried as a
/// base64url JSON array of tagged strings (`i:42`, `r:1.5`, `t:text`, `b:<hex>`, `n`), so
/// that a 64-bit integer keeps every digit.
public enum KeyValue: Hashable, Sendable {
  case null
  case integer(Int64)
  case real(Double)
  case text(String)
  case blob([UInt8])

  public static func token(_ values: [KeyValue]) -> String {
    let tagged = values.map { value -> String in
      switch value {
      case .null: "n"
      case .integer(let number): "i:\(number)"
      case .real(let number): "r:\(number)"
      case .text(let text): "t:" + text
      case .blob(let bytes): "b:" + bytes.map { String(format: "%02x", $0) }.joined()
      }
    }
    let data = (try? JSONSerialization.data(withJSONObject: tagged)) ?? Data("[]".utf8)
    return data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
  }

  /// The values of a token; nil when it is not one (at most 4 KiB, 16 values).
  public static func decodeToken(_ token: String) -> [KeyValue]? {
    guard token.utf8.count <= 4_096 else { return nil }
    var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(
      of: "_", with: "/")
    while base64.utf8.count % 4 != 0 { base64 += "=" }
    guard let data = Data(base64Encoded: base64),
      let array = try? JSONSerialization.jsonObject(with: data) as? [Any], array.count <= 16
    else { return nil }
    var values: [KeyValue] = []
    for element in array {
      guard let tagged = element as? String else { return nil }
      if tagged == "n" {
        values.append(.null)
        continue
      }
      guard tagged.count >= 2, tagged.dropFirst().first == ":" else { return nil }
      let body = String(tagged.dropFirst(2))
      switch tagged.first {
      case "i":
        guard let number = Int64(body) else { return nil }
        values.append(.integer(number))
      case "r":
        guard let number = Double(body), number.isFinite else { return nil }
        values.append(.real(number))
      case "t": values.append(.text(body))
      case "b":
        guard body.utf8.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = body.startIndex
        while index < body.endIndex {
          let next = body.index(index, offsetBy: 2)
          guard let byte = UInt8(body[index..<next], radix: 16) else { return nil }
          bytes.append(byte)
          index = next
        }
        values.append(.blob(bytes))
      default: return nil
      }
    }
    return values
  }
}
