import Foundation
import HearthHTTP
import HearthSQLite
import HearthSupport
import HearthWire

/// The pages, rendered on the server as plain HTML (every value escaped by `HTML`); the
/// script (`Assets`) keeps them live.
enum Pages {
  static let htmlType = "text/html; charset=utf-8"

  /// A page: the navigation, the live indicator, the content. `data` becomes `data-*`
  /// attributes of the body, which the script reads (the page's kind, its sequence number).
  static func layout(title: String, page: String, data: [(String, String)] = [], _ content: HTML)
    -> HTML
  {
    let attributes = ([("page", page)] + data).map { name, value in
      HTML(" data-\(name)=\"\(value)\"")
    }
    return """
      <!doctype html>
      <html lang="en"><head><meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>\(title) · Hearth</title>
      <link rel="stylesheet" href="/static/app.css">
      <script src="/static/app.js" defer></script>
      </head><body\(html: attributes)>
      <header><nav><a class="brand" href="/">Hearth</a> <a href="/">Hub</a> <a href="/feed">Feed</a> <a href="/tables">Tables</a></nav>
      <span id="live" class="live" title="live updates">connecting…</span></header>
      <main>
      \(html: content)
      </main></body></html>
      """
  }

  static func login(next: String, failed: Bool) -> HTML {
    layout(
      title: "Log in", page: "login",
      """
      <h1>Log in</h1>
      <p>Open the link <code>hearth-web</code> printed when it started (<code>hearth-web --url</code> prints it again), or paste its token here.</p>
      \(html: failed ? "<p class=\"error\">That is not the token.</p>" : "")
      <form method="post" action="/login">
      <input type="hidden" name="next" value="\(next)">
      <label>Token <input name="token" type="password" autocomplete="off" size="70" autofocus></label>
      <button type="submit">Log in</button>
      </form>
      """)
  }

  // MARK: - The hub

