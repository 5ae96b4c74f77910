import Foundation
import HearthSQLite
import HearthWire

/// The hub's own tables, in the same database as the data (so that the change feed and the
/// exactly-once records commit with the data they describe): their schema and the hub's
/// writes. What clients read of them too (the sequence number, the feed, the plugins) is
/// read through `HubTables`, the same functions the clients use.
enum HubStore {
  /// The format of the hub's tables; a database of another format is refused at start-up.
  static let format = 1

  static let schema = """
    CREATE TABLE IF NOT EXISTS hearth_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS hearth_plugins (
      name TEXT PRIMARY KEY, version TEXT NOT NULL, registeredAt INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS hearth_tables (
      name TEXT PRIMARY KEY COLLATE NOCASE, plugin TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS hearth_plugin_migrations (
      plugin TEXT NOT NULL, identifier TEXT NOT NULL, appliedAt INTEGER NOT NULL,
      PRIMARY KEY (plugin, identifier));
    CREATE TABLE IF NOT EXISTS hearth_commits (
      seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, plugin TEXT NOT NULL,
      request TEXT NOT NULL, event TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS hearth_cursors (
      plugin TEXT PRIMARY KEY, seq INTEGER NOT NULL, at INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS hearth_requests (
      id TEXT PRIMARY KEY, plugin TEXT NOT NULL, seq INTEGER NOT NULL, reply TEXT NOT NULL,
      at INTEGER NOT NULL) WITHOUT ROWID;
    """

  /// Creates the tables on a new database, or checks the format of an existing one.
  static func prepare(_ db: Database) throws {
    try db.inTransaction(.immediate) {
      try db.execute(sql: schema)
      let stored = try String.fetchOne(
        db, sql: "SELECT value FROM hearth_meta WHERE key = 'format'")
      if let stored {
        guard stored == String(format) else {
          throw DatabaseError(resultCode: .SQLITE_ERROR, message: otherFormatMessage(stored))
        }
      } else {
        try db.execute(
          sql: "INSERT INTO hearth_meta (key, value) VALUES ('format', ?), ('lastSeq', '0')",
          arguments: [String(format)])
      }
      return .commit
    }
  }

  static func otherFormatMessage(_ stored: String) -> String {
    "the database is in hub format \(stored); this hearthd reads format \(format). "
      + "Use the hearthd that wrote it, or restore a backup."
  }

  static func setLastSequence(_ seq: Int64, _ db: Database) throws {
    try db.execute(
      sql: "UPDATE hearth_meta SET value = ? WHERE key = 'lastSeq'", arguments: [String(seq)])
  }

  static func ownedTables(of plugin: String, _ db: Database) throws -> Set<String> {
    Set(
      try String.fetchAll(
        db, sql: "SELECT name FROM hearth_tables WHERE plugin = ?", arguments: [plugin]
      )
      .map { $0.lowercased() })
  }

  /// A table of `tables` that another plugin than `plugin` owns (names compared without
  /// case), with its owner.
  static func tableConflict(claiming tables: [String], for plugin: String, _ db: Database)
    throws -> (table: String, owner: String)?
  {
    let declared = String(
      decoding: try WireCoding.encode(tables.map { $0.lowercased() }), as: UTF8.self)
    guard
      let row = try Row.fetchOne(
        db,
        sql: """
          SELECT name, plugin FROM hearth_tables
          WHERE plugin <> ? AND lower(name) IN (SELECT value FROM json_each(?))
          """, arguments: [plugin, declared])
    else { return nil }
    return (try row["name"], try row["plugin"])
  }

  /// Records `plugin` at `version` (registered at `now` the first time).
  static func recordPlugin(_ plugin: String, version: String, at now: Int64, _ db: Database)
    throws
  {
    try db.execute(
      sql: """
        INSERT INTO hearth_plugins (name, version, registeredAt) VALUES (?, ?, ?)
        ON CONFLICT (name) DO UPDATE SET version = excluded.version
        """, arguments: [plugin, version, now])
  }

  /// Makes `plugin` the owner of `tables` (those it owns already stay its).
  static func claim(_ tables: [String], for plugin: String, _ db: Database) throws {
    for table in tables {
      try db.execute(
        sql: "INSERT OR IGNORE INTO hearth_tables (name, plugin) VALUES (?, ?)",
        arguments: [table, plugin])
    }
  }

  /// Records that `plugin`'s migration `identifier` was applied.
  static func recordMigration(
    _ identifier: String, of plugin: String, at now: Int64, _ db: Database
  )
    throws
  {
    try db.execute(
      sql: "INSERT INTO hearth_plugin_migrations (plugin, identifier, appliedAt) VALUES (?, ?, ?)",
      arguments: [plugin, identifier, now])
  }

  static func storedReply(for request: String, _ db: Database) throws -> String? {
    try String.fetchOne(
      db, sql: "SELECT reply FROM hearth_requests WHERE id = ?", arguments: [request])
  }

  /// Records where `plugin` has read the feed up to.
  static func saveCursor(_ seq: Int64, of plugin: String, at now: Int64, _ db: Database) throws {
    try db.execute(
      sql: """
        INSERT INTO hearth_cursors (plugin, seq, at) VALUES (?, ?, ?)
        ON CONFLICT (plugin) DO UPDATE SET seq = excluded.seq, at = excluded.at
        """,
      arguments: [plugin, seq, now])
  }

  /// Forgets feed entries older than `retention`, and those every registered cursor has
  /// passed that are not among the `keepingRecent` newest; forgets exactly-once records
  /// older than `retention`. At most `batch` rows of each table go in one call (one small
  /// commit, so that pruning a busy hour never makes one huge addition to the WAL); returns
  /// which tables have more due. `requests: false` leaves the exactly-once records alone
  /// (finding old ones scans them all: once per round is enough).
  static func prune(
    olderThan retention: Duration, keepingRecent: Int64, last: Int64, batch: Int,
    requests: Bool, at now: Int64, _ db: Database
  ) throws -> (feed: Bool, requests: Bool) {
    let cutoff = now - Int64(retention.components.seconds) * 1000
    var more = (feed: false, requests: false)
    try db.inTransaction(.immediate) {
      // The feed's newest entry may go: the sequence number stays.
      try setLastSequence(last, db)
      // Sequence numbers grow with time: the entries before the first young one are old
      // (a scan that stops there).
      let firstYoung = try Int64.fetchOne(
        db, sql: "SELECT seq FROM hearth_commits WHERE at >= ? ORDER BY seq LIMIT 1",
        arguments: [cutoff])
      var through = firstYoung.map { $0 - 1 } ?? last
      if let slowest = try Int64.fetchOne(db, sql: "SELECT min(seq) FROM hearth_cursors") {
        through = max(through, min(slowest, last - keepingRecent))
      }
      try db.execute(
        sql: """
          DELETE FROM hearth_commits
          WHERE seq IN (SELECT seq FROM hearth_commits WHERE seq <= ? ORDER BY seq LIMIT ?)
          """, arguments: [through, batch])
      more.feed = db.changesCount == batch
      if requests {
        try db.execute(
          sql: """
            DELETE FROM hearth_requests
            WHERE id IN (SELECT id FROM hearth_requests WHERE at < ? LIMIT ?)
            """, arguments: [cutoff, batch])
        more.requests = db.changesCount == batch
      }
      return .commit
    }
    return more
  }
}
