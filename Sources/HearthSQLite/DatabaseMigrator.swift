/// Applies an ordered list of named migrations, each once, each in its own transaction.
///
/// ```swift
/// var migrator = DatabaseMigrator()
/// migrator.registerMigration("Create players") { db in
///   try db.execute(sql: "CREATE TABLE players (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
/// }
/// try migrator.migrate(dbQueue)
/// ```
///
/// Applied migrations are recorded in the `hearth_migrations` table. After each migration
/// the foreign keys are checked; a migration that leaves a dangling reference is rolled back.
public struct DatabaseMigrator: Sendable {
  /// How a migration treats foreign keys.
  public enum ForeignKeyChecks: Sendable {
    /// Turned off while the migration runs (so tables can be rebuilt), checked before its
    /// COMMIT. The default.
    case deferred
    /// Left on: every statement is checked as it runs.
    case immediate
  }

  struct Migration: Sendable {
    var identifier: String
    var foreignKeyChecks: ForeignKeyChecks
    var migrate: @Sendable (Database) throws -> Void
  }

  /// When the applied migrations no longer produce the database's schema (a migration was
  /// edited while developing), erase the database and migrate from scratch. For development
  /// only: it deletes data.
  public var eraseDatabaseOnSchemaChange = false

  private var registered: [Migration] = []

  /// The table that records applied migrations.
  public static let migrationsTable = "hearth_migrations"

  public init() {}

  /// The identifiers of the registered migrations, in order.
  public var migrations: [String] { registered.map(\.identifier) }

  /// Each registered migration, in order: how a plugin turns its migrator into the SQL it
  /// sends the hub.
  public func forEachMigration(
    _ body: (_ identifier: String, _ migrate: @Sendable (Database) throws -> Void) throws -> Void
  ) rethrows {
    for migration in registered { try body(migration.identifier, migration.migrate) }
  }

  /// Registers a migration after the ones already registered.
  public mutating func registerMigration(
    _ identifier: String, foreignKeyChecks: ForeignKeyChecks = .deferred,
    migrate: @escaping @Sendable (Database) throws -> Void
  ) {
    precondition(
      !registered.contains { $0.identifier == identifier },
      "migration \"\(identifier)\" is already registered")
    registered.append(
      Migration(identifier: identifier, foreignKeyChecks: foreignKeyChecks, migrate: migrate))
  }

  /// Applies every registered migration not yet applied.
  public func migrate(_ writer: any DatabaseWriter) throws {
    try migrate(writer, upToIndex: registered.count)
  }

  /// Applies the registered migrations up to and including `targetIdentifier`.
  public func migrate(_ writer: any DatabaseWriter, upTo targetIdentifier: String) throws {
    guard let index = registered.firstIndex(where: { $0.identifier == targetIdentifier }) else {
      throw DatabaseError(
        resultCode: .SQLITE_MISUSE, message: "no migration named \"\(targetIdentifier)\"")
    }
    try migrate(writer, upToIndex: index + 1)
  }

  private func migrate(_ writer: any DatabaseWriter, upToIndex end: Int) throws {
    if eraseDatabaseOnSchemaChange, try needsErase(writer) {
      try writer.writeWithoutTransaction { try Self.erase($0) }
    }
    try writer.writeWithoutTransaction { db in
      try createMigrationsTable(db)
      let applied = try appliedIdentifiers(db)
      let unknown = applied.subtracting(migrations)
      guard unknown.isEmpty else {
        throw DatabaseError(
          resultCode: .SQLITE_ERROR,
          message: "the database has migrations this program does not know "
            + "(\(unknown.sorted().joined(separator: ", "))): it was written by a newer version")
      }
      for migration in registered[..<end] where !applied.contains(migration.identifier) {
        try apply(migration, in: db)
      }
    }
  }

