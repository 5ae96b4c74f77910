import Foundation
import HearthHTTP
import HearthPlugin
import HearthSQLite
import HearthSupport
import HearthTransport
import HearthWire
import Synchronization

/// The headers of every response: nothing on the page runs or loads but this server's own
/// script and stylesheet, no other site frames it, nothing is cached.
public enum WebHeaders {
  public static let always: [(String, String)] = [
    (
      "Content-Security-Policy",
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        + "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    ),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    // Not no-referrer: under it a browser sends `Origin: null` with a form's POST, and the
    // login's Origin check could not tell this server's own form from a foreign one.
    ("Referrer-Policy", "same-origin"),
    ("Cache-Control", "no-store"),
  ]
}

/// hearth-web's pages: the gate, the login, and each page with its JSON twin and its live
/// stream.
public final class WebApp: @unchecked Sendable {
  // Safe: every stored property is immutable after `init` or is itself thread-safe
  // (`ReaderPool`, `HubGreeter`, the atomic flag, the locked schema cache; `BusContext` is
  // ZeroMQ's context, which is thread-safe).
  public let paths: HubPaths
  public let auth: WebAuth
  let gate: RequestGate
  let pool: ReaderPool
  let greeter: HubGreeter
  let busContext = BusContext()
  let log: Logger
  private let stopping = Atomic<Bool>(false)
  private let schema = Locked<(version: Int64, tables: [BrowsedTable])?>(nil)

  public init(
    paths: HubPaths, auth: WebAuth, gate: RequestGate, transport: HubTransport,
    queryTimeLimit: Duration, log: Logger
  ) {
    self.paths = paths
    self.auth = auth
    self.gate = gate
    self.log = log
    pool = ReaderPool(path: paths.databasePath, timeLimit: queryTimeLimit)
    greeter = HubGreeter(transport: transport)
  }

  var isStopping: Bool { stopping.load(ordering: .relaxed) }

  /// Ends every live stream within a second (before the server waits for their threads).
  public func stop() { stopping.store(true, ordering: .relaxed) }

  public func handle(_ request: HTTPRequest) -> HTTPResponse {
    if case .refused(let reason) = gate.check(request) {
      return .text(403, "refused: \(reason)\n")
    }
    guard let route = Route(method: request.method, path: request.path) else {
      return .text(404, "no such page\n")
    }
    if case .asset(let name) = route { return Assets.response(name) }
    if route == .login { return login(request) }
    if route == .logout {
      return .redirect("/login", headers: [("Set-Cookie", WebAuth.logoutCookie)])
    }
    guard auth.isLoggedIn(request) else {
      switch route {
      case .hub(false), .feed(false), .tables(false), .table(_, false), .row(_, _, false):
        let back = request.path + Self.queryString(request.query)
        return .redirect("/login?next=" + HTML.urlComponent(back))
      default:
        return .text(401, "log in first: open the link hearth-web printed (hearth-web --url)\n")
      }
    }
    do {
      switch route {
      case .hub(let json): return try hubPage(json: json)
      case .feed(let json): return try feedPage(request, json: json)
      case .tables(let json): return try tablesPage(json: json)
      case .table(let name, let json): return try tablePage(name, request, json: json)
      case .row(let name, let key, let json): return try rowPage(name, key, json: json)
      case .events: return try events(request)
      case .login, .logout, .asset: return .text(404, "no such page\n")
      }
    } catch let error as BrowseError {
      let status =
        if case .noSuchTable = error { 404 } else if case .noSuchRow = error { 404 } else { 400 }
      return .text(status, "\(error)\n")
    } catch let error as DatabaseError where error.resultCode == ResultCode.SQLITE_INTERRUPT {
      return .text(503, "the query took longer than its limit\n")
    } catch {
      log.warning("\(request.method) \(request.path): \(error)")
      return .text(500, "could not read the hub's database: \(error)\n")
    }
  }

  // MARK: - Logging in

  private func login(_ request: HTTPRequest) -> HTTPResponse {
    let form = request.method == "POST" ? HTTPRequest.formPairs(request.body) : request.query
    let next = RequestGate.localPath(form.first { $0.0 == "next" }?.1) ?? "/"
    if let token = form.first(where: { $0.0 == "token" })?.1 {
      guard auth.isToken(token) else {
        return .text(403, Pages.login(next: next, failed: true).text, type: Pages.htmlType)
      }
      return .redirect(next, headers: [("Set-Cookie", auth.loginCookie)])
    }
    return .text(200, Pages.login(next: next, failed: false).text, type: Pages.htmlType)
  }

