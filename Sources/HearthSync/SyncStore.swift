import Foundation
import HearthSQLite
import HearthWire

/// The sync service's tables in the hub's database (hub tables: plugins read them, only
/// the hub writes them), and its small state.
///
/// - `hearth_sync_state(key, value)`: `hub` (this database's id in the times it makes),
///   `clock` (the greatest time it made or saw), `cursor` (the server's sequence number,
///   record type and name pulled up to, as JSON), `lastError`, `lastPush` (the server's
///   number of this hub's last push), `zone`, `account` and `accountChange`.
/// - `hearth_sync_tables(name, plugin, addedAt)`: the synced tables.
/// - `hearth_sync_rows(tbl, pk, times, pending, created, deleted, extra)`: one row per synced
///   row, alive or deleted: the time of each column's value, the local changes not yet on
///   the server (`pending`: column, or `$created` / `$deleted`, to the time of the change),
///   the times of its latest insert and delete (it exists while `created > deleted`), and
///   the values of columns this hub's schema does not have yet (`extra`).
/// - `hearth_sync_metadata`: a view of `hearth_sync_rows` for plugins (HearthData's
///   `SyncMetadata`): `recordPrimaryKey`, `recordType`, `recordName`, `zoneName`,
///   `hasPendingChanges`, `isDeleted`, `userModificationTime` (ms), `isShared` and `share`
///   (the root record of a share: the share, as JSON).
/// - `hearth_sync_held(tbl, pk, record, reason, waitsFor)`: records pulled that cannot be
///   applied yet (a table this hub does not sync, a parent not yet here: `waitsFor` is then
///   `table:key` of the parent), applied when they can be.
public enum SyncStore {
  public static let state = "hearth_sync_state"
  public static let tables = HubTables.syncedTables
  public static let rows = "hearth_sync_rows"
  public static let held = "hearth_sync_held"
  public static let pendingCountsTable = "hearth_sync_pending"
  /// `hearth_sync_state`'s key set while the person has paused sync (its value: when, ms).
  public static let pausedKey = "paused"
  /// Its key for this hub's wall clock minus the server's, in ms, as last measured.
  public static let clockSkewKey = "clockSkew"

  public static let schema = """
    CREATE TABLE IF NOT EXISTS hearth_sync_state (
      key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS hearth_sync_tables (
      name TEXT PRIMARY KEY NOT NULL COLLATE NOCASE, plugin TEXT NOT NULL,
      addedAt INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS hearth_sync_rows (
      tbl TEXT NOT NULL, pk TEXT NOT NULL,
      times TEXT NOT NULL DEFAULT '{}', pending TEXT NOT NULL DEFAULT '{}',
      created TEXT, deleted TEXT, extra TEXT,
      PRIMARY KEY (tbl, pk)) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS hearth_sync_rows_pending ON hearth_sync_rows (tbl, pk)
      WHERE pending != '{}';
    CREATE TABLE IF NOT EXISTS hearth_sync_held (
      tbl TEXT NOT NULL, pk TEXT NOT NULL, record TEXT NOT NULL, reason TEXT NOT NULL,
      waitsFor TEXT, PRIMARY KEY (tbl, pk)) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS hearth_sync_held_waiting ON hearth_sync_held (waitsFor);
    """

  /// How many rows of each table have pending changes, kept by triggers as
  /// `hearth_sync_rows.pending` changes (rebuilt at each start), so that the sync state —
  /// which any client may ask for as often as it likes — never counts 100,000 rows.
  static let pendingCounts = """
    CREATE TABLE IF NOT EXISTS hearth_sync_pending (
      tbl TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TRIGGER IF NOT EXISTS hearth_sync_pending_insert AFTER INSERT ON hearth_sync_rows
    WHEN NEW.pending != '{}' BEGIN
      INSERT INTO hearth_sync_pending (tbl, n) VALUES (NEW.tbl, 1)
        ON CONFLICT (tbl) DO UPDATE SET n = n + 1;
    END;
    CREATE TRIGGER IF NOT EXISTS hearth_sync_pending_delete AFTER DELETE ON hearth_sync_rows
    WHEN OLD.pending != '{}' BEGIN
      UPDATE hearth_sync_pending SET n = n - 1 WHERE tbl = OLD.tbl;
    END;
    CREATE TRIGGER IF NOT EXISTS hearth_sync_pending_update
    AFTER UPDATE OF tbl, pending ON hearth_sync_rows
    WHEN OLD.tbl IS NOT NEW.tbl OR (OLD.pending != '{}') != (NEW.pending != '{}') BEGIN
      UPDATE hearth_sync_pending SET n = n - 1 WHERE tbl = OLD.tbl AND OLD.pending != '{}';
      INSERT INTO hearth_sync_pending (tbl, n) SELECT NEW.tbl, 1 WHERE NEW.pending != '{}'
        ON CONFLICT (tbl) DO UPDATE SET n = n + 1;
    END;
    DELETE FROM hearth_sync_pending;
    INSERT INTO hearth_sync_pending (tbl, n)
      SELECT tbl, count(*) FROM hearth_sync_rows WHERE pending != '{}' GROUP BY tbl;
    """