  private func apply(_ migration: Migration, in db: Database) throws {
    let disableForeignKeys =
      migration.foreignKeyChecks == .deferred && db.configuration.foreignKeysEnabled
    if disableForeignKeys { try db.execute(sql: "PRAGMA foreign_keys = OFF") }
    defer { if disableForeignKeys { try? db.execute(sql: "PRAGMA foreign_keys = ON") } }
    do {
      try db.inTransaction(.immediate) {
        try migration.migrate(db)
        if db.configuration.foreignKeysEnabled { try db.checkForeignKeys() }
        try db.execute(
          sql: "INSERT INTO \(Self.migrationsTable) (identifier) VALUES (?)",
          arguments: [migration.identifier])
        return .commit
      }
    } catch var error as DatabaseError {
      error.message = "migration \"\(migration.identifier)\" failed: \(error.message ?? "")"
      throw error
    }
  }

  private func createMigrationsTable(_ db: Database) throws {
    try db.execute(
      sql:
        "CREATE TABLE IF NOT EXISTS \(Self.migrationsTable) (identifier TEXT NOT NULL PRIMARY KEY)"
    )
  }

  // MARK: - What has been applied

  /// Every identifier recorded as applied, registered or not.
  public func appliedIdentifiers(_ db: Database) throws -> Set<String> {
    guard try db.tableExists(Self.migrationsTable) else { return [] }
    return try String.fetchSet(db, sql: "SELECT identifier FROM \(Self.migrationsTable)")
  }

  /// The registered migrations that have been applied, in registration order.
  public func appliedMigrations(_ db: Database) throws -> [String] {
    let applied = try appliedIdentifiers(db)
    return migrations.filter(applied.contains)
  }

  /// The registered migrations applied without a gap from the first one, in order.
  public func completedMigrations(_ db: Database) throws -> [String] {
    let applied = try appliedIdentifiers(db)
    return Array(migrations.prefix(while: applied.contains))
  }

  /// Whether every registered migration has been applied.
  public func hasCompletedMigrations(_ db: Database) throws -> Bool {
    try completedMigrations(db).count == registered.count
  }

  /// Whether the database has applied migrations that are not registered here.
  public func hasBeenSuperseded(_ db: Database) throws -> Bool {
    try !appliedIdentifiers(db).isSubset(of: migrations)
  }

  // MARK: - Erasing on schema change

  private func needsErase(_ writer: any DatabaseWriter) throws -> Bool {
    let (applied, schema) = try writer.read { db in
      (try appliedIdentifiers(db), try Self.schema(db))
    }
    guard applied.isSubset(of: migrations) else { return true }
    let reference = try DatabaseQueue()
    try reference.writeWithoutTransaction { db in
      try createMigrationsTable(db)
      for migration in registered where applied.contains(migration.identifier) {
        try apply(migration, in: db)
      }
    }
    let expected = try reference.read { try Self.schema($0) }
    return schema != expected
  }

  private static func schema(_ db: Database) throws -> [[String]] {
    try Row.fetchAll(
      db,
      sql: """
        SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_master
        WHERE name NOT LIKE 'sqlite_%' AND tbl_name <> ? ORDER BY type, name
        """, arguments: [migrationsTable]
    ).map { row in try (0..<4).map { try row[$0] as String } }
  }

  /// Drops every table, view, index and trigger.
  static func erase(_ db: Database) throws {
    try db.execute(sql: "PRAGMA foreign_keys = OFF")
    defer {
      try? db.execute(
        sql: "PRAGMA foreign_keys = \(db.configuration.foreignKeysEnabled ? "ON" : "OFF")")
    }
    try db.inTransaction(.immediate) {
      let objects = try Row.fetchAll(
        db,
        sql: """
          SELECT type, name FROM sqlite_master
          WHERE name NOT LIKE 'sqlite_%' AND type IN ('table', 'view', 'trigger')
          """)
      for object in objects {
        let type: String = try object[0]
        let name: String = try object[1]
        try db.execute(sql: "DROP \(type.uppercased()) IF EXISTS \(quoteIdentifier(name))")
      }
      return .commit
    }
  }
}

/// `name` as a SQL identifier: in double quotes, inner quotes doubled.
public func quoteIdentifier(_ name: String) -> String {
  "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

extension Database {
  /// Whether a table (or view) of that name exists in the main schema.
  public func tableExists(_ name: String) throws -> Bool {
    try Int.fetchOne(
      self,
      sql:
        "SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE",
      arguments: [name]) != nil
  }
}