  // MARK: - Pages

  private func hubPage(json: Bool) throws -> HTTPResponse {
    let snapshot = try HubSnapshot.read(welcome: greeter.hello(), paths: paths, pool: pool)
    if json { return try Self.json(snapshot.json) }
    return .text(200, Pages.hub(snapshot).text, type: Pages.htmlType)
  }

  static let feedPageSize = 100

  private func feedPage(_ request: HTTPRequest, json: Bool) throws -> HTTPResponse {
    let before = RequestGate.sequence(request.argument("before"))
    let (commits, last) = try pool.read { db -> ([[String: Any]], Int64) in
      _ = try tables(db)  // the schema, for isShown
      let rows = try Row.fetchAll(
        db,
        sql: "SELECT event FROM \(HubTables.commits) WHERE seq < ? ORDER BY seq DESC LIMIT ?",
        arguments: [before ?? Int64.max, Self.feedPageSize])
      let commits = try rows.compactMap { row -> [String: Any]? in
        let text: String = try row["event"]
        return (try? WireCoding.decode(CommitEvent.self, from: Data(text.utf8)))
          .map { EventStream.summary($0, shown: isShown) }
      }
      return (commits, try HubTables.lastSequence(db))
    }
    let older = commits.count == Self.feedPageSize ? commits.last?["seq"] as? Int64 : nil
    if json {
      return try Self.json([
        "seq": last, "commits": commits, "older": older.map { $0 as Any } ?? NSNull(),
      ])
    }
    return .text(
      200, Pages.feed(commits, last: last, older: older, live: before == nil).text,
      type: Pages.htmlType)
  }

  /// The tables, read again when the schema changed (its version in `PRAGMA schema_version`).
  func tables(_ db: Database) throws -> [BrowsedTable] {
    let version = try Int64.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
    if let cached = schema.withLock({ $0 }), cached.version == version { return cached.tables }
    let tables = try TableBrowser.tables(db)
    schema.withLock { $0 = (version, tables) }
    return tables
  }

  /// Whether a table changed by a commit is shown in the feed: all but the shadow tables of
  /// an FTS5 index (`reminderTexts_data`…), whose changes are the index's.
  func isShown(_ name: String) -> Bool {
    guard let underscore = name.lastIndex(of: "_"),
      TableBrowser.shadowSuffixes.contains(String(name[underscore...]).lowercased())
    else { return true }
    let index = name[..<underscore]
    let tables = schema.withLock { $0?.tables } ?? []
    return !tables.contains {
      $0.isFullText && $0.name.caseInsensitiveCompare(index) == .orderedSame
    }
  }

  func table(named name: String, _ db: Database) throws -> BrowsedTable {
    guard let table = try tables(db).first(where: { $0.name == name }) else {
      throw BrowseError.noSuchTable(name)
    }
    return table
  }

  private func tablesPage(json: Bool) throws -> HTTPResponse {
    let listed = try pool.read { db in
      try tables(db).map { table in
        (
          table,
          try Int.fetchOne(db, sql: "SELECT count(*) FROM \(TableBrowser.quoted(table.name))") ?? 0
        )
      }
    }
    if json {
      return try Self.json([
        "tables": listed.map { table, count -> [String: Any] in
          [
            "name": table.name, "owner": table.owner ?? NSNull(), "rows": count,
            "columns": table.columns, "searchable": table.searchable,
          ]
        }
      ])
    }
    return .text(200, Pages.tables(listed).text, type: Pages.htmlType)
  }

