import Foundation
import HearthSQLite
import HearthWire

/// Registration: a plugin's name, version and tables, and its pending migrations, applied in
/// one numbered commit (a schema change the feed announces). Runs on the writer.
enum Registrar {
  /// Registers `request`'s plugin (checked by `WireRequest.parse`): claims its tables (none
  /// of another plugin's), applies the migrations it has not applied yet under the migration
  /// policy, checks the foreign keys, and records the feed entry `seq` — all or nothing.
  static func register(
    _ request: RegisterRequest, feed: ChangeFeed, sync: HubSync, seq: Int64, at now: Int64,
    _ db: Database
  ) -> Result<(RegisteredReply, ChangeFeed.PublishedCommit?), ErrorReply> {
    do {
      if let conflict = try HubStore.tableConflict(
        claiming: request.tables, for: request.plugin, db)
      {
        return .failure(
          ErrorReply(
            id: request.id, code: .unauthorized,
            message: "table \(conflict.table) belongs to plugin \(conflict.owner)"))
      }
      try db.beginTransaction(.immediate)
      try HubStore.recordPlugin(request.plugin, version: request.version, at: now, db)
      try HubStore.claim(request.tables, for: request.plugin, db)
      let policy = PluginPolicy(
        plugin: request.plugin, ownedTables: try HubStore.ownedTables(of: request.plugin, db),
        mode: .migration)
      let applied = try applyMigrations(request, policy: policy, at: now, db)
      try db.checkForeignKeys()
      // The sync capture follows the migrated tables, in the same commit (with what was
      // held for columns that now exist).
      if !applied.isEmpty { try sync.schemaChanged(db) }
      let event = try feed.recordEntry(
        db.pendingChanges, plugin: request.plugin, request: request.id, seq: seq, at: now, db)
      try db.commit()
      let reply = RegisteredReply(
        id: request.id, plugin: request.plugin, applied: applied,
        seq: event == nil ? seq - 1 : seq)
      return .success((reply, event))
    } catch let refusal as ErrorReply {
      try? db.rollback()
      return .failure(refusal)
    } catch let error as DatabaseError {
      try? db.rollback()
      return .failure(
        ErrorReply(
          id: request.id, code: .migrationFailed,
          message: "registration of \(request.plugin) failed: \(error.message ?? "\(error)")"))
    } catch {
      try? db.rollback()
      return .failure(ErrorReply(id: request.id, code: .internal, message: "\(error)"))
    }
  }

  /// Runs the migrations of `request` not applied before, in order, and records them; throws
  /// the refusal (`unauthorized`, or `migrationFailed` with SQLite's codes) of the first that
  /// fails, or of one that leaves a table the plugin does not own (a rename's new name is
  /// not the authorizer's to see; a `new_` table must be renamed to its table by the end).
  /// Returns the identifiers applied.
  static func applyMigrations(
    _ request: RegisterRequest, policy: PluginPolicy, at now: Int64, _ db: Database
  ) throws -> [String] {
    let done = try HubTables.appliedMigrations(of: request.plugin, db)
    let tablesBefore = try tableNames(db)
    let owner = PluginPolicy(
      plugin: policy.plugin, ownedTables: policy.ownedTables, mode: .transaction)
    var applied: [String] = []
    for migration in request.migrations where !done.contains(migration.id) {
      do {
        try policy.enforce(on: db) { try db.execute(sql: migration.sql) }
      } catch let failure as PluginPolicy.Failure {
        throw ErrorReply(
          id: request.id, code: failure.isRefused ? .unauthorized : .migrationFailed,
          message: "migration \(migration.id) of \(request.plugin) failed: \(failure.reason)",
          sqlite: .init(failure.error))
      }
      if let stray = try tableNames(db).subtracting(tablesBefore).sorted()
        .first(where: { !owner.owns($0) })
      {
        throw ErrorReply(
          id: request.id, code: .unauthorized,
          message: "migration \(migration.id) of \(request.plugin) left table \(stray), "
            + "which is not one of its tables")
      }
      try HubStore.recordMigration(migration.id, of: request.plugin, at: now, db)
      applied.append(migration.id)
    }
    return applied
  }

  /// Every table and view of the schema but SQLite's own, lower-cased.
  private static func tableNames(_ db: Database) throws -> Set<String> {
    Set(
      try String.fetchAll(
        db,
        sql: "SELECT lower(name) FROM sqlite_schema WHERE type IN ('table', 'view') "
          + "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"))
  }
}

extension ErrorReply.SQLiteCodes {
  init(_ error: DatabaseError) {
    self.init(code: error.resultCode.rawValue, extended: error.extendedResultCode.rawValue)
  }
}
