import HearthSQLite
import HearthSync

/// What a plugin's statements may do, checked by SQLite's authorizer while each statement is
/// prepared (triggers included):
/// - read any table;
/// - write only the tables it owns;
/// - change the schema only in its migrations, and only of its own tables (never temporary
///   objects: they would live on in the hub's connection);
/// - never ATTACH/DETACH, `load_extension`, open or end transactions, or set pragmas (the
///   schema-inspecting ones may be read, `PRAGMA table_info(t)` and `pragma_table_info('t')`).
struct PluginPolicy {
  enum Mode {
    /// Statements of a write transaction.
    case transaction
    /// A migration of the plugin's registration.
    case migration
  }

  let plugin: String
  /// Lower-cased names of the tables the plugin owns.
  let ownedTables: Set<String>
  let mode: Mode
  /// Read-only pragmas a plugin may run (to inspect the schema), with an argument that names
  /// what to inspect (`PRAGMA table_info(notes)`) or without one.
  static let inspectingPragmas: Set<String> = [
    "table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list",
    "foreign_key_check", "integrity_check", "quick_check",
  ]
  /// Pragmas a plugin may only read: with an argument they would set something.
  static let readOnlyPragmas: Set<String> = ["user_version", "data_version", "schema_version"]

  /// Names this policy exactly (plugin, mode, tables), for the statement cache.
  let scope: String

  init(plugin: String, ownedTables: Set<String>, mode: Mode) {
    self.plugin = plugin
    self.ownedTables = ownedTables
    self.mode = mode
    scope =
      "\(plugin)|\(mode == .migration ? "migration" : "transaction")|"
      + ownedTables.sorted().joined(separator: ",")
  }

  /// The tables SQLite's FTS5 keeps beside a full-text table `t` (`t_data`, `t_idx`…),
  /// which it writes itself whenever `t` is written or created.
  static let shadowSuffixes = ["_data", "_idx", "_content", "_docsize", "_config"]

  /// The prefix of the table a migration rebuilds one of its tables into (SQLite's way of
  /// changing a column's type or key: fill `new_t` from `t`, drop `t`, rename `new_t` to `t`).
  static let rebuildPrefix = "new_"

  /// Whether the plugin owns `table` (lower-cased): one of its tables, a shadow table of
  /// one of its full-text tables, or, in a migration, the `new_` table one of its tables is
  /// rebuilt into.
  func owns(_ table: String) -> Bool {
    if mode == .migration, table.hasPrefix(Self.rebuildPrefix),
      ownedTables.contains(String(table.dropFirst(Self.rebuildPrefix.count)))
    {
      return true
    }
    return ownedTables.contains(table)
      || Self.shadowSuffixes.contains {
        table.hasSuffix($0) && ownedTables.contains(String(table.dropLast($0.count)))
      }
  }

  /// The reason an action is refused, or nil when it is allowed.
  func refusal(of action: DatabaseAction) -> String? {
    switch action.kind {
    case .read, .select, .recursive, .savepoint:
      return nil
    case .insert, .update, .delete:
      guard let table = action.first?.lowercased() else { return nil }
      if table.hasPrefix("sqlite_") {
        // SQLite's own bookkeeping: sqlite_sequence, the schema table in migrations, and the
        // update of the schema table SQLite asks about when a table-valued pragma
        // (`pragma_table_info('t')`) is first used. (A statement's own write to the schema
        // table SQLite refuses before asking: writable_schema is off, and stays off.)
        let isSchemaTable = table == "sqlite_master" || table == "sqlite_schema"
        return mode == .migration || table == "sqlite_sequence"
          || (action.kind == .update && isSchemaTable)
          ? nil : "plugin \(plugin) may not write \(table)"
      }
      // The sync service's capture: the temporary triggers the hub puts on synced tables,
      // and the hub's triggers that count the rows with pending changes (a plugin can make
      // no temporary trigger, nor any trigger of that name).
      if table == SyncStore.rows || table == SyncStore.pendingCountsTable,
        action.source?.hasPrefix(SyncCapture.triggerPrefix) == true
      {
        return nil
      }
      return owns(table) ? nil : "plugin \(plugin) does not own table \(table)"
    case .schema(let temporary):
      guard mode == .migration else {
        return "plugin \(plugin) may change the schema only in its migrations"
      }
      if temporary { return "temporary schema objects are not allowed in the hub" }
      if action.isTriggerCreation, action.first?.lowercased().hasPrefix("hearth_") == true {
        return "trigger names beginning with hearth_ are the hub's"
      }
      guard let table = action.schemaTable?.lowercased() else { return nil }
      // SQLite's own tables (sqlite_sequence, made by the first AUTOINCREMENT table).
      if table.hasPrefix("sqlite_") { return nil }
      return owns(table)
        ? nil
        : "plugin \(plugin) may not change the schema of \(table): it is not one of its tables"
    case .function:
      let name = (action.second ?? action.first ?? "").lowercased()
      return name == "load_extension" ? "load_extension is not allowed" : nil
    case .pragma:
      let name = (action.first ?? "").lowercased()
      if Self.inspectingPragmas.contains(name) { return nil }
      if action.second == nil, Self.readOnlyPragmas.contains(name) { return nil }
      return Self.readOnlyPragmas.contains(name)
        ? "pragma \(name) may be read, not set" : "pragma \(name) is not allowed"
    case .attach, .detach:
      return "ATTACH and DETACH are not allowed"
    case .transaction:
      return "transactions are opened and ended by the hub"
    case .analyze, .reindex:
      return mode == .migration ? nil : "ANALYZE and REINDEX belong in migrations"
    case .other:
      return "this statement is not allowed"
    }
  }
}
