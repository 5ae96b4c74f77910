import Foundation
import HearthPostgres
import HearthSQLite
import HearthTransport

/// The sync server: a PostgreSQL database holding the log of every hub's pushes (schema
/// `hearth`, made by the first hub that connects), pushed to and pulled from through one
/// connection. `hearth.push` appends a batch as one chunk, in one transaction, numbered from
/// a clock row (so numbers are gapless and in commit order, and a puller never skips a
/// chunk that committed late); nothing is merged there: each hub merges what it pulls, per
/// column the later time (`SyncRow.merge`). NOTIFY `hearth` is only a doorbell.
public final class SyncServer {
  public let connection: PostgresConnection
  /// The person connected: the PostgreSQL role the server authenticated (`session_user`).
  public let role: String
  /// This person's private zone on the server, `role/name` (`alice/default`): every synced
  /// record not shared with someone else.
  public let zone: String
  /// The server schema's version; a newer one on the server is refused.
  public static let schemaVersion = 6

  /// Connects as the person `conninfo` names; `zone` is the name of their private zone.
  public init(_ conninfo: String, zone: String = "default") throws {
    connection = try PostgresConnection(Self.withConnectTimeout(conninfo))
    try Self.install(connection)
    guard let role = try connection.execute("SELECT session_user").rows.first?.first ?? nil else {
      throw PostgresError(sqlState: nil, message: "the server did not say who is connected")
    }
    self.role = role
    self.zone = "\(role)/\(zone)"
  }

  /// `conninfo` with a 10-second `connect_timeout` unless it sets one: a server that does
  /// not answer must not hold the service (and hearthd's stop) for the system's TCP
  /// timeout of minutes.
  public static func withConnectTimeout(_ conninfo: String) -> String {
    guard !conninfo.contains("connect_timeout") else { return conninfo }
    if conninfo.hasPrefix("postgresql://") || conninfo.hasPrefix("postgres://") {
      return conninfo + (conninfo.contains("?") ? "&" : "?") + "connect_timeout=10"
    }
    return conninfo + " connect_timeout=10"
  }

  /// Makes the schema if it is not there, or brings an older one up to this version (one
  /// hub at a time: an advisory lock). Upgrading needs the schema's owner; anyone may use it.
  static func install(_ connection: PostgresConnection) throws {
    try connection.inTransaction {
      _ = try connection.execute("SELECT pg_advisory_xact_lock(7418)")
      var version = 0
      if try !connection.execute("SELECT 1 FROM pg_namespace WHERE nspname = 'hearth'").rows
        .isEmpty
      {
        let text = try connection.execute("SELECT value FROM hearth.meta WHERE key = 'schema'")
          .rows.first?.first??.description
        guard let text, let number = Int(text), number <= schemaVersion else {
          throw PostgresError(
            sqlState: nil,
            message: "the sync server's schema is version \(text ?? "unknown"); this hub "
              + "knows version \(schemaVersion) at most: upgrade the hub")
        }
        version = number
      }
      for (number, script) in [
        (1, serverSchemaV1), (2, serverSchemaV2), (3, serverSchemaV3), (4, serverSchemaV4),
        (5, serverSchemaV5), (6, serverSchemaV6),
      ]
      where number > version {
        try connection.executeScript(script)
      }
    }
  }

  /// What a push came to: its chunk's sequence number, and the bound its times are read
  /// under (wall ms; the server's clock plus `maximumDrift` when it came). Every hub reads a
  /// time past the bound as the bound, so the pushing hub reads its own so too.
  public struct Pushed: Hashable, Sendable {
    public var seq: Int64
    public var bound: Int64
  }

  /// Pushes `records` (at most one per row) into `zone` (the private one unless said) as one
  /// chunk: all of them, or none. Nothing is merged on the server: each hub merges what it
  /// pulls.
  @discardableResult
  public func push(_ records: [SyncRecord], zone: String? = nil, hub: String) throws -> Pushed {
    try sendPush(records, zone: zone, hub: hub)
    return try receivePush()
  }

  /// Sends a push (`push`) without waiting for the server to take it: `receivePush`
  /// returns what it came to.
  public func sendPush(_ records: [SyncRecord], zone: String? = nil, hub: String) throws {
    try sendPush(encoded: try JSONText.records(records), zone: zone, hub: hub)
  }

  /// `sendPush` of records already written as `hearth.push`'s JSON (`JSONText.records`).
  func sendPush(encoded batch: String, zone: String?, hub: String) throws {
    try connection.send(
      "SELECT seq, bound FROM hearth.push($1, $2, $3::jsonb)", [zone ?? self.zone, hub, batch])
  }

  public func receivePush() throws -> Pushed {
    let row = try connection.receive().rows.first
    guard let row, let seq = (row[0] ?? nil).flatMap({ Int64($0) }),
      let bound = (row[1] ?? nil).flatMap({ Int64($0) })
    else {
      throw PostgresError(sqlState: nil, message: "hearth.push returned no sequence number")
    }
    return Pushed(seq: seq, bound: bound)
  }

