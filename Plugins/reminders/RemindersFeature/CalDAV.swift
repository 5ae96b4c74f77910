import CSodium
import Foundation
import HearthData
import HearthHTTP
import HearthPlugin
import HearthSupport
import HearthWire

// The reminders as CalDAV (RFC 4791) calendars of tasks, served by the reminders feature
// itself with its own key: every write is one of its actions through the hub, so its rules
// hold whoever writes. Lists are calendar collections, reminders VTODO resources. Sync
// tokens are the hub's feed sequence numbers (RFC 6578): what changed since one is read from
// the feed, so a token never breaks while the feed holds it. See docs/caldav.md.

/// What a client sent of a reminder that the feature does not model (its VALARMs, its X-
/// properties, its UID when it is not the reminder's id), and the name it gave the resource.
@Table("reminderCalendarData")
struct ReminderCalendarData: Codable, Hashable, Identifiable {
  @Column(primaryKey: true)
  var reminderID: Reminder.ID
  var href: String
  var ical: String
  var id: Reminder.ID { reminderID }
}

/// An app password of a CalDAV client: its name and the password's Argon2id hash.
@Table("caldavPasswords")
struct CalDAVPassword: Codable, Hashable, Identifiable {
  @Column(primaryKey: true)
  var name: String
  var hash: String
  var createdAt: Date
  var id: String { name }
}

let calDAVMigration = """
  CREATE TABLE "reminderCalendarData" (
    "reminderID" TEXT PRIMARY KEY NOT NULL REFERENCES "reminders"("id") ON DELETE CASCADE,
    "href" TEXT NOT NULL UNIQUE,
    "ical" TEXT NOT NULL
  ) STRICT;
  CREATE TABLE "caldavPasswords" (
    "name" TEXT PRIMARY KEY NOT NULL CHECK (length("name") BETWEEN 1 AND 100),
    "hash" TEXT NOT NULL,
    "createdAt" TEXT NOT NULL
  ) STRICT;
  """

/// One reminder as a CalDAV resource.
struct CalendarEntry {
  var row: ReminderRow
  var stored: ReminderCalendarData?
  var href: String { stored?.href ?? row.reminder.id.uuidString.lowercased() + ".ics" }

  var task: CalendarTask {
    let reminder = row.reminder
    return CalendarTask(
      uid: stored.flatMap { try? CalendarData.parse($0.ical).uid }.flatMap { $0.isEmpty ? nil : $0 }
        ?? reminder.id.uuidString.lowercased(),
      title: reminder.title, notes: reminder.notes, due: reminder.dueDate,
      completed: reminder.status != .incomplete, priority: reminder.priority,
      flagged: reminder.isFlagged, tags: row.tags)
  }

  /// The resource's text: deterministic for one state of the row, so that its ETag (a hash
  /// of the state) names exactly one text.
  var ical: String {
    let reminder = row.reminder
    return CalendarData.render(
      task, stored: stored?.ical, completedAt: reminder.completingAt,
      stamp: reminder.completingAt ?? reminder.dueDate ?? Date(timeIntervalSince1970: 946_684_800))
  }

  /// A hash of everything the text is made from (BLAKE2b, 128 bits), without rendering it.
  var etag: String {
    let reminder = row.reminder
    let state = [
      reminder.id.uuidString, reminder.title, reminder.notes,
      reminder.dueDate.map { "\($0.timeIntervalSince1970)" } ?? "-", "\(reminder.isFlagged)",
      "\(reminder.priority?.rawValue ?? 0)", "\(reminder.status.rawValue)",
      reminder.completingAt.map { "\($0.timeIntervalSince1970)" } ?? "-",
      row.tags.joined(separator: ","), stored?.ical ?? "", stored?.href ?? "",
    ].joined(separator: "\u{1}")
    var out = [UInt8](repeating: 0, count: 16)
    let bytes = Array(state.utf8)
    _ = crypto_generichash(&out, out.count, bytes, UInt64(bytes.count), nil, 0)
    return "\"" + out.map { String(format: "%02x", $0) }.joined() + "\""
  }
}

/// The CalDAV server: `handle` answers one request, on any of the HTTP server's threads.
final class CalDAVServer: @unchecked Sendable {
  // Safe: `database` is a DatabaseWriter (its reads and writes are each safe from any
  // thread); `verified` is a Locked; the rest is immutable.
  let database: any DatabaseWriter
  let log = Logger(label: "reminders.caldav")
  /// Authorization header digests already checked, each with the name and hash it matched.
  private let verified = Locked<[String: (name: String, hash: String)]>([:])
  static let prefix = "/dav"
  static let tokenPrefix = "http://hearth.invalid/sync/"

  init(database: any DatabaseWriter) {
    self.database = database
  }