  static func hub(_ hub: HubSnapshot) -> HTML {
    var status: [HTML] = []
    func item(_ name: String, _ value: HTML, id: String? = nil) {
      status.append(
        "<tr><th>\(name)</th><td\(html: HTML(raw: id.map { " id=\"\($0)\"" } ?? ""))>\(html: value)</td></tr>"
      )
    }
    if let welcome = hub.welcome {
      item("hub", "<span class=\"up\">up</span> (instance \(String(welcome.hub.prefix(8))))")
    } else {
      item("hub", "<span class=\"down\">down</span>: no answer from the hub")
    }
    item("sequence", "\(hub.lastSequence)", id: "seq")
    item(
      "commits",
      "\(rate(hub.commitsLast10s, 10)) a second (last 10 s), \(rate(hub.commitsLastMinute, 60)) (last minute)",
      id: "rate")
    item("database", "\(hub.databasePath) (\(binarySize(hub.databaseBytes + hub.walFileBytes)))")
    if let wal = hub.welcome?.wal {
      let share = wal.limit > 0 ? min(100, wal.bytes * 100 / wal.limit) : 0
      item(
        "WAL",
        """
        <meter min="0" max="\(wal.limit)" value="\(wal.bytes)"></meter> \(binarySize(wal.bytes)) of \(binarySize(wal.limit)) (\(share) %), peak \(binarySize(wal.peakBytes)); \(wal.restarts) restarts\(wal.incompleteRestarts > 0 ? ", \(wal.incompleteRestarts) held off by readers" : "")
        """)
      if let checkpoint = wal.checkpoint {
        item(
          "checkpoint",
          "\(checkpoint.mode), \(checkpoint.complete ? "complete" : "held off by a reader"), \(checkpoint.checkpointedFrames) of \(checkpoint.walFrames) frames, \(String(format: "%.1f", checkpoint.milliseconds)) ms"
        )
      }
    }
    if let connections = hub.welcome?.connections {
      item(
        "connections",
        "\(connections.streamConnections) of \(connections.maxStreamConnections) on the request stream, \(connections.waitingRequests) requests waiting, \(connections.openFiles) files open"
      )
    }
    for lock in hub.welcome?.locks ?? [] {
      item(
        "LOCKED",
        "<span class=\"down\">\(lock.pid.map { "pid \($0)" } ?? "a process") (\(lock.command ?? "?")) holds a \(lock.mode) lock on SQLite's \(lock.lock) lock</span>"
      )
    }
    let plugins = hub.plugins.map { plugin -> HTML in
      let tables = plugin.tables.map { name -> HTML in
        "<a href=\"/tables/\(HTML.urlComponent(name))\">\(name)</a>"
      }
      let behind = plugin.cursor.map { "\(max(0, hub.lastSequence - $0)) behind" } ?? ""
      return """
        <tr data-plugin="\(plugin.name)"><td>\(plugin.name)</td><td>\(plugin.version ?? "not registered")</td><td>\(html: joined(tables, ", "))</td><td>\(plugin.cursor.map(String.init) ?? "–") \(behind)</td><td class="key-\(plugin.key)">\(plugin.key)</td></tr>
        """
    }
    var sync: HTML = "<p>Not set up (<code>hearth sync account …</code>).</p>"
    if let state = hub.sync {
      var notes: [String] = []
      if state.paused { notes.append("paused (hearth sync resume)") }
      if let skew = state.clockSkew, abs(skew) > 5_000 {
        notes.append(
          "this clock is \(abs(skew) / 1000) s \(skew < 0 ? "behind" : "ahead of") the server's")
      }
      if let error = state.lastError { notes.append("last error: \(error)") }
      let now = Int64(Date().timeIntervalSince1970 * 1000)
      let zones = state.zones.map { zone -> HTML in
        let lag = zone.oldestPending.map { "\(max(0, now - $0) / 1000) s" } ?? "–"
        return
          "<tr><td>\(zone.zone)</td><td>\(zone.title ?? "")</td><td>\(zone.role ?? (zone.zone == (state.zone ?? "default") ? "own" : ""))</td><td>\(zone.pending)</td><td>\(lag)</td></tr>"
      }
      sync = """
        <p>Account \(state.account ?? "–"), zone \(state.zone ?? "default")\(notes.isEmpty ? "" : "; " + notes.joined(separator: "; ")).</p>
        <table><thead><tr><th>zone</th><th>share</th><th>role</th><th>rows to push</th><th>oldest change waiting</th></tr></thead>
        <tbody>\(html: zones)</tbody></table>
        """
    }
    return layout(
      title: "Hub", page: "hub", data: [("seq", "\(hub.lastSequence)")],
      """
      <h1>Hub</h1>
      <table class="facts"><tbody>\(html: status)</tbody></table>
      <h2>Plugins</h2>
      <table><thead><tr><th>plugin</th><th>version</th><th>tables</th><th>cursor</th><th>key</th></tr></thead>
      <tbody>\(html: plugins)</tbody></table>
      <h2>Sync</h2>
      \(html: sync)
      <h2>Latest commits</h2>
      <ol id="feed" class="feed"></ol>
      <p><a href="/hub.json">JSON</a></p>
      """)
  }

  // MARK: - The feed

  static func feed(_ commits: [[String: Any]], last: Int64, older: Int64?, live: Bool) -> HTML {
    layout(
      title: "Feed", page: live ? "feed" : "feed-history", data: [("seq", "\(last)")],
      """
      <h1>Feed</h1>
      <p>Every commit, newest first\(live ? ", live" : ""). Sequence \(last).</p>
      <ol id="feed" class="feed">\(html: commits.map(commit))</ol>
      \(html: older.map { HTML("<p><a href=\"/feed?before=\($0)\">Older</a></p>") } ?? "")
      <p><a href="/feed.json">JSON</a></p>
      """)
  }

  static func commit(_ commit: [String: Any]) -> HTML {
    let seq = commit["seq"] as? Int64 ?? 0
    let at = commit["at"] as? Int64 ?? 0
    let tables = (commit["tables"] as? [String: Any] ?? [:]).sorted { $0.key < $1.key }.map {
      name, value -> HTML in
      let entry = value as? [String: Any] ?? [:]
      let counts = ["inserted", "updated", "deleted"].compactMap { kind -> String? in
        let count = entry[kind] as? Int ?? 0
        return count > 0 ? "\(count) \(kind)" : nil
      }.joined(separator: ", ")
      let columns = (entry["columns"] as? [String]).map { " (\($0.joined(separator: ", ")))" } ?? ""
      return
        "<li><a href=\"/tables/\(HTML.urlComponent(name))\">\(name)</a> \(counts)\(columns)</li>"
    }
    return """
      <li data-seq="\(seq)" data-at="\(at)"><span class="seq">#\(seq)</span> <time data-ms="\(at)">\(time(at))</time> <span class="plugin">\(commit["plugin"] as? String ?? "")</span><ul>\(html: tables)</ul></li>
      """
  }

  // MARK: - Tables

  static func tables(_ listed: [(BrowsedTable, Int)]) -> HTML {
    let groups = Dictionary(grouping: listed) { $0.0.owner ?? "(no plugin)" }
      .sorted { ($0.key == "hub" ? "~" : $0.key) < ($1.key == "hub" ? "~" : $1.key) }
    let sections = groups.map { owner, tables -> HTML in
      let rows = tables.map { table, count -> HTML in
        "<tr><td><a href=\"/tables/\(HTML.urlComponent(table.name))\">\(table.name)</a></td><td class=\"n\">\(count)</td><td>\(table.columns.joined(separator: ", "))</td><td>\(table.searchable ? "full text" : "")</td></tr>"
      }
      return """
        <h2>\(owner)</h2>
        <table><thead><tr><th>table</th><th>rows</th><th>columns</th><th></th></tr></thead><tbody>\(html: rows)</tbody></table>
        """
    }
    return layout(
      title: "Tables", page: "tables",
      "<h1>Tables</h1>\(html: sections)<p><a href=\"/tables.json\">JSON</a></p>")
  }

  static func table(
    _ table: BrowsedTable, page: TableBrowser.Page, order: TableBrowser.Order, search: String?,
    seq: Int64, query: [(String, String)]
  ) -> HTML {
    let base = "/tables/" + HTML.urlComponent(table.name)
    func link(_ changes: [String: String?]) -> String {
      var arguments: [(String, String)] = []
      var seen = Set<String>()
      for (name, value) in query where name != "after" {
        seen.insert(name)
        if let change = changes[name] {
          if let change { arguments.append((name, change)) }
        } else {
          arguments.append((name, value))
        }
      }
      for (name, value) in changes.sorted(by: { $0.key < $1.key }) where !seen.contains(name) {
        if let value { arguments.append((name, value)) }
      }
      return base + WebApp.queryString(arguments)
    }
    let headers = table.columns.map { column -> HTML in
      let active = order.column == column
      let next = active && !order.descending ? "desc" : "asc"
      let arrow = active ? (order.descending ? " ↓" : " ↑") : ""
      return "<th><a href=\"\(link(["sort": column, "order": next]))\">\(column)\(arrow)</a></th>"
    }
    let rows = page.rows.map { row in Self.row(base: base, key: row.key, values: row.values) }
    let search: HTML =
      table.searchable
      ? """
      <form method="get" action="\(base)" class="search"><input type="search" name="q" value="\(search ?? "")" placeholder="full-text search"> <button>Search</button></form>
      """
      : ""
    let next: HTML =
      page.next.map {
        HTML(
          "<p><a class=\"next\" href=\"\(link(["after": KeyValue.token($0)]))\">Next page</a></p>")
      } ?? ""
    return layout(
      title: table.name, page: "table", data: [("table", table.name), ("seq", "\(seq)")],
      """
      <h1>\(table.name)</h1>
      <p>\(table.owner.map { "Owned by \($0). " } ?? "")\(page.total.map { "\($0) rows." } ?? "")</p>
      \(html: search)
      <table class="rows"><thead><tr><th>key</th>\(html: headers)</tr></thead>
      <tbody id="rows">\(html: rows)</tbody></table>
      \(html: next)
      <p><a href="\(base).json">JSON</a></p>
      """)
  }

  static func row(base: String, key: RowKey, values: [DatabaseValue]) -> HTML {
    let cells = values.map { "<td>\(html: cell($0))</td>" as HTML }
    return
      "<tr data-key=\"\(key.pathComponent)\"><td><a href=\"\(base)/\(key.pathComponent)\">\(label(key))</a></td>\(html: cells)</tr>"
  }

  static func rowPage(
    _ table: BrowsedTable, key: RowKey, values: [DatabaseValue], links: [String: String],
    referrers: [TableBrowser.Referrers]
  ) -> HTML {
    let fields = zip(table.columns, values).map { column, value -> HTML in
      let shown: HTML =
        links[column].map { link -> HTML in "<a href=\"\(link)\">\(html: full(value))</a>" }
        ?? full(value)
      return "<tr><th>\(column)</th><td>\(html: shown)</td></tr>"
    }
    let pointing = referrers.map { group -> HTML in
      let base = "/tables/" + HTML.urlComponent(group.table.name)
      let headers = group.table.columns.map { "<th>\($0)</th>" as HTML }
      return """
        <h3><a href="\(base)">\(group.table.name)</a>.\(group.column)</h3>
        <table class="rows"><thead><tr><th>key</th>\(html: headers)</tr></thead><tbody>\(html: group.rows.map { Self.row(base: base, key: $0.key, values: $0.values) })</tbody></table>
        """
    }
    let base = "/tables/" + HTML.urlComponent(table.name)
    return layout(
      title: "\(table.name) \(label(key))", page: "row", data: [("table", table.name)],
      """
      <h1><a href="\(base)">\(table.name)</a> \(label(key))</h1>
      <table class="facts"><tbody>\(html: fields)</tbody></table>
      <h2>Rows that point here</h2>
      \(html: pointing.isEmpty ? "<p>None.</p>" : joined(pointing, ""))
      <p><a href="\(base)/\(key.pathComponent).json">JSON</a></p>
      """)
  }

  // MARK: - Values

  static func label(_ key: RowKey) -> String {
    switch key {
    case .rowid(let rowid): "\(rowid)"
    case .key(let values): values.map(shownKey).joined(separator: ", ")
    }
  }

  static func shownKey(_ value: KeyValue) -> String {
    switch value {
    case .null: "NULL"
    case .integer(let number): "\(number)"
    case .real(let number): "\(number)"
    case .text(let text): String(text.prefix(40))
    case .blob(let bytes): "blob \(bytes.count) bytes"
    }
  }

  /// A value in a table's cell: long text cut at 120 characters.
  static func cell(_ value: DatabaseValue) -> HTML {
    if case .text(let text) = value.storage, text.count > 120 {
      return "\(String(text.prefix(119)))…"
    }
    return full(value)
  }

  static func full(_ value: DatabaseValue) -> HTML {
    switch value.storage {
    case .null, .invalid: "<span class=\"null\">NULL</span>"  // a row's values are never invalid
    case .integer(let number): "\(number)"
    case .double(let number): "\(String(number))"
    case .text(let text): "\(text)"
    case .blob(let data): "<span class=\"blob\">blob, \(data.count) bytes</span>"
    }
  }

  static func joined(_ parts: [HTML], _ separator: String) -> HTML {
    HTML(raw: parts.map(\.text).joined(separator: HTML.escape(separator)))
  }

  static func rate(_ count: Int, _ seconds: Int) -> String {
    String(format: "%.1f", Double(count) / Double(seconds))
  }

  static func time(_ milliseconds: Int64) -> String {
    let formatter = DateFormatter()
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
    return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
  }
}
