import Foundation
import HearthSQLite

/// The hub's own tables, as its clients may read them from the database file: their names
/// and the reads the clients make, in one place (`Protocols/README.md`, "The hub's tables").
/// The hub writes them; it reads its feed through these same functions, so a client and the
/// hub never disagree on, say, what the current sequence number is.
public enum HubTables {
  /// What every hub table's name starts with; plugins may not declare such tables.
  public static let prefix = "hearth_"
  /// `key, value`: the hub format (`format`) and the sequence number saved when pruning
  /// (`lastSeq`).
  public static let meta = "hearth_meta"
  /// `name, version, registeredAt`.
  public static let plugins = "hearth_plugins"
  /// `name, plugin`: which plugin owns which table (names compared without case).
  public static let tables = "hearth_tables"
  /// `plugin, identifier, appliedAt`.
  public static let pluginMigrations = "hearth_plugin_migrations"
  /// `seq, at, plugin, request, event`: the change feed, `event` a `commit` message's JSON.
  public static let commits = "hearth_commits"
  /// `plugin, seq, at`: how far each plugin has read the feed.
  public static let cursors = "hearth_cursors"
  /// `id, plugin, seq, reply, at`: the exactly-once records.
  public static let requests = "hearth_requests"
  /// `name, plugin, addedAt`: the tables the hub syncs (see Protocols, "Sync").
  public static let syncedTables = "hearth_sync_tables"

  /// The last committed sequence number: the feed's newest entry, or the number saved when
  /// pruning emptied the feed (a commit does not write `lastSeq`: one page less per COMMIT).
  public static func lastSequence(_ db: Database) throws -> Int64 {
    let saved =
      Int64(try String.fetchOne(db, sql: "SELECT value FROM \(meta) WHERE key = 'lastSeq'") ?? "0")
      ?? 0
    return max(saved, try Int64.fetchOne(db, sql: "SELECT max(seq) FROM \(commits)") ?? 0)
  }

  /// The oldest sequence number the feed still holds (`last + 1` when it is empty).
  public static func horizon(_ db: Database, last: Int64) throws -> Int64 {
    try Int64.fetchOne(db, sql: "SELECT min(seq) FROM \(commits)") ?? (last + 1)
  }

  /// The feed's commits after `seq` (up to `through`, at most `limit`), in order, as the JSON
  /// the hub recorded.
  public static func encodedCommits(
    after seq: Int64, through: Int64 = .max, limit: Int = .max, _ db: Database
  ) throws -> [String] {
    try String.fetchAll(
      db, sql: "SELECT event FROM \(commits) WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?",
      arguments: [seq, through, Int64(clamping: limit)])
  }

  /// The feed's commits after `seq` (up to `through`, at most `limit`), in order.
  public static func commits(
    after seq: Int64, through: Int64 = .max, limit: Int = .max, _ db: Database
  ) throws -> [CommitEvent] {
    try encodedCommits(after: seq, through: through, limit: limit, db).map {
      try WireCoding.decode(CommitEvent.self, from: Data($0.utf8))
    }
  }

  /// A registered plugin, as `hearth plugins` lists it.
  public struct Plugin: Hashable, Sendable {
    public var name: String
    public var version: String
    /// The tables it owns, sorted.
    public var tables: [String]
    /// The last sequence number it reported having read, if it has.
    public var cursor: Int64?
  }

  /// The registered plugins, by name.
  public static func registeredPlugins(_ db: Database) throws -> [Plugin] {
    try Row.fetchAll(
      db,
      sql: """
        SELECT p.name, p.version,
          (SELECT json_group_array(name) FROM (SELECT name FROM \(tables) t
            WHERE t.plugin = p.name ORDER BY name)) AS owned,
          (SELECT seq FROM \(cursors) c WHERE c.plugin = p.name) AS cursor
        FROM \(plugins) p ORDER BY p.name
        """
    ).map { row in
      let owned: String = try row["owned"]
      return Plugin(
        name: try row["name"], version: try row["version"],
        tables: try WireCoding.decode([String].self, from: Data(owned.utf8)),
        cursor: try row["cursor"])
    }
  }

  /// Whether `plugin` has registered.
  public static func isRegistered(_ plugin: String, _ db: Database) throws -> Bool {
    try Int.fetchOne(db, sql: "SELECT 1 FROM \(plugins) WHERE name = ?", arguments: [plugin])
      != nil
  }

  /// The identifiers of `plugin`'s migrations the hub has applied.
  public static func appliedMigrations(of plugin: String, _ db: Database) throws -> Set<String> {
    try String.fetchSet(
      db, sql: "SELECT identifier FROM \(pluginMigrations) WHERE plugin = ?", arguments: [plugin])
  }
}
