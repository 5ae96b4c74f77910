import Foundation
import HearthHTTP
import HearthWeb
import Testing

@Suite struct RouteTests {
  @Test func pagesAndTheirJSONTwins() {
    #expect(Route(method: "GET", path: "/") == .hub(json: false))
    #expect(Route(method: "GET", path: "/hub.json") == .hub(json: true))
    #expect(Route(method: "GET", path: "/feed") == .feed(json: false))
    #expect(Route(method: "GET", path: "/tables.json") == .tables(json: true))
    #expect(Route(method: "GET", path: "/tables/reminders") == .table("reminders", json: false))
    #expect(Route(method: "GET", path: "/tables/reminders.json") == .table("reminders", json: true))
    #expect(
      Route(method: "GET", path: "/tables/reminders/42")
        == .row("reminders", .rowid(42), json: false))
    #expect(
      Route(method: "GET", path: "/tables/reminders/-7.json")
        == .row("reminders", .rowid(-7), json: true))
    #expect(Route(method: "GET", path: "/events") == .events)
    #expect(Route(method: "GET", path: "/static/app.js") == .asset("app.js"))
  }

  @Test func anythingElseIsNoPage() {
    #expect(Route(method: "GET", path: "/static/../etc/passwd") == nil)
    #expect(Route(method: "GET", path: "/static/other.js") == nil)
    #expect(Route(method: "GET", path: "/tables/") == nil)
    #expect(Route(method: "GET", path: "/tables/x/y/z") == nil)
    #expect(Route(method: "GET", path: "/tables/x/abc") == nil)
    #expect(Route(method: "DELETE", path: "/tables/x") == nil)
    #expect(Route(method: "POST", path: "/tables/x") == nil)
    #expect(Route(method: "GET", path: "/logout") == nil)
    #expect(Route(method: "POST", path: "/logout") == .logout)
    #expect(Route(method: "GET", path: "relative") == nil)
  }

  @Test func keysOfTablesWithoutRowidsRoundTrip() {
    let values: [KeyValue] = [
      .integer(Int64.min), .text("naïve 🐦 \"quoted\""), .real(0.1), .null, .blob([0, 255, 7]),
    ]
    let key = RowKey.key(values)
    #expect(RowKey(key.pathComponent) == key)
    #expect(KeyValue.decodeToken(KeyValue.token(values)) == values)
    for bad in ["", "%%%", "WyJ4OjEiXQ", "WzFd", "WyJpOm5vIl0", "WyJiOjEiXQ"] {
      #expect(KeyValue.decodeToken(bad) == nil, "\(bad)")
    }
  }
}

@Suite struct RequestGateTests {
  let gate = RequestGate(port: 4747, extraHosts: ["hearth.example:443"])

  func request(_ headers: [(String, String)]) -> HTTPRequest {
    HTTPRequest(method: "GET", path: "/", headers: headers)
  }

