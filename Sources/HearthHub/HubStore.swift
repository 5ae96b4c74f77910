import Foundation
import HearthWire
import HearthSQLite

/// The hub's own tables, in the same database as the data (so that the change feed and the
/// exactly-once records commit with the data they describe).
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

  /// The last sequence number: the feed's newest entry, or the number saved before pruning
  /// emptied the feed. (A commit does not write it twice: one page less per COMMIT.)
  static func lastSequence(_ db: Database) throws -> Int64 {
    let saved =
      Int64(
        try String.fetchOne(db, sql: "SELECT value FROM hearth_meta WHERE key = 'lastSeq'") ?? "0")
      ?? 0
    return max(saved, try Int64.fetchOne(db, sql: "SELECT max(seq) FROM hearth_commits") ?? 0)
  }

  static func setLastSequence(_ seq: Int64, _ db: Database) throws {
    try db.execute(
      sql: "UPDATE hearth_meta SET value = ? WHERE key = 'lastSeq'", arguments: [String(seq)])
  }

  /// The oldest sequence number the feed still holds (the next one when it is empty).
  static func horizon(_ db: Database, last: Int64) throws -> Int64 {
    try Int64.fetchOne(db, sql: "SELECT min(seq) FROM hearth_commits") ?? (last + 1)
  }

  static func ownedTables(of plugin: String, _ db: Database) throws -> Set<String> {
    Set(
      try String.fetchAll(
        db, sql: "SELECT name FROM hearth_tables WHERE plugin = ?", arguments: [plugin]
      )
      .map { $0.lowercased() })
  }

  static func isRegistered(_ plugin: String, _ db: Database) throws -> Bool {
    try Int.fetchOne(db, sql: "SELECT 1 FROM hearth_plugins WHERE name = ?", arguments: [plugin])
      != nil
  }

  static func storedReply(for request: String, _ db: Database) throws -> String? {
    try String.fetchOne(
      db, sql: "SELECT reply FROM hearth_requests WHERE id = ?", arguments: [request])
  }

  static func commits(after seq: Int64, limit: Int, _ db: Database) throws -> [String] {
    try String.fetchAll(
      db, sql: "SELECT event FROM hearth_commits WHERE seq > ? ORDER BY seq LIMIT ?",
      arguments: [seq, limit])
  }

  /// Records where `plugin` has read the feed up to.
  static func saveCursor(_ seq: Int64, of plugin: String, _ db: Database) throws {
    try db.execute(
      sql: """
        INSERT INTO hearth_cursors (plugin, seq, at) VALUES (?, ?, ?)
        ON CONFLICT (plugin) DO UPDATE SET seq = excluded.seq, at = excluded.at
        """,
      arguments: [plugin, seq, HubSession.millisecondsNow()])
  }

  /// Forgets feed entries older than `retention`, and those every registered cursor has
  /// passed that are not among the `keepingRecent` newest; forgets exactly-once records
  /// older than `retention`. At most `batch` rows of each table go in one call (one small
  /// commit, so that pruning a busy hour never makes one huge addition to the WAL); returns
  /// which tables have more due. `requests: false` leaves the exactly-once records alone
  /// (finding old ones scans them all: once per round is enough).
  static func prune(
    olderThan retention: Duration, keepingRecent: Int64, last: Int64, batch: Int,
    requests: Bool, _ db: Database
  ) throws -> (feed: Bool, requests: Bool) {
    let cutoff =
      HubSession.millisecondsNow() - Int64(retention.components.seconds) * 1000
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

extension DatabaseChanges {
  /// The changes a commit event reports: the plugins' tables, not the hub's own.
  var publishedTables: [String: TableChangeSummary] {
    var result: [String: TableChangeSummary] = [:]
    for (table, changes) in tables where !table.hasPrefix("hearth_") && !table.hasPrefix("sqlite_")
    {
      result[table] = TableChangeSummary(
        inserted: changes.insertedRowIDs, updated: changes.updatedRowIDs,
        deleted: changes.deletedRowIDs, unknownRows: changes.rowIDsAreKnown ? nil : true,
        updatedColumns: changes.updatedColumns.flatMap { $0.isEmpty ? nil : $0 })
    }
    return result
  }
}