  /// The next page of `zone` (the private one unless said) after `cursor`: the chunks
  /// pushed since, in order, until they hold `limit` records (a page ends after the chunk
  /// that reaches it), less those `hub` pushed in a push numbered `pushed` or less (the
  /// last push it has acknowledged: it has those). Each record carries its chunk's number,
  /// and its times are read under the chunk's bound.
  public func pullPage(
    _ zone: String? = nil, after cursor: SyncCursor, limit: Int, hub: String, pushed: Int64 = 0
  ) throws -> SyncPage {
    try sendPull(zone, after: cursor, limit: limit, hub: hub, pushed: pushed)
    return try receivePage()
  }

  /// Asks for a page (`pullPage`) without waiting for it: `receivePage` returns it.
  public func sendPull(
    _ zone: String? = nil, after cursor: SyncCursor, limit: Int, hub: String, pushed: Int64 = 0
  ) throws {
    try connection.send(
      "SELECT seq, bound, size, records, complete FROM hearth.pull($1, $2, $3, $4, $5)",
      [zone ?? self.zone, hub, String(cursor.chunk), String(limit), String(pushed)])
  }

  public func receivePage() throws -> SyncPage {
    var records: [SyncRecord] = []
    var last: Int64?
    var complete = true
    for row in try connection.receive().rows {
      guard row.count == 5, let seq = (row[0] ?? nil).flatMap({ Int64($0) }),
        let bound = (row[1] ?? nil).flatMap({ Int64($0) })
      else { throw PostgresError(sqlState: nil, message: "hearth.pull returned no number") }
      last = seq
      complete = row[4] == "t"
      guard let text = row[3] ?? nil else { continue }
      for var record in try JSONText.recordList(text) {
        record = record.clamped(to: bound)
        record.seq = seq
        records.append(record)
      }
    }
    return SyncPage(records: records, last: last.map { SyncCursor(seq: $0) }, complete: complete)
  }

  /// The records of `zone` after `cursor` that `hub` would pull, at most `limit` scanned.
  public func pull(
    _ zone: String? = nil, after cursor: SyncCursor, limit: Int, hub: String, pushed: Int64 = 0
  ) throws -> [SyncRecord] {
    try pullPage(zone, after: cursor, limit: limit, hub: hub, pushed: pushed).records
  }

  /// Whether the private zone is on the server (a push makes it; deleting it deletes its
  /// records).
  public func zoneExists() throws -> Bool {
    try connection.execute("SELECT hearth.zone_exists($1)", [zone]).rows.first?.first == "t"
  }

  /// Starts listening for the doorbell.
  public func listen() throws { try connection.listen("hearth") }

  /// What ended a wait.
  public enum Wake: Sendable {
    /// The server's NOTIFY: another hub (or this one) pushed.
    case doorbell
    /// The local descriptor.
    case woken
    case timeout
  }

  /// Waits up to `timeout` for the doorbell or `wake`, a descriptor that becomes readable.
  public func wait(timeout: Duration, orReadable wake: Int32) throws -> Wake {
    let ready = try Descriptors.wait(
      [(connection.socket, .readable), (wake, .readable)], timeout: timeout)
    guard ready.contains(where: { !$0.isEmpty }) else { return .timeout }
    if !ready[0].isEmpty {
      // A closed connection reads as readable too: `notifications` then throws.
      _ = try connection.notifications()
      return .doorbell
    }
    return .woken
  }
}

extension SyncServer {
  /// This hub's wall clock (`now`, ms) minus the server's, in ms: the server's time taken
  /// halfway through the round trip.
  public func clockSkew(now: () -> Int64) throws -> Int64 {
    let before = now()
    let text =
      try connection.execute(
        "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint"
      ).rows.first?.first ?? nil
    let after = now()
    guard let text, let server = Int64(text) else {
      throw PostgresError(sqlState: nil, message: "the server did not say its time")
    }
    return (before + after) / 2 - server
  }
}

extension SyncServer {
  /// The SQLSTATE of a pull whose cursor is at or before tombstones the zone collected.
  public static let collectedState = "HR001"

  /// Collects `zone`'s tombstones every hub of it has pulled past (`hearth.collect`);
  /// returns how many.
  @discardableResult
  public func collectTombstones(_ zone: String? = nil) throws -> Int {
    Int(
      try connection.execute("SELECT hearth.collect($1)", [zone ?? self.zone]).rows.first?
        .first??.description ?? "0") ?? 0
  }

  /// Every record (type, name) of `zone`, live or deleted.
  func recordNames(_ zone: String? = nil) throws -> Set<SyncCheck.Key> {
    var names = Set<SyncCheck.Key>()
    for row in try connection.execute(
      "SELECT record_type, record_name FROM hearth.names($1)", [zone ?? self.zone]
    ).rows {
      guard let type = row[0] ?? nil, let name = row[1] ?? nil else { continue }
      names.insert(SyncCheck.Key(table: type.lowercased(), name: name))
    }
    return names
  }
}