  func handle(_ request: HTTPRequest) -> HTTPResponse {
    if request.header("origin") != nil {
      return .text(403, "CalDAV is not for web pages\n")
    }
    if request.path == "/.well-known/caldav" || request.path == "/" {
      return .body(status: 301, headers: [("Location", Self.prefix + "/")], body: Data())
    }
    guard authorized(request) else {
      return .text(
        401, "an app password is needed: hearth-reminders caldav-password add NAME\n",
        headers: [("WWW-Authenticate", "Basic realm=\"Hearth reminders\", charset=\"UTF-8\"")])
    }
    guard let resource = DAVResource(path: request.path) else {
      return .text(404, "no such resource\n")
    }
    do {
      switch request.method {
      case "OPTIONS":
        return .body(
          status: 200,
          headers: [
            ("DAV", "1, 2, 3, calendar-access"),
            ("Allow", "OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND, PROPPATCH, REPORT, MKCALENDAR"),
          ], body: Data())
      case "PROPFIND": return try propfind(resource, request)
      case "REPORT": return try report(resource, request)
      case "GET", "HEAD": return try get(resource, head: request.method == "HEAD")
      case "PUT": return try put(resource, request)
      case "DELETE": return try delete(resource, request)
      case "MKCALENDAR", "MKCOL": return try makeCalendar(resource, request)
      case "PROPPATCH": return try proppatch(resource, request)
      default: return .text(405, "\(request.method) is not supported\n")
      }
    } catch let error as CalendarDataError {
      return .text(
        400, "\(error)\n", type: "text/plain; charset=utf-8")
    } catch let error as DAVError {
      return error.response
    } catch {
      log.warning("\(request.method) \(request.path): \(error)")
      return .text(500, "\(error)\n")
    }
  }

  // MARK: - Authentication

  /// HTTP Basic with an app password (`hearth-reminders caldav-password add NAME`). A
  /// header once verified (Argon2id is slow on purpose) is remembered by its digest, and
  /// trusted again while that password's hash is still the one stored.
  private func authorized(_ request: HTTPRequest) -> Bool {
    guard let header = request.header("authorization"), header.hasPrefix("Basic "),
      let decoded = Data(base64Encoded: String(header.dropFirst(6))),
      let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
    else { return false }
    let name = String(text[..<colon])
    let password = String(text[text.index(after: colon)...])
    guard let stored = try? database.read({ db in try CalDAVPassword.find(name).fetchOne(db) })
    else { return false }
    let digest = Self.digest(header)
    if let known = verified.withLock({ $0[digest] }), known.name == name,
      known.hash == stored.hash
    {
      return true
    }
    guard AppPassword.verify(password, hash: stored.hash) else { return false }
    verified.withLock { $0[digest] = (name, stored.hash) }
    return true
  }

  private static func digest(_ text: String) -> String {
    var out = [UInt8](repeating: 0, count: 32)
    let bytes = Array(text.utf8)
    _ = crypto_generichash(&out, out.count, bytes, UInt64(bytes.count), nil, 0)
    return out.map { String(format: "%02x", $0) }.joined()
  }

  // MARK: - Reading

  func list(_ segment: String, _ db: Database) throws -> RemindersList? {
    try RemindersList.find(DAVResource.listID(segment)).fetchOne(db)
  }

  /// The reminders of a list as resources.
  /// A list's every task in three queries, each scoped by the list (no IN of every id).
  func entries(of listID: RemindersList.ID, _ db: Database) throws -> [CalendarEntry] {
    let reminders = try Reminder.where { $0.remindersListID.eq(listID) }
      .order { ($0.position, $0.rowid) }.fetchAll(db)
    let pairs = try ReminderTag.join(Reminder.all) { $0.reminderID.eq($1.id) }
      .where { $1.remindersListID.eq(listID) }
      .order { t, _ in t.tagID }
      .select { t, _ in (t.reminderID, t.tagID) }.fetchAll(db)
    var tags: [Reminder.ID: [String]] = [:]
    for (id, tag) in pairs { tags[id, default: []].append(tag) }
    let data = try ReminderCalendarData.join(Reminder.all) { $0.reminderID.eq($1.id) }
      .where { $1.remindersListID.eq(listID) }
      .select { d, _ in d }.fetchAll(db)
    var stored: [Reminder.ID: ReminderCalendarData] = [:]
    for item in data { stored[item.reminderID] = item }
    return reminders.map { reminder in
      CalendarEntry(
        row: ReminderRow(reminder: reminder, listTitle: "", tags: tags[reminder.id] ?? []),
        stored: stored[reminder.id])
    }
  }

  func attach(_ rows: [ReminderRow], _ db: Database) throws -> [CalendarEntry] {
    var stored: [Reminder.ID: ReminderCalendarData] = [:]
    if !rows.isEmpty {
      for data in try ReminderCalendarData.where({ $0.reminderID.in(rows.map(\.reminder.id)) })
        .fetchAll(db)
      {
        stored[data.reminderID] = data
      }
    }
    return rows.map { CalendarEntry(row: $0, stored: stored[$0.reminder.id]) }
  }