  @Test func theServersOwnHostsPass() {
    for host in [
      "127.0.0.1:4747", "[::1]:4747", "localhost:4747", "LOCALHOST:4747", "hearth.example:443",
    ] {
      #expect(gate.check(request([("host", host)])) == .allowed, "\(host)")
    }
    #expect(
      gate.check(request([("host", "127.0.0.1:4747"), ("origin", "http://localhost:4747")]))
        == .allowed)
  }

  @Test func aForeignHostOrOriginIsRefused() {
    for headers in [
      [("host", "evil.example:4747")],  // DNS rebinding: another name for 127.0.0.1
      [("host", "127.0.0.1:4748")],
      [],
      [("host", "127.0.0.1:4747"), ("host", "evil.example")],
      [("host", "127.0.0.1:4747"), ("origin", "http://evil.example")],
      [("host", "127.0.0.1:4747"), ("origin", "null")],
      [("host", "127.0.0.1:4747"), ("origin", "https://127.0.0.1:4747")],
      [("host", "127.0.0.1:4747"), ("origin", "http://127.0.0.1:4747@evil.example")],
      [("host", "127.0.0.1:4747"), ("sec-fetch-site", "cross-site")],
    ] {
      #expect(gate.check(request(headers)) != .allowed, "\(headers)")
    }
  }

  @Test func aReturnPathStaysOnThisServer() {
    #expect(RequestGate.localPath("/tables/x?sort=a") == "/tables/x?sort=a")
    for bad in ["//evil.example", "/\\evil.example", "http://evil.example", "", "/a b", nil] {
      #expect(RequestGate.localPath(bad) == nil, "\(bad ?? "nil")")
    }
  }

  @Test func sequenceNumbersAreDigitsOnly() {
    #expect(RequestGate.sequence("42") == 42)
    for bad in ["", "-1", "4 2", "1e3", "9999999999999999999", "0x10", nil] {
      #expect(RequestGate.sequence(bad) == nil, "\(bad ?? "nil")")
    }
  }

  @Test func cookiesAndForms() {
    let request = HTTPRequest(
      method: "GET", path: "/",
      headers: [("cookie", "a=1; hearth_web=\"abc\"; =x; broken"), ("cookie", "a=2; b=3")])
    #expect(request.cookies == ["a": "1", "hearth_web": "abc", "b": "3"])
    let form = HTTPRequest.formPairs(Data("token=a%2Bb+c&next=%2Ftables&bad=%zz&=x".utf8))
    #expect(form.map(\.0) == ["token", "next"])
    #expect(form.map(\.1) == ["a+b c", "/tables"])
    #expect(HTTPRequest.percentDecoded("%C3%A9") == "é")
    #expect(HTTPRequest.percentDecoded("%C3") == nil)
    #expect(HTTPRequest.percentDecoded("%4") == nil)
  }
}

@Suite struct HTMLTests {
  @Test func valuesAreEscapedAndMarkupIsSaidSo() {
    let title = "<script>alert('x')</script> & \"more\""
    let html: HTML = "<td title=\"\(title)\">\(title)</td>\(html: HTML(raw: "<b>kept</b>"))"
    #expect(
      html.text
        == "<td title=\"&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;more&quot;\">"
        + "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;more&quot;</td><b>kept</b>")
    #expect(HTML.urlComponent("a b/é?&") == "a%20b%2F%C3%A9%3F%26")
  }
}

@Suite struct WebAuthTests {
  @Test func theTokenIsKeptPrivateAndTheCookieProvesIt() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("hearth-web-auth-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("web.token").path
    let auth = try WebAuth.load(from: path)
    #expect(auth.token.count == 64)
    let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    #expect(mode == 0o600)
    // The same token after a restart: a browser's cookie still holds.
    #expect(try WebAuth.load(from: path).token == auth.token)
    #expect(auth.isToken(auth.token))
    #expect(!auth.isToken(String(auth.token.dropLast()) + "x"))
    let cookie = String(auth.loginCookie.split(separator: ";")[0])
    #expect(cookie.contains("HttpOnly") == false && auth.loginCookie.contains("HttpOnly"))
    #expect(auth.loginCookie.contains("SameSite=Strict"))
    #expect(!cookie.contains(auth.token), "the cookie is not the token")
    let loggedIn = HTTPRequest(method: "GET", path: "/", headers: [("cookie", cookie)])
    #expect(auth.isLoggedIn(loggedIn))
    let other = WebAuth(token: String(repeating: "0", count: 64))
    #expect(!other.isLoggedIn(loggedIn))
    #expect(!auth.isLoggedIn(HTTPRequest(method: "GET", path: "/")))
  }
}

/// The fuzzer's corpus (Fuzz/corpus/web-request), replayed in every test run: every input
/// keeps `RequestProperties`.
@Suite struct WebRequestCorpusTests {
  @Test func everyInputOfTheCorpusKeepsTheProperties() throws {
    let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fuzz/corpus/web-request")
    let files = try FileManager.default.contentsOfDirectory(atPath: corpus.path)
    #expect(files.count >= 5)
    for file in files {
      let data = try Data(contentsOf: corpus.appendingPathComponent(file))
      #expect(RequestProperties.broken(data) == nil, "\(file)")
    }
    // A plain request to the server's own host keeps them too.
    #expect(
      RequestProperties.broken(Data("GET\n/\nhost: 127.0.0.1:4747\n\n".utf8)) == nil)
  }
}