  /// The view of the metadata, made again at each start (so that it follows this code).
  static let metadataView = """
    CREATE VIEW hearth_sync_metadata AS
      SELECT pk AS recordPrimaryKey, tbl AS recordType, pk || ':' || tbl AS recordName,
        coalesce(hearth_sync_rows.zone,
          (SELECT value FROM hearth_sync_state WHERE key = 'zone'), 'default')
          AS zoneName,
        pending != '{}' AS hasPendingChanges,
        NOT (created IS NOT NULL AND (deleted IS NULL OR created > deleted)) AS isDeleted,
        CAST(substr(max(coalesce(created, ''), coalesce(deleted, ''),
          coalesce((SELECT max(value) FROM json_each(hearth_sync_rows.times)), '')), 1, 15)
          AS INTEGER) AS userModificationTime,
        s.share IS NOT NULL AS isShared, s.share AS share
      FROM hearth_sync_rows
      LEFT JOIN hearth_sync_shares s ON s.zone = hearth_sync_rows.zone
        AND json_extract(s.share, '$.rootType') = tbl COLLATE NOCASE
        AND json_extract(s.share, '$.rootName') = pk;
    """

  /// Creates the tables (idempotent), and this database's hub id the first time.
  public static func prepare(_ db: Database) throws {
    try db.execute(sql: schema)
    try SyncShares.prepare(db)
    try db.execute(sql: pendingCounts)
    try db.execute(sql: SyncFiles.schema)
    try db.execute(sql: SyncReferences.schema)
    try db.execute(sql: "DROP VIEW IF EXISTS hearth_sync_metadata")
    try db.execute(sql: metadataView)
    if try value("hub", db) == nil {
      let id = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
      try setValue(String(id), for: "hub", db)
    }
  }

  public static func value(_ key: String, _ db: Database) throws -> String? {
    try String.fetchOne(db, sql: "SELECT value FROM \(state) WHERE key = ?", arguments: [key])
  }

  public static func setValue(_ value: String?, for key: String, _ db: Database) throws {
    if let value {
      try db.execute(
        sql: "INSERT OR REPLACE INTO \(state) (key, value) VALUES (?, ?)", arguments: [key, value])
    } else {
      try db.execute(sql: "DELETE FROM \(state) WHERE key = ?", arguments: [key])
    }
  }

  /// The names of the synced tables.
  public static func syncedTableNames(_ db: Database) throws -> [String] {
    try String.fetchAll(db, sql: "SELECT name FROM \(tables) ORDER BY name")
  }

  /// The synced tables as the schema has them now, parents before children (a table that
  /// was dropped is left out).
  public static func syncedTables(_ db: Database) throws -> [SyncedTable] {
    let references = try SyncReferences.all(db)
    let tables = try syncedTableNames(db).compactMap { name in
      try SyncedTable.read(name, db).map { table in
        references[table.name.lowercased()].map(table.linked) ?? table
      }
    }
    return SyncOrder.parentsFirst(tables)
  }

  /// How many rows have changes the server has not taken yet.
  public static func pendingCount(_ db: Database) throws -> Int {
    try Int.fetchOne(db, sql: "SELECT coalesce(sum(n), 0) FROM hearth_sync_pending") ?? 0
  }

  /// `pendingCount` by table, for the tables that have any.
  public static func pendingByTable(_ db: Database) throws -> [String: Int] {
    var counts: [String: Int] = [:]
    for row in try Row.fetchAll(
      db, sql: "SELECT tbl, n FROM hearth_sync_pending WHERE n > 0")
    {
      counts[try row["tbl"]] = try row["n"]
    }
    return counts
  }

  /// How many pulled records wait to be applied.
  public static func heldCount(_ db: Database) throws -> Int {
    try Int.fetchOne(db, sql: "SELECT count(*) FROM \(held)") ?? 0
  }
}

/// Tables ordered so that every table comes after those its foreign keys point to.
enum SyncOrder {
  static func parentsFirst(_ tables: [SyncedTable]) -> [SyncedTable] {
    var placed: [SyncedTable] = []
    var names = Set<String>()
    var rest = tables.sorted { $0.name < $1.name }
    while !rest.isEmpty {
      let ready = rest.filter { table in
        table.references.allSatisfy { parent in
          let parent = parent.lowercased()
          return names.contains(parent) || parent == table.name.lowercased()
            || !rest.contains { $0.name.lowercased() == parent }
        }
      }
      // A cycle: the rest in name order (a foreign-key failure then holds the child).
      let next = ready.isEmpty ? rest : ready
      placed += next
      names.formUnion(next.map { $0.name.lowercased() })
      rest.removeAll { table in next.contains(table) }
    }
    return placed
  }
}