  /// The reminder a resource name names in a list: by the name a client gave it, or by its
  /// id.
  func entry(named name: String, in listID: RemindersList.ID, _ db: Database) throws
    -> CalendarEntry?
  {
    var id = try ReminderCalendarData.where { $0.href.eq(name) }.fetchOne(db)?.reminderID
    if id == nil, name.hasSuffix(".ics"), let uuid = UUID(uuidString: String(name.dropLast(4))),
      try ReminderCalendarData.find(uuid).fetchOne(db) == nil
    {
      id = uuid
    }
    guard let id else { return nil }
    let rows = try Queries.rows(
      db, Reminder.where { $0.id.eq(id) && $0.remindersListID.eq(listID) })
    return try attach(rows, db).first
  }

  // MARK: - PROPFIND

  private func propfind(_ resource: DAVResource, _ request: HTTPRequest) throws -> HTTPResponse {
    let body = DAVElement.parse(request.body)
    if !request.body.isEmpty, body == nil { throw DAVError.badRequest("the body is not XML") }
    let requested = body?.child(DAV.dav, "prop")?.children.map { ($0.namespace, $0.name) }
    let wantsData = requested?.contains { $0.0 == DAV.caldav && $0.1 == "calendar-data" } ?? false
    let depth = request.header("depth") ?? "infinity"
    let responses: [String] = try database.read { db in
      let seq = try HubTables.lastSequence(db)
      var out: [String] = []
      func add(_ href: String, _ props: [String: String]) {
        out.append(Self.response(href, props, requested: requested))
      }
      switch resource {
      case .root:
        add(Self.prefix + "/", rootProps())
      case .principal:
        add(Self.prefix + "/principal/", principalProps())
      case .home:
        add(Self.prefix + "/calendars/", homeProps())
        if depth != "0" {
          for list in try RemindersList.order(by: \.position).fetchAll(db) {
            add(Self.calendarHref(list.id), calendarProps(list, seq: seq))
          }
        }
      case .calendar(let segment):
        guard let list = try self.list(segment, db) else { throw DAVError.notFound }
        add(Self.calendarHref(segment), calendarProps(list, seq: seq))
        if depth != "0" {
          let base = Self.calendarHref(segment)
          for entry in try entries(of: list.id, db) {
            add(base + entry.href, taskProps(entry, withData: wantsData))
          }
        }
      case .task(let segment, let name):
        guard let list = try self.list(segment, db),
          let entry = try self.entry(named: name, in: list.id, db)
        else { throw DAVError.notFound }
        add(Self.calendarHref(segment) + entry.href, taskProps(entry, withData: wantsData))
      }
      return out
    }
    return Self.multistatus(responses)
  }

  private func currentUser() -> String { "<d:href>\(Self.prefix)/principal/</d:href>" }

  private func rootProps() -> [String: String] {
    [
      "{DAV:}resourcetype": "<d:collection/>", "{DAV:}displayname": "Hearth",
      "{DAV:}current-user-principal": currentUser(),
    ]
  }

  private func principalProps() -> [String: String] {
    [
      "{DAV:}resourcetype": "<d:collection/><d:principal/>", "{DAV:}displayname": "Hearth",
      "{DAV:}current-user-principal": currentUser(), "{DAV:}principal-URL": currentUser(),
      "{\(DAV.caldav)}calendar-home-set": "<d:href>\(Self.prefix)/calendars/</d:href>",
      "{\(DAV.caldav)}calendar-user-address-set": "<d:href>\(Self.prefix)/principal/</d:href>",
    ]
  }

  private func homeProps() -> [String: String] {
    [
      "{DAV:}resourcetype": "<d:collection/>", "{DAV:}displayname": "Reminders",
      "{DAV:}current-user-principal": currentUser(),
    ]
  }

  private func calendarProps(_ list: RemindersList, seq: Int64) -> [String: String] {
    let token = Self.tokenPrefix + String(seq)
    return [
      "{DAV:}resourcetype": "<d:collection/><c:calendar/>",
      "{DAV:}displayname": DAV.escape(list.title),
      "{DAV:}current-user-principal": currentUser(),
      "{DAV:}owner": currentUser(),
      "{DAV:}sync-token": token,
      "{\(DAV.calendarServer)}getctag": token,
      "{\(DAV.apple)}calendar-color": list.color.hex.uppercased() + "FF",
      "{\(DAV.caldav)}supported-calendar-component-set": "<c:comp name=\"VTODO\"/>",
      "{DAV:}supported-report-set":
        ["c:calendar-query", "c:calendar-multiget", "d:sync-collection"].map {
          "<d:supported-report><d:report><\($0)/></d:report></d:supported-report>"
        }.joined(),
      "{DAV:}current-user-privilege-set":
        "<d:privilege><d:read/></d:privilege><d:privilege><d:write/></d:privilege>"
        + "<d:privilege><d:all/></d:privilege>",
    ]
  }

