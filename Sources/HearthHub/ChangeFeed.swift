import Foundation
import HearthSQLite
import HearthTransport
import HearthWire

/// The hub's change feed: what a commit records beside its data (its numbered entry, and the
/// reply kept for a retry of its request id), the `changes` and `cursor` requests, and the
/// bus the entries are published on. Lives on the hub's thread.
struct ChangeFeed {
  let hub: Hub
  let publisher: BusSocket
  /// Cursors reported since they were last written: they are written with the next pruning
  /// (or at the stop), not each in its own transaction. A cursor lost in a crash only makes
  /// the next pruning keep more.
  var unsavedCursors: [String: Int64] = [:]

  /// A commit event and its JSON, encoded once for the feed and the bus.
  struct PublishedCommit {
    var event: CommitEvent
    var body: Data
  }

  /// A committed transaction's reply (encoded, as it is sent) and its event, if it changed
  /// anything.
  struct Committed {
    var reply: CommittedReply
    var body: Data
    var event: PublishedCommit?
  }

  // MARK: - Recording, in the committing transaction

  /// Records what a transaction of `plugin` did, in that transaction: its `changes` as feed
  /// entry `seq` (none when they are empty: it then commits at `seq - 1`, the number before),
  /// and its reply, for a retry of request id `request`.
  func record(
    _ results: [WireResult], changes: DatabaseChanges, plugin: String, request: String,
    seq: Int64, at now: Int64, _ db: Database
  ) throws -> Committed {
    let event = try recordEntry(
      changes, plugin: plugin, request: request, seq: seq, at: now, db)
    let reply = CommittedReply(id: request, seq: event == nil ? seq - 1 : seq, results: results)
    let body = try WireCoding.encode(reply)
    try db.execute(
      sql: "INSERT INTO hearth_requests (id, plugin, seq, reply, at) VALUES (?, ?, ?, ?, ?)",
      arguments: [reply.id, plugin, reply.seq, String(decoding: body, as: UTF8.self), now])
    return Committed(reply: reply, body: body, event: event)
  }

  /// Records `changes` (the plugins' tables of them) as feed entry `seq`; nil, and nothing
  /// recorded, when they are empty.
  func recordEntry(
    _ changes: DatabaseChanges, plugin: String, request: String, seq: Int64, at now: Int64,
    _ db: Database
  ) throws -> PublishedCommit? {
    let published = changes.withoutHubTables
    guard !published.tables.isEmpty || published.isSchemaChanged else { return nil }
    let event = CommitEvent(
      hub: hub.instanceID, seq: seq, plugin: plugin, request: request, at: now,
      changes: published)
    let body = try WireCoding.encode(event)
    try db.execute(
      sql: "INSERT INTO hearth_commits (seq, at, plugin, request, event) VALUES (?, ?, ?, ?, ?)",
      arguments: [seq, now, plugin, request, String(decoding: body, as: UTF8.self)])
    return PublishedCommit(event: event, body: body)
  }

  /// The reply of an earlier commit of request id `request`, marked as a duplicate; nil when
  /// none committed (or its record is older than the retention).
  func storedReply(for request: String, _ db: Database) throws -> CommittedReply? {
    guard let stored = try HubStore.storedReply(for: request, db),
      var first = try? WireCoding.decode(CommittedReply.self, from: Data(stored.utf8))
    else { return nil }
    first.duplicate = true
    return first
  }

  // MARK: - Requests

  /// The reply to `changes`: the feed's commits after `since`, up to the last durable one
  /// (the file may hold a few past it, not yet announced).
  func changes(_ request: ChangesRequest) -> any WireMessage {
    let limit = request.limit ?? ChangesRequest.defaultLimit
    let last = hub.lastSequence
    do {
      let (commits, horizon) = try hub.database.read { db in
        (
          try HubTables.commits(after: request.since, through: last, limit: limit, db),
          try HubTables.horizon(db, last: last)
        )
      }
      return ChangesReply(id: request.id, commits: commits, seq: last, horizon: horizon)
    } catch {
      return ErrorReply(id: request.id, code: .internal, message: "\(error)")
    }
  }

  /// The reply to `cursor`; the cursor is written to `hearth_cursors` before the next
  /// pruning.
  mutating func cursor(_ request: CursorRequest) -> any WireMessage {
    let last = hub.lastSequence
    guard (0...last).contains(request.seq) else {
      return ErrorReply(
        id: request.id, code: .malformed,
        message: "cursor \(request.seq) is not a committed sequence number (0...\(last))")
    }
    do {
      let horizon = try hub.database.read { db -> Int64? in
        guard try HubTables.isRegistered(request.plugin, db) else { return nil }
        return try HubTables.horizon(db, last: last)
      }
      guard let horizon else { return ErrorReply.notRegistered(request.plugin, id: request.id) }
      unsavedCursors[request.plugin] = request.seq
      return CursorSavedReply(
        id: request.id, plugin: request.plugin, seq: request.seq, horizon: horizon)
    } catch {
      return ErrorReply(id: request.id, code: .internal, message: "\(error)")
    }
  }

  /// Writes the cursors reported since the last time, in one transaction.
  mutating func saveCursors() throws {
    guard !unsavedCursors.isEmpty else { return }
    let cursors = unsavedCursors
    let now = hub.millisecondsNow()
    try hub.database.inWriterDatabase { db in
      try db.inTransaction(.immediate) {
        for (plugin, seq) in cursors { try HubStore.saveCursor(seq, of: plugin, at: now, db) }
        return .commit
      }
    }
    unsavedCursors.removeAll()
  }

  // MARK: - The bus

  /// Publishes a commit under `commit` and under each table's topic (the same bytes when it
  /// changed one table).
  func publish(_ commit: PublishedCommit) {
    send(topic: "commit", commit.body)
    for (table, changes) in commit.event.tables {
      var single = commit.event
      single.tables = [table: changes]
      let body = commit.event.tables.count == 1 ? commit.body : try? WireCoding.encode(single)
      if let body { send(topic: "table:\(table)", body) }
    }
  }

  /// Says on the bus how far the feed has come.
  func publishHeartbeat(at now: Int64) {
    let beat = HeartbeatEvent(hub: hub.instanceID, seq: hub.lastSequence, at: now)
    if let body = try? WireCoding.encode(beat) { send(topic: "heartbeat", body) }
  }

  private func send(topic: String, _ body: Data) {
    // PUB never blocks: a subscriber past its high-water mark misses messages and catches
    // up from the feed.
    try? publisher.send([Data(topic.utf8), body], dontWait: true)
  }
}

extension ErrorReply {
  static func notRegistered(_ plugin: String, id: String) -> ErrorReply {
    ErrorReply(
      id: id, code: .notRegistered,
      message: "plugin \(plugin) has not registered; send register first")
  }
}

extension DatabaseChanges {
  /// The changes a commit event reports: the plugins' tables, not the hub's own.
  var withoutHubTables: DatabaseChanges {
    DatabaseChanges(
      tables: tables.filter {
        !$0.key.hasPrefix(HubTables.prefix) && !$0.key.hasPrefix("sqlite_")
      },
      isSchemaChanged: isSchemaChanged)
  }
}
