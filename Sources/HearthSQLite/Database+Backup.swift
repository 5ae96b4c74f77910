import CSQLite

/// How far an online backup has come.
public struct BackupProgress: Hashable, Sendable {
  /// Pages still to copy.
  public var remainingPageCount: Int
  /// Pages in the source database.
  public var totalPageCount: Int

  /// Pages copied so far.
  public var completedPageCount: Int { totalPageCount - remainingPageCount }

  /// Whether the copy is done.
  public var isCompleted: Bool { remainingPageCount == 0 }
}

extension Database {
  /// Copies this database into `destination` with SQLite's online backup API.
  ///
  /// `pagesPerStep` pages are copied between calls to `progress` (-1: all at once); a
  /// `progress` that throws stops the backup. The destination must not be in a transaction.
  public func backup(
    to destination: Database, pagesPerStep: Int = -1,
    progress: ((BackupProgress) throws -> Void)? = nil
  ) throws {
    try checkLocal()
    try destination.checkLocal()
    guard
      let backup = sqlite3_backup_init(
        destination.sqliteConnection, "main", sqliteConnection, "main")
    else {
      throw destination.error(code: sqlite3_errcode(destination.sqliteConnection), sql: nil)
    }
    var finished = false
    defer { if !finished { sqlite3_backup_finish(backup) } }
    while true {
      let code = sqlite3_backup_step(backup, Int32(pagesPerStep))
      switch code {
      case SQLITE_OK, SQLITE_BUSY, SQLITE_LOCKED, SQLITE_DONE:
        try progress?(
          BackupProgress(
            remainingPageCount: Int(sqlite3_backup_remaining(backup)),
            totalPageCount: Int(sqlite3_backup_pagecount(backup))))
        if code == SQLITE_DONE {
          finished = true
          let result = sqlite3_backup_finish(backup)
          guard result == SQLITE_OK else { throw destination.error(code: result, sql: nil) }
          return
        }
        if code != SQLITE_OK { sqlite3_sleep(10) }
      default:
        finished = true
        sqlite3_backup_finish(backup)
        throw destination.error(code: code, sql: nil)
      }
    }
  }

  /// The messages of `PRAGMA integrity_check`: `["ok"]` for a sound database.
  public func integrityCheck() throws -> [String] {
    try String.fetchAll(self, sql: "PRAGMA integrity_check")
  }

  /// Throws `SQLITE_CORRUPT`, with SQLite's findings as the message, unless the database
  /// passes `PRAGMA integrity_check` and `PRAGMA foreign_key_check`.
  public func checkIntegrity() throws {
    let messages = try integrityCheck()
    guard messages == ["ok"] else {
      throw DatabaseError(
        resultCode: .SQLITE_CORRUPT, message: messages.joined(separator: "; "),
        sql: "PRAGMA integrity_check")
    }
    try checkForeignKeys()
  }

  /// Throws `SQLITE_CONSTRAINT_FOREIGNKEY` naming the first rows that break a foreign key.
  public func checkForeignKeys() throws {
    let violations = try Row.fetchAll(self, sql: "PRAGMA foreign_key_check")
    guard violations.isEmpty else {
      let described = try violations.prefix(5).map { row -> String in
        let table: String = try row[0]
        let rowID: Int64? = try row[1]
        let parent: String = try row[2]
        return "\(table) row \(rowID.map(String.init) ?? "?") refers to a missing \(parent) row"
      }
      throw DatabaseError(
        resultCode: .SQLITE_CONSTRAINT_FOREIGNKEY,
        message: "FOREIGN KEY constraint violated: " + described.joined(separator: "; "),
        sql: "PRAGMA foreign_key_check")
    }
  }
}

extension DatabaseReader {
  /// Copies a consistent snapshot of this database into `destination`, while writers go on.
  ///
  /// ```swift
  /// try dbPool.backup(to: DatabaseQueue(path: "/backups/db.sqlite"))
  /// ```
  public func backup(
    to destination: some DatabaseWriter, pagesPerStep: Int = -1,
    progress: ((BackupProgress) throws -> Void)? = nil
  ) throws {
    try read { source in
      try destination.writeWithoutTransaction { target in
        try source.backup(to: target, pagesPerStep: pagesPerStep, progress: progress)
      }
    }
  }

  /// Backs up into a new file at `path` (replacing any database there).
  public func backup(
    toPath path: String, pagesPerStep: Int = -1, progress: ((BackupProgress) throws -> Void)? = nil
  ) throws {
    var configuration = Configuration()
    configuration.label = "backup"
    try backup(
      to: DatabaseQueue(path: path, configuration: configuration), pagesPerStep: pagesPerStep,
      progress: progress)
  }
}