  private func taskProps(_ entry: CalendarEntry, withData: Bool) -> [String: String] {
    var props = [
      "{DAV:}resourcetype": "", "{DAV:}getetag": DAV.escape(entry.etag),
      "{DAV:}getcontenttype": "text/calendar; charset=utf-8; component=VTODO",
    ]
    if withData { props["{\(DAV.caldav)}calendar-data"] = DAV.escape(entry.ical) }
    return props
  }

  /// A `<d:response>`: the props asked for, found (200) and not (404); all but
  /// calendar-data when none were named.
  static func response(_ href: String, _ props: [String: String], requested: [(String, String)]?)
    -> String
  {
    var found: [String] = []
    var missing: [String] = []
    let keys =
      requested
      ?? props.keys.filter { !$0.hasSuffix("}calendar-data") }.sorted().map(Self.split)
    for key in keys {
      if let value = props["{\(key.0)}\(key.1)"] {
        found.append(DAV.element((key.0, key.1), value))
      } else {
        missing.append(DAV.element((key.0, key.1), nil))
      }
    }
    var text = "<d:response><d:href>\(DAV.escape(href))</d:href>"
    if !found.isEmpty {
      text +=
        "<d:propstat><d:prop>\(found.joined())</d:prop>"
        + "<d:status>HTTP/1.1 200 OK</d:status></d:propstat>"
    }
    if !missing.isEmpty {
      text +=
        "<d:propstat><d:prop>\(missing.joined())</d:prop>"
        + "<d:status>HTTP/1.1 404 Not Found</d:status></d:propstat>"
    }
    return text + "</d:response>"
  }

