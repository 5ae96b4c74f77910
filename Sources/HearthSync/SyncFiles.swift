import Foundation
import HearthSQLite
import HearthWire

/// The files that travel with synced rows: a file column is a synced table's TEXT column
/// whose value is the SHA-256 (hex) of a file in its plugin's directory
/// (`plugins/NAME/ab/abcdef…`, as `HubPaths.filesDirectory(ofPlugin:)` says) — the
/// attachments' images. A pushed row's file goes to the server first (once per content: a
/// file the server has is only linked to the row's zone); a pulled row's missing file is
/// queued and fetched, checked against its name, and written whole (a temporary name,
/// then renamed), so that until it comes the row names a file that is not there yet.
///
/// - `hearth_sync_files(tbl, col, plugin)`: the file columns.
/// - `hearth_sync_fetches(digest, plugin)`: files named by pulled rows and not here yet.
public enum SyncFiles {
  static let schema = """
    CREATE TABLE IF NOT EXISTS hearth_sync_files (
      tbl TEXT NOT NULL COLLATE NOCASE, col TEXT NOT NULL COLLATE NOCASE, plugin TEXT NOT NULL,
      PRIMARY KEY (tbl, col)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS hearth_sync_fetches (
      digest TEXT NOT NULL, plugin TEXT NOT NULL, PRIMARY KEY (digest, plugin)) WITHOUT ROWID;
    """

  /// One file column.
  public struct Column: Hashable, Sendable {
    public var table: String
    public var column: String
    public var plugin: String
  }

  /// The file columns, by lowercased table name.
  public static func columns(_ db: Database) throws -> [String: [Column]] {
    let rows = try Row.fetchAll(db, sql: "SELECT tbl, col, plugin FROM hearth_sync_files")
    return try Dictionary(
      grouping: rows.map {
        Column(table: try $0["tbl"], column: try $0["col"], plugin: try $0["plugin"])
      },
      by: { $0.table.lowercased() })
  }

  /// Declares `names` (`table.column`, of tables `plugin` syncs) file columns.
  public static func declare(
    _ names: [String], plugin: String, tables: [SyncedTable], _ db: Database
  )
    throws
  {
    for name in names {
      let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
      guard parts.count == 2,
        let table = tables.first(where: { $0.name.lowercased() == parts[0].lowercased() }),
        table.columns.contains(where: { $0.lowercased() == parts[1].lowercased() })
      else {
        throw SyncSchemaError(
          table: parts.first ?? name,
          problem: "\(name) is not a column of a table this plugin syncs (a file column is "
            + "TABLE.COLUMN)")
      }
      try db.execute(
        sql: "INSERT OR REPLACE INTO hearth_sync_files (tbl, col, plugin) VALUES (?, ?, ?)",
        arguments: [table.name, parts[1], plugin])
    }
  }

  /// Whether `names` are declared already.
  public static func areDeclared(_ names: [String], _ db: Database) throws -> Bool {
    let known = Set(
      try Row.fetchAll(db, sql: "SELECT tbl, col FROM hearth_sync_files").map {
        "\(try $0["tbl"] as String).\(try $0["col"] as String)".lowercased()
      })
    return names.allSatisfy { known.contains($0.lowercased()) }
  }

  /// The files `records` name in file columns, with their plugins.
  static func named(in records: [SyncRecord], columns: [String: [Column]]) -> [(
    digest: String, plugin: String
  )] {
    var found: [(digest: String, plugin: String)] = []
    for record in records {
      for column in columns[record.type.lowercased()] ?? [] {
        guard case .text(let digest)? = record.fields[column.column]?.value.storage,
          SHA256.isDigest(digest), !found.contains(where: { $0.digest == digest })
        else { continue }
        found.append((digest, column.plugin))
      }
    }
    return found
  }

  /// Where file `digest` of `plugin` lives beside the hub's database at `databasePath`.
  public static func path(_ digest: String, plugin: String, databasePath: String) -> String {
    HubPaths(databasePath: databasePath, runtimeDirectory: "").filesDirectory(ofPlugin: plugin)
      + "/\(digest.prefix(2))/\(digest)"
  }

  /// The file, when it is here and whole. Mapped, not copied: a file under its digest is
  /// never changed, only replaced whole by rename.
  static func read(_ digest: String, plugin: String, databasePath: String) -> Data? {
    let url = URL(fileURLWithPath: path(digest, plugin: plugin, databasePath: databasePath))
    guard let data = try? Data(contentsOf: url, options: .alwaysMapped),
      SHA256.hex(data) == digest
    else { return nil }
    return data
  }

  /// Writes file `digest` whole and durably (`DurableFile`), so that a hub that then
  /// records the file as fetched never holds a name without its bytes after a crash.
  static func write(_ data: Data, digest: String, plugin: String, databasePath: String) throws {
    try DurableFile.write(
      data, to: URL(fileURLWithPath: path(digest, plugin: plugin, databasePath: databasePath)))
  }

  /// Queues the files `records` name that are not here.
  public static func queueMissing(_ records: [SyncRecord], databasePath: String, _ db: Database)
    throws
  {
    guard !records.isEmpty else { return }
    let columns = try columns(db)
    guard !columns.isEmpty else { return }
    for (digest, plugin) in named(in: records, columns: columns)
    where !FileManager.default.fileExists(
      atPath: path(digest, plugin: plugin, databasePath: databasePath))
    {
      try db.execute(
        sql: "INSERT OR IGNORE INTO hearth_sync_fetches (digest, plugin) VALUES (?, ?)",
        arguments: [digest, plugin])
    }
  }

  /// Queues every file the rows of the file columns name that is not here: when a column
  /// becomes a file column (its rows may have come before).
  public static func queueAllMissing(databasePath: String, _ db: Database) throws {
    for column in try columns(db).values.joined() {
      let digests = try String.fetchAll(
        db,
        sql:
          "SELECT DISTINCT \(quoteIdentifier(column.column)) FROM main.\(quoteIdentifier(column.table)) "
          + "WHERE \(quoteIdentifier(column.column)) IS NOT NULL")
      let records = digests.map { digest in
        SyncRecord(
          type: column.table, name: "",
          fields: [column.column: WireValue(DatabaseValue(storage: .text(digest)))])
      }
      try queueMissing(records, databasePath: databasePath, db)
    }
  }

  /// The files waiting to be fetched.
  public static func queued(_ db: Database) throws -> [(digest: String, plugin: String)] {
    try Row.fetchAll(db, sql: "SELECT digest, plugin FROM hearth_sync_fetches ORDER BY digest")
      .map { (try $0["digest"], try $0["plugin"]) }
  }

  static func fetched(_ digest: String, plugin: String, _ db: Database) throws {
    try db.execute(
      sql: "DELETE FROM hearth_sync_fetches WHERE digest = ? AND plugin = ?",
      arguments: [digest, plugin])
  }
}