extension SyncStore {
  /// Records every row of `table` as a change to push (all its columns, inserted now): what
  /// a table that starts to be synced owes the server.
  public static func stampExistingRows(of table: SyncedTable, _ db: Database) throws {
    let columns = table.columns.map { "\(sqlLiteral($0)), t" }.joined(separator: ", ")
    let times = table.columns.isEmpty ? "'{}'" : "json_object(\(columns))"
    try db.execute(
      sql: """
        INSERT OR IGNORE INTO \(rows) (tbl, pk, times, pending, created)
        SELECT ?, k, o, json_set(o, '$."$created"', t), t FROM (
          SELECT k, t, \(times) AS o FROM (
            SELECT CAST(\(quoteIdentifier(table.primaryKey)) AS TEXT) AS k, hearth_sync_now() AS t
            FROM main.\(quoteIdentifier(table.name))))
        """, arguments: [table.name])
  }

  /// Makes every row owe the server everything (and pulling start over), keeping the data:
  /// what `resync` does after a server lost its records, or to repair a doubt.
  public static func resync(_ db: Database) throws {
    try db.execute(
      sql: """
        UPDATE \(rows) SET pending = json_patch(json_patch(times,
          CASE WHEN created IS NULL THEN '{}' ELSE json_object('$created', created) END),
          CASE WHEN deleted IS NULL THEN '{}' ELSE json_object('$deleted', deleted) END)
        """)
    try setCursor(.start, db)
  }
}

extension SyncStore {
  public static let lastPushKey = "lastPush"

  /// The sequence number of the last push this hub has acknowledged (0 for none): it has
  /// what it pushed up to there, and need not pull it back.
  public static func lastPush(_ db: Database) throws -> Int64 {
    try value(lastPushKey, db).flatMap { Int64($0) } ?? 0
  }
}

extension SyncStore {
  /// Empties the synced tables here, children first, without telling the server (the
  /// capture off), and forgets what was pulled, so that the next pull brings everything
  /// back: what `deleteLocalData` does (an account left, a copy to drop).
  public static func deleteLocalData(capture: SyncCapture, _ db: Database) throws {
    try capture.mutingAll {
      for table in try syncedTables(db).reversed() {
        try db.execute(sql: "DELETE FROM main.\(quoteIdentifier(table.name))")
      }
    }
    try db.execute(sql: "DELETE FROM \(rows)")
    try db.execute(sql: "DELETE FROM \(held)")
    try setCursor(.start, db)
    // Nothing it pushed is here any more: the server sends all of it back.
    try setValue(nil, for: lastPushKey, db)
  }
}

extension SyncStore {
  /// Compares the account this hub syncs now with the one it synced before: the first one
  /// is remembered; another one pauses sync (`accountChange`, and `lastError` saying what to
  /// do) until `acceptAccount` or `deleteLocalData` says what becomes of this hub's rows —
  /// they are neither pushed to the new account nor replaced by its rows without a word.
  /// Returns whether sync is paused, and a message the first time.
  public static func checkAccount(_ account: String, _ db: Database) throws -> (
    paused: Bool, message: String?
  ) {
    guard let stored = try value("account", db) else {
      try setValue(account, for: "account", db)
      return (false, nil)
    }
    guard stored != account else { return (false, nil) }
    let isZoneDeleted = account == zoneDeleted(stored)
    let change = isZoneDeleted ? account : "\(stored) → \(account)"
    let message =
      isZoneDeleted
      ? "the sync zone was deleted on the server (\(stored)); nothing is deleted here, and "
        + "nothing pushed or pulled until this hub's rows are kept and pushed again (hearth "
        + "sync account keep, or a SyncEngine's acceptAccount()) or dropped (a SyncEngine's "
        + "deleteLocalData())"
      : "the sync account changed (\(change)); nothing is pushed or pulled until this hub's "
        + "rows are kept for the new account (hearth sync account keep, or a SyncEngine's "
        + "acceptAccount()) or dropped for its rows (a SyncEngine's deleteLocalData())"
    // Said again after a reconnection cleared the last error, logged once.
    if try value("lastError", db) != message { try setValue(message, for: "lastError", db) }
    guard try value("accountChange", db) != change else { return (true, nil) }
    try setValue(change, for: "accountChange", db)
    return (true, message)
  }

  /// What `accountChange` says when the zone of `account` was deleted on the server.
  public static func zoneDeleted(_ account: String) -> String {
    SyncingReply.zoneDeletedPrefix + account
  }

  /// Syncs with `account` from now on, clearing a change the hub waited on.
  public static func acceptAccount(_ account: String, _ db: Database) throws {
    try setValue(account, for: "account", db)
    try setValue(nil, for: "accountChange", db)
    try setValue(nil, for: "lastError", db)
  }
}