  /// `transform` of each element, on every core for a long array, in order.
  static func concurrentMap<T: Sendable, U: Sendable>(
    _ items: [T], _ transform: @escaping @Sendable (T) -> U
  ) -> [U] {
    guard items.count > 64 else { return items.map(transform) }
    let chunks = ProcessInfo.processInfo.activeProcessorCount * 4
    let size = (items.count + chunks - 1) / chunks
    let results = ChunkResults<U>(count: chunks)
    DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
      let range = min(items.count, chunk * size)..<min(items.count, (chunk + 1) * size)
      results.set(chunk, items[range].map(transform))
    }
    return results.joined
  }

  static func split(_ key: String) -> (String, String) {
    let close = key.firstIndex(of: "}")!
    return (
      String(key[key.index(after: key.startIndex)..<close]), String(key[key.index(after: close)...])
    )
  }

  static func multistatus(_ responses: [String], token: String? = nil) -> HTTPResponse {
    var text = DAV.header + "<d:multistatus \(DAV.namespaces)>"
    text += responses.joined()
    if let token { text += "<d:sync-token>\(token)</d:sync-token>" }
    text += "</d:multistatus>"
    return .body(
      status: 207, headers: [("Content-Type", "application/xml; charset=utf-8")],
      body: Data(text.utf8))
  }

  static func calendarHref(_ list: RemindersList.ID) -> String {
    calendarHref(list.uuidString.lowercased())
  }

  static func calendarHref(_ segment: String) -> String {
    "\(prefix)/calendars/\(segment)/"
  }

  // MARK: - REPORT

  private func report(_ resource: DAVResource, _ request: HTTPRequest) throws -> HTTPResponse {
    guard let body = DAVElement.parse(request.body) else {
      throw DAVError.badRequest("a REPORT needs an XML body")
    }
    guard case .calendar(let segment) = resource else {
      throw DAVError.forbidden("reports are answered on a calendar")
    }
    let requested = body.child(DAV.dav, "prop")?.children.map { ($0.namespace, $0.name) }
    let wantsData = requested?.contains { $0.0 == DAV.caldav && $0.1 == "calendar-data" } ?? false
    let base = Self.calendarHref(segment)
    switch (body.namespace, body.name) {
    case (DAV.caldav, "calendar-multiget"):
      let hrefs = body.all(DAV.dav, "href").map { $0.text.trimmingCharacters(in: .whitespaces) }
      let responses: [String] = try database.read { db in
        guard let list = try self.list(segment, db) else { throw DAVError.notFound }
        // Many names (a client's first sync asks for every one): the list read once.
        let all =
          hrefs.count > 16
          ? Dictionary(
            try entries(of: list.id, db).map { ($0.href, $0) }, uniquingKeysWith: { a, _ in a })
          : nil
        let found = try hrefs.map { href -> (String, CalendarEntry?) in
          let path = href.removingPercentEncoding ?? href
          let name = String(path.dropFirst(base.count))
          guard path.hasPrefix(base) else { return (href, nil) }
          return (href, try all.map({ $0[name] }) ?? self.entry(named: name, in: list.id, db))
        }
        // Each task's text made by libical on every core (each its own components).
        return Self.concurrentMap(found) { href, entry in
          guard let entry else {
            return "<d:response><d:href>\(DAV.escape(href))</d:href>"
              + "<d:status>HTTP/1.1 404 Not Found</d:status></d:response>"
          }
          return Self.response(
            href, self.taskProps(entry, withData: wantsData), requested: requested)
        }
      }
      return Self.multistatus(responses)
    case (DAV.caldav, "calendar-query"):
      let filter = CalendarFilter(body.child(DAV.caldav, "filter"))
      let responses: [String] = try database.read { db in
        guard let list = try self.list(segment, db) else { throw DAVError.notFound }
        guard filter.wantsTasks else { return [] }
        return try entries(of: list.id, db).filter { filter.matches($0.task) }.map { entry in
          Self.response(
            base + entry.href, taskProps(entry, withData: wantsData), requested: requested)
        }
      }
      return Self.multistatus(responses)
    case (DAV.dav, "sync-collection"):
      return try syncCollection(segment, body, requested: requested, wantsData: wantsData)
    default:
      throw DAVError.forbidden("the report \(body.name) is not supported")
    }
  }

  /// RFC 6578: the members changed since a token (the hub's feed sequence number then),
  /// read from the feed; removed ones as 404. A token older than the feed holds is refused
  /// (`valid-sync-token`): the client syncs in full again.
  private func syncCollection(
    _ segment: String, _ body: DAVElement, requested: [(String, String)]?, wantsData: Bool
  ) throws -> HTTPResponse {
    let given = body.child(DAV.dav, "sync-token")?.text.trimmingCharacters(in: .whitespaces) ?? ""
    let base = Self.calendarHref(segment)
    return try database.read { db in
      guard let list = try self.list(segment, db) else { throw DAVError.notFound }
      let now = try HubTables.lastSequence(db)
      let token = Self.tokenPrefix + String(now)
      if given.isEmpty {
        return Self.multistatus(
          try entries(of: list.id, db).map {
            Self.response(base + $0.href, taskProps($0, withData: wantsData), requested: requested)
          }, token: token)
      }
      guard given.hasPrefix(Self.tokenPrefix),
        let since = Int64(given.dropFirst(Self.tokenPrefix.count)),
        since <= now
      else { throw DAVError.invalidSyncToken }
      let horizon = try HubTables.horizon(db, last: now)
      guard since >= horizon - 1 || since == now else { throw DAVError.invalidSyncToken }
      guard let changed = try Self.changedReminders(since: since, db) else {
        throw DAVError.invalidSyncToken
      }
      let ids = Array(changed)
      let present =
        ids.isEmpty
        ? []
        : try attach(
          try Queries.rows(
            db, Reminder.where { $0.id.in(ids) && $0.remindersListID.eq(list.id) }), db)
      let presentIDs = Set(present.map(\.row.reminder.id))
      var responses = present.map {
        Self.response(base + $0.href, taskProps($0, withData: wantsData), requested: requested)
      }
      // Gone from this list (deleted, or moved to another): by the name it had here.
      let goneIDs = ids.filter { !presentIDs.contains($0) }
      let names = Dictionary(
        uniqueKeysWithValues: try ReminderCalendarData.where { $0.reminderID.in(goneIDs) }
          .fetchAll(db).map { ($0.reminderID, $0.href) })
      for id in goneIDs {
        let href = base + (names[id] ?? id.uuidString.lowercased() + ".ics")
        responses.append(
          "<d:response><d:href>\(DAV.escape(href))</d:href>"
            + "<d:status>HTTP/1.1 404 Not Found</d:status></d:response>")
      }
      return Self.multistatus(responses, token: token)
    }
  }

  /// The reminders that commits after `since` inserted, changed (their row, tags or
  /// calendar data) or deleted; nil when a commit's rows are not listed.
  static func changedReminders(since: Int64, _ db: Database) throws -> Set<Reminder.ID>? {
    var changed = Set<Reminder.ID>()
    var rowids = Set<Int64>()
    for event in try HubTables.commits(after: since, db) {
      if event.schemaChanged == true, event.tables.keys.contains(Reminder.tableName) {
        return nil
      }
      for (table, changes) in event.tables {
        let key = { (rowid: Int64) -> String? in
          guard case .text(let text)? = changes.primaryKeys?[rowid]?.first?.storage else {
            return nil
          }
          return text
        }
        switch table {
        case Reminder.tableName:
          guard changes.rowIDsAreKnown else { return nil }
          rowids.formUnion(changes.insertedRowIDs + changes.updatedRowIDs)
          for rowid in changes.deletedRowIDs {
            guard let id = key(rowid).flatMap(UUID.init(uuidString:)) else { return nil }
            changed.insert(id)
          }
        case ReminderTag.tableName, ReminderCalendarData.tableName:
          guard changes.rowIDsAreKnown else { return nil }
          for rowid in changes.insertedRowIDs + changes.updatedRowIDs + changes.deletedRowIDs {
            // A tag's key is `reminder/tag`; the calendar data's, the reminder.
            guard let text = key(rowid),
              let id = UUID(uuidString: String(text.prefix { $0 != "/" }))
            else { return nil }
            changed.insert(id)
          }
        default: continue
        }
      }
    }
    if !rowids.isEmpty {
      let list = rowids.map(String.init).joined(separator: ",")
      for text in try String.fetchAll(
        db, sql: "SELECT id FROM \(Reminder.tableName) WHERE rowid IN (\(list))")
      {
        if let id = UUID(uuidString: text) { changed.insert(id) }
      }
    }
    return changed
  }

  // MARK: - GET, PUT, DELETE

  private func get(_ resource: DAVResource, head: Bool) throws -> HTTPResponse {
    guard case .task(let segment, let name) = resource else {
      return .text(200, "Hearth reminders over CalDAV: use a CalDAV client.\n")
    }
    let entry = try database.read { db -> CalendarEntry in
      guard let list = try self.list(segment, db),
        let entry = try self.entry(named: name, in: list.id, db)
      else { throw DAVError.notFound }
      return entry
    }
    return .body(
      status: 200,
      headers: [("Content-Type", "text/calendar; charset=utf-8"), ("ETag", entry.etag)],
      body: head ? Data() : Data(entry.ical.utf8))
  }

  private func put(_ resource: DAVResource, _ request: HTTPRequest) throws -> HTTPResponse {
    guard case .task(let segment, let name) = resource, name.hasSuffix(".ics") || !name.isEmpty
    else { throw DAVError.forbidden("PUT a task into a calendar: /dav/calendars/LIST/NAME.ics") }
    guard let text = String(data: request.body, encoding: .utf8) else {
      throw CalendarDataError.notICalendar
    }
    let task = try CalendarData.parse(text)
    let ifMatch = request.header("if-match")
    let ifNoneMatch = request.header("if-none-match")
    // Checked and written in one transaction at the hub: a stale write is refused, never
    // merged blindly.
    let (created, etag) = try database.write { db -> (Bool, String) in
      guard let list = try self.list(segment, db) else {
        throw DAVError.conflict("no calendar \(segment); MKCALENDAR makes one")
      }
      let existing = try entry(named: name, in: list.id, db)
      if let existing {
        if ifNoneMatch == "*" { throw DAVError.preconditionFailed }
        if let ifMatch, ifMatch != "*", ifMatch != existing.etag {
          throw DAVError.preconditionFailed
        }
      } else if let ifMatch, !ifMatch.isEmpty {
        throw DAVError.preconditionFailed
      }
      let id = try existing?.row.reminder.id ?? newID(for: name, uid: task.uid, db)
      if let existing {
        var edit = ReminderEdit()
        edit.title = task.title
        edit.notes = task.notes
        edit.dueDate = .some(task.due)
        edit.priority = .some(task.priority)
        edit.isFlagged = task.flagged
        _ = try RemindersActions.edit(id, edit, db)
        let wasCompleted = existing.row.reminder.status != .incomplete
        if task.completed, !wasCompleted {
          try RemindersActions.complete([id], status: .completed, now: Date(), db)
        } else if !task.completed, wasCompleted {
          try RemindersActions.reopen(id, db)
        }
        let removed = existing.row.tags.filter { !task.tags.contains($0) }
        if !removed.isEmpty { _ = try RemindersActions.untag(id, removed, db) }
        let added = task.tags.filter { !existing.row.tags.contains($0) }
        if !added.isEmpty { _ = try RemindersActions.tag(id, with: added, db) }
      } else {
        var new = NewReminder(title: task.title)
        new.id = id
        new.notes = task.notes
        new.dueDate = task.due
        new.priority = task.priority
        new.isFlagged = task.flagged
        new.list = list.id.uuidString.lowercased()
        new.tags = task.tags
        _ = try RemindersActions.add(new, db)
        if task.completed {
          try RemindersActions.complete([id], status: .completed, now: Date(), db)
        }
      }
      try ReminderCalendarData.upsert {
        ReminderCalendarData(reminderID: id, href: name, ical: text)
      }.execute(db)
      let written = try entry(named: name, in: list.id, db)!
      return (existing == nil, written.etag)
    }
    return .body(status: created ? 201 : 204, headers: [("ETag", etag)], body: Data())
  }

  /// A new reminder's id: the resource's name or the client's UID when either is a UUID
  /// not taken, else a new one.
  private func newID(for name: String, uid: String, _ db: Database) throws -> Reminder.ID {
    for candidate in [String(name.dropLast(name.hasSuffix(".ics") ? 4 : 0)), uid] {
      if let id = UUID(uuidString: candidate), try Reminder.find(id).fetchOne(db) == nil {
        return id
      }
    }
    return UUID()
  }

  private func delete(_ resource: DAVResource, _ request: HTTPRequest) throws -> HTTPResponse {
    let ifMatch = request.header("if-match")
    try database.write { db in
      switch resource {
      case .task(let segment, let name):
        guard let list = try self.list(segment, db),
          let entry = try self.entry(named: name, in: list.id, db)
        else { throw DAVError.notFound }
        if let ifMatch, ifMatch != "*", ifMatch != entry.etag { throw DAVError.preconditionFailed }
        try RemindersActions.delete([entry.row.reminder.id], db)
      case .calendar(let segment):
        guard let list = try self.list(segment, db) else { throw DAVError.notFound }
        _ = try RemindersActions.deleteList(list.id.uuidString.lowercased(), db)
      default:
        throw DAVError.forbidden("only a calendar or a task can be deleted")
      }
    }
    return .body(status: 204, headers: [], body: Data())
  }

  // MARK: - Calendars

  private func makeCalendar(_ resource: DAVResource, _ request: HTTPRequest) throws
    -> HTTPResponse
  {
    guard case .calendar(let segment) = resource else {
      throw DAVError.forbidden("calendars are made in /dav/calendars/")
    }
    let props = DAVElement.parse(request.body)?.child(DAV.dav, "set")?.child(DAV.dav, "prop")
    let title = props?.child(DAV.dav, "displayname")?.text ?? segment
    let color = props?.child(DAV.apple, "calendar-color").flatMap {
      Color(parsing: String($0.text.prefix(7)))
    }
    try database.write { db in
      if try list(segment, db) != nil { throw DAVError.methodNotAllowed }
      _ = try RemindersActions.addList(
        title: String(title.prefix(200)), color: color, id: DAVResource.listID(segment), db)
    }
    return .body(status: 201, headers: [], body: Data())
  }

  private func proppatch(_ resource: DAVResource, _ request: HTTPRequest) throws -> HTTPResponse {
    guard case .calendar(let segment) = resource else {
      throw DAVError.forbidden("only a calendar's name and colour can be set")
    }
    guard let body = DAVElement.parse(request.body) else {
      throw DAVError.badRequest("a PROPPATCH needs an XML body")
    }
    let set = body.all(DAV.dav, "set").compactMap { $0.child(DAV.dav, "prop") }.flatMap(\.children)
    var results: [(DAVElement, Bool)] = []
    try database.write { db in
      guard let list = try self.list(segment, db) else { throw DAVError.notFound }
      for prop in set {
        switch (prop.namespace, prop.name) {
        case (DAV.dav, "displayname") where !prop.text.isEmpty:
          _ = try RemindersActions.editList(
            list.id.uuidString.lowercased(), title: String(prop.text.prefix(200)), color: nil, db)
          results.append((prop, true))
        case (DAV.apple, "calendar-color"):
          let color = Color(parsing: String(prop.text.prefix(7)))
          if let color {
            _ = try RemindersActions.editList(
              list.id.uuidString.lowercased(), title: nil, color: color, db)
          }
          results.append((prop, color != nil))
        default:
          results.append((prop, false))
        }
      }
    }
    let propstats = results.map { prop, done in
      "<d:propstat><d:prop>\(DAV.element((prop.namespace, prop.name), nil))</d:prop>"
        + "<d:status>HTTP/1.1 \(done ? "200 OK" : "403 Forbidden")</d:status></d:propstat>"
    }
    return Self.multistatus([
      "<d:response><d:href>\(DAV.escape(Self.calendarHref(segment)))</d:href>"
        + propstats.joined() + "</d:response>"
    ])
  }
}

