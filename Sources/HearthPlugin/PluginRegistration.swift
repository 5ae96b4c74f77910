import Foundation
import HearthData
import HearthWire

/// What a plugin tells the hub about itself when it starts.
public struct PluginRegistration: Sendable {
  public var name: String
  public var version: String
  /// The tables the plugin owns, by name: the only ones it may write.
  public var tables: [String]
  public var migrations: [RegisterRequest.Migration]

  public init(
    name: String, version: String, tables: [String], migrations: [RegisterRequest.Migration]
  ) {
    self.name = name
    self.version = version
    self.tables = tables
    self.migrations = migrations
  }

  /// The reference's way: the `@Table` types the plugin owns (their names are the types'),
  /// tables without a type by name (a full-text table, say), and its migrations written as
  /// for a local database:
  ///
  /// ```swift
  /// let registration = try PluginRegistration(
  ///   name: "reminders", version: "1.0",
  ///   tables: [Reminder.self, RemindersList.self, Tag.self], extraTables: ["reminderTexts"],
  ///   migrator: migrator)
  /// ```
  public init(
    name: String, version: String, tables: [any Table.Type], extraTables: [String] = [],
    migrator: DatabaseMigrator
  ) throws {
    try self.init(
      name: name, version: version, tables: tables.map { $0.tableName } + extraTables,
      migrator: migrator)
  }

  /// Migrations written as for a local database, with a `DatabaseMigrator`: each migration
  /// is run once against a recorder and its statements are sent to the hub, which applies
  /// the pending ones. A migration must only execute statements (its reads see nothing).
  public init(name: String, version: String, tables: [String], migrator: DatabaseMigrator) throws {
    var migrations: [RegisterRequest.Migration] = []
    try migrator.forEachMigration { identifier, migrate in
      let recorder = StatementRecorder()
      try migrate(Database(executor: recorder, description: "migration \(identifier)"))
      migrations.append(.init(id: identifier, sql: recorder.script))
    }
    self.init(name: name, version: version, tables: tables, migrations: migrations)
  }
}

/// Records statements instead of running them.
private final class StatementRecorder: RemoteStatementExecutor {
  var statements: [String] = []

  var script: String {
    statements.map { $0.hasSuffix(";") ? $0 : $0 + ";" }.joined(separator: "\n")
  }

  func execute(sql: String, arguments: StatementArguments, needsRows: Bool) throws
    -> StatementResult
  {
    guard arguments.isEmpty else {
      throw DatabaseError(
        resultCode: .SQLITE_MISUSE,
        message: "a migration sent to the hub cannot bind values; write them in the SQL", sql: sql)
    }
    statements.append(sql)
    return StatementResult()
  }
}