  private func tablePage(_ name: String, _ request: HTTPRequest, json: Bool) throws -> HTTPResponse
  {
    let order = TableBrowser.Order(
      column: request.argument("sort"), descending: request.argument("order") != "asc")
    let after = try request.argument("after").map { text -> [KeyValue] in
      guard let values = KeyValue.decodeToken(text) else { throw BrowseError.badPosition }
      return values
    }
    let search = request.argument("q").map { String($0.prefix(200)) }
    let limit = request.argument("limit").flatMap(Int.init) ?? 100
    let (table, page, last) = try pool.read { db in
      let found = try self.table(named: name, db)
      return (
        found,
        try TableBrowser.page(
          of: found, order: order, after: after, search: search, limit: limit, db),
        try HubTables.lastSequence(db)
      )
    }
    if json {
      let rows: [[String: Any]] = page.rows.map { row in
        ["key": row.key.pathComponent, "values": row.values.map(Self.jsonValue)]
      }
      var object: [String: Any] = ["table": table.name, "columns": table.columns, "seq": last]
      object["rows"] = rows
      object["total"] = page.total.map { $0 as Any } ?? NSNull()
      object["next"] = page.next.map { KeyValue.token($0) as Any } ?? NSNull()
      return try Self.json(object)
    }
    return .text(
      200,
      Pages.table(table, page: page, order: order, search: search, seq: last, query: request.query)
        .text, type: Pages.htmlType)
  }

  private func rowPage(_ name: String, _ key: RowKey, json: Bool) throws -> HTTPResponse {
    let (table, values, referrers, links) = try pool.read { db in
      let table = try self.table(named: name, db)
      guard let values = try TableBrowser.row(key, of: table, db) else {
        throw BrowseError.noSuchRow
      }
      let all = try tables(db)
      let referrers = try TableBrowser.referrers(of: values, in: table, among: all, db)
      var links: [String: String] = [:]
      for foreignKey in table.foreignKeys {
        guard let index = table.columns.firstIndex(of: foreignKey.from),
          let parent = all.first(where: {
            $0.name.caseInsensitiveCompare(foreignKey.table) == .orderedSame
          }),
          let parentKey = try TableBrowser.key(
            ofRowWhere: foreignKey.to, is: values[index], in: parent, db)
        else { continue }
        links[foreignKey.from] =
          "/tables/\(HTML.urlComponent(parent.name))/\(parentKey.pathComponent)"
      }
      return (table, values, referrers, links)
    }
    if json {
      let row: [String: Any] = Dictionary(
        uniqueKeysWithValues: zip(table.columns, values.map(Self.jsonValue)))
      let pointing: [[String: Any]] = referrers.map { group in
        let rows: [[String: Any]] = group.rows.map { row in
          ["key": row.key.pathComponent, "values": row.values.map(Self.jsonValue)]
        }
        return ["table": group.table.name, "column": group.column, "rows": rows]
      }
      return try Self.json(
        ["table": table.name, "key": key.pathComponent, "row": row, "referrers": pointing])
    }
    return .text(
      200, Pages.rowPage(table, key: key, values: values, links: links, referrers: referrers).text,
      type: Pages.htmlType)
  }

  /// `GET /events?since=SEQ[&table=NAME]`: the live stream; `Last-Event-ID` (a reconnect)
  /// wins over `since`.
  private func events(_ request: HTTPRequest) throws -> HTTPResponse {
    let resume =
      RequestGate.sequence(request.header("last-event-id"))
      ?? RequestGate.sequence(request.argument("since"))
    let table = try request.argument("table").map { name in
      try pool.read { db in try self.table(named: name, db) }
    }
    let start = try resume ?? pool.read { db in try HubTables.lastSequence(db) }
    return .stream(
      status: 200,
      headers: [("Content-Type", "text/event-stream; charset=utf-8"), ("X-Accel-Buffering", "no")],
      producer: EventStream(app: self, after: start, table: table))
  }

  // MARK: - Values

  /// A column's value in JSON: numbers and text as they are, a blob as `{"blob": bytes}`
  /// with its size and base64.
  static func jsonValue(_ value: DatabaseValue) -> Any {
    switch value.storage {
    case .null, .invalid: NSNull()  // a row's values are never invalid
    case .integer(let number): number
    case .double(let number): number.isFinite ? number : String(number)
    case .text(let text): text
    case .blob(let data): ["blob": data.count, "base64": data.base64EncodedString()]
    }
  }

  static func json(_ object: [String: Any]) throws -> HTTPResponse {
    .body(
      status: 200, headers: [("Content-Type", "application/json")],
      body: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
  }

  static func queryString(_ query: [(String, String)]) -> String {
    query.isEmpty
      ? ""
      : "?"
        + query.map { "\(HTML.urlComponent($0.0))=\(HTML.urlComponent($0.1))" }
        .joined(separator: "&")
  }
}