/// The results of `concurrentMap`'s chunks, each set once by its own worker.
private final class ChunkResults<U>: @unchecked Sendable {
  // Safe: every slot is written by exactly one worker of concurrentPerform, through the
  // pointer (no shared Swift access), and read only after it returns (which orders the
  // writes before the read).
  private let slots: UnsafeMutablePointer<[U]>
  private let count: Int
  init(count: Int) {
    self.count = count
    slots = .allocate(capacity: count)
    slots.initialize(repeating: [], count: count)
  }
  deinit {
    slots.deinitialize(count: count)
    slots.deallocate()
  }
  func set(_ index: Int, _ values: [U]) { slots[index] = values }
  var joined: [U] { UnsafeBufferPointer(start: slots, count: count).flatMap { $0 } }
}

/// What a path names.
enum DAVResource: Equatable {
  case root
  case principal
  case home
  case calendar(String)
  case task(String, String)

  init?(path: String) {
    guard path.hasPrefix(CalDAVServer.prefix) else { return nil }
    let parts = path.dropFirst(CalDAVServer.prefix.count).split(separator: "/").map(String.init)
    guard !parts.contains(where: { $0 == ".." || $0 == "." }) else { return nil }
    switch parts.count {
    case 0: self = .root
    case 1 where parts[0] == "principal": self = .principal
    case 1 where parts[0] == "calendars": self = .home
    case 2 where parts[0] == "calendars": self = .calendar(parts[1])
    case 3 where parts[0] == "calendars": self = .task(parts[1], parts[2])
    default: return nil
    }
  }

