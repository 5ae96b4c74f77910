import Foundation

/// What must hold of any request the parsing here is given, for the fuzzer
/// (Fuzz/WebRequestFuzz.swift) and the corpus test: nothing crashes, and what is parsed
/// means what it says. The input: the method on the first line, the path (with its query)
/// on the second, headers (`name: value`) up to an empty line, then the body.
public enum RequestProperties {
  /// The first property `bytes` breaks, nil when all hold.
  public static func broken(_ bytes: Data) -> String? {
    let text = String(decoding: bytes, as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard lines.count >= 2 else { return nil }
    let (method, target) = (lines[0], lines[1])
    let path = String(target.prefix { $0 != "?" })
    var headers: [(String, String)] = []
    var index = 2
    while index < lines.count, !lines[index].isEmpty {
      let line = lines[index]
      if let colon = line.firstIndex(of: ":") {
        headers.append(
          (
            line[..<colon].lowercased(),
            line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
          ))
      }
      index += 1
    }
    let body = Data(lines.dropFirst(index + 1).joined(separator: "\n").utf8)
    let query =
      target.contains("?")
      ? HTTPRequest.formPairs(Data(target.drop { $0 != "?" }.dropFirst().utf8)) : []
    let request = HTTPRequest(
      method: method, path: path, query: query, headers: headers, body: body)

    switch Route(method: method, path: path) {
    case .table(let name, _) where name.isEmpty || name.contains("/"):
      return "a table route with name \(name)"
    case .row(let name, let key, _):
      if name.isEmpty || name.contains("/") { return "a row route with table \(name)" }
      if RowKey(key.pathComponent) != key { return "a row key that does not round-trip: \(key)" }
    case .logout? where method != "POST":
      return "logout by \(method)"
    default: break
    }
    for (_, value) in request.query {
      if let values = KeyValue.decodeToken(value),
        KeyValue.decodeToken(KeyValue.token(values)) != values
      {
        return "a keyset token that does not round-trip: \(value)"
      }
      if let path = RequestGate.localPath(value), !path.hasPrefix("/") || path.hasPrefix("//") {
        return "a return path off this server: \(path)"
      }
      if let sequence = RequestGate.sequence(value), sequence < 0 {
        return "a negative sequence number from \(value)"
      }
    }
    let gate = RequestGate(port: 4747)
    if gate.check(request) == .allowed {
      let hosts = headers.filter { $0.0 == "host" }.map { $0.1.lowercased() }
      guard hosts.count == 1, gate.hosts.contains(hosts[0]) else {
        return "allowed with Host \(hosts)"
      }
      if let origin = request.header("origin"),
        RequestGate.host(ofOrigin: origin).map(gate.hosts.contains) != true
      {
        return "allowed with Origin \(origin)"
      }
    }
    _ = request.cookies
    _ = HTTPRequest.formPairs(body)
    return nil
  }
}