  /// A calendar's list: the list whose id the segment is, else the id made from the
  /// segment a client named a new calendar with (BLAKE2b of it, as a version 8 UUID), so
  /// that the client finds it under that name again.
  static func listID(_ segment: String) -> RemindersList.ID {
    if let id = UUID(uuidString: segment) { return id }
    var bytes = [UInt8](repeating: 0, count: 16)
    let input = Array(("hearth caldav calendar " + segment).utf8)
    _ = crypto_generichash(&bytes, bytes.count, input, UInt64(input.count), nil, 0)
    bytes[6] = (bytes[6] & 0x0F) | 0x80
    bytes[8] = (bytes[8] & 0x3F) | 0x80
    return UUID(
      uuid: (
        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8],
        bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
      ))
  }
}

/// A refusal, as its HTTP answer.
enum DAVError: Error {
  case notFound
  case badRequest(String)
  case forbidden(String)
  case conflict(String)
  case preconditionFailed
  case methodNotAllowed
  case invalidSyncToken

  var response: HTTPResponse {
    switch self {
    case .notFound: .text(404, "no such resource\n")
    case .badRequest(let why): .text(400, why + "\n")
    case .forbidden(let why): .text(403, why + "\n")
    case .conflict(let why): .text(409, why + "\n")
    case .preconditionFailed:
      .text(412, "the resource changed since you read it (its ETag differs); read it again\n")
    case .methodNotAllowed: .text(405, "it exists already\n")
    case .invalidSyncToken:
      .body(
        status: 403, headers: [("Content-Type", "application/xml; charset=utf-8")],
        body: Data(
          (DAV.header + "<d:error xmlns:d=\"DAV:\"><d:valid-sync-token/></d:error>").utf8))
    }
  }
}

/// A calendar-query's filter (RFC 4791 §9.7), as far as tasks go: the component asked for,
/// properties defined or not, text matches (negated or not), and a time range on DUE.
struct CalendarFilter {
  var wantsTasks = true
  var properties: [(name: String, defined: Bool?, text: String?, negate: Bool)] = []
  var range: (start: Date?, end: Date?)?

  init(_ filter: DAVElement?) {
    guard let calendar = filter?.child(DAV.caldav, "comp-filter") else { return }
    guard let component = calendar.child(DAV.caldav, "comp-filter") else { return }
    wantsTasks = component.attributes["name"]?.uppercased() == "VTODO"
    if let range = component.child(DAV.caldav, "time-range") {
      self.range = (Self.date(range.attributes["start"]), Self.date(range.attributes["end"]))
    }
    for prop in component.all(DAV.caldav, "prop-filter") {
      let name = prop.attributes["name"]?.uppercased() ?? ""
      if prop.child(DAV.caldav, "is-not-defined") != nil {
        properties.append((name, false, nil, false))
      } else if let match = prop.child(DAV.caldav, "text-match") {
        properties.append(
          (name, nil, match.text, match.attributes["negate-condition"] == "yes"))
      } else {
        properties.append((name, true, nil, false))
      }
    }
  }

  func matches(_ task: CalendarTask) -> Bool {
    if let range, let due = task.due {
      if let start = range.start, due < start { return false }
      if let end = range.end, due >= end { return false }
    }
    for property in properties {
      let value: String? =
        switch property.name {
        case "STATUS": task.completed ? "COMPLETED" : "NEEDS-ACTION"
        case "COMPLETED": task.completed ? "yes" : nil
        case "SUMMARY": task.title
        case "DESCRIPTION": task.notes.isEmpty ? nil : task.notes
        case "CATEGORIES": task.tags.isEmpty ? nil : task.tags.joined(separator: ",")
        case "UID": task.uid
        case "DUE": task.due.map { "\($0)" }
        case "PRIORITY": task.priority.map { "\(CalendarData.icalendarPriority($0))" }
        default: nil
        }
      if let defined = property.defined, (value != nil) != defined { return false }
      if let text = property.text {
        let found = value?.localizedCaseInsensitiveContains(text) ?? false
        if found == property.negate { return false }
      }
    }
    return true
  }

  static func date(_ text: String?) -> Date? {
    guard let text else { return nil }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
    return formatter.date(from: text)
  }
}

/// App passwords: random, shown once, stored as libsodium's Argon2id hash string.
enum AppPassword {
  /// 24 characters from a 32-letter alphabet: 120 random bits.
  static func make() -> String {
    let alphabet = Array("abcdefghijkmnpqrstuvwxyz23456789")
    var bytes = [UInt8](repeating: 0, count: 24)
    randombytes_buf(&bytes, bytes.count)
    return String(bytes.map { alphabet[Int($0) % alphabet.count] })
  }

  static func hash(_ password: String) throws -> String {
    var out = [CChar](repeating: 0, count: Int(crypto_pwhash_STRBYTES))
    guard
      crypto_pwhash_str(
        &out, password, UInt64(password.utf8.count), UInt64(crypto_pwhash_OPSLIMIT_INTERACTIVE),
        Int(crypto_pwhash_MEMLIMIT_INTERACTIVE)) == 0
    else { throw CommandError("libsodium could not hash the password (out of memory?)") }
    return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  static func verify(_ password: String, hash: String) -> Bool {
    crypto_pwhash_str_verify(hash, password, UInt64(password.utf8.count)) == 0
  }
}
