import Foundation

// GRDB's record protocols, as sqlite-data's migration articles show them: a type that saves
// itself (`MutablePersistableRecord`, `PersistableRecord`) and reads itself from a row
// (`FetchableRecord`), by its `Codable` conformance, in the table `TableRecord` names. The
// query language (`@Table`) is Hearth's way; these serve code written before it.

/// A type stored in one table.
public protocol TableRecord {
  /// The table: by default the type's name with its first letter lowercased (`Reminder` →
  /// `"reminder"`), as GRDB names it.
  static var databaseTableName: String { get }
}

extension TableRecord {
  public static var databaseTableName: String {
    let name = String(describing: Self.self)
    return name.prefix(1).lowercased() + name.dropFirst()
  }
}

/// A record's columns and values, in order: what an insert or an update writes.
public struct PersistenceContainer: Sendable {
  public private(set) var columns: [String] = []
  public private(set) var values: [DatabaseValue] = []

  public init() {}

  /// The value of a column, set by name: `container["title"] = title`.
  public subscript(_ column: String) -> DatabaseValue? {
    get { columns.firstIndex(of: column).map { values[$0] } }
    set {
      let value = newValue ?? .null
      if let index = columns.firstIndex(of: column) {
        values[index] = value
      } else {
        columns.append(column)
        values.append(value)
      }
    }
  }
}

/// A record that writes its columns into a container: by default, its `Encodable` form (a
/// value that is not a column type is stored as JSON text).
public protocol EncodableRecord {
  func encode(to container: inout PersistenceContainer) throws
}

extension EncodableRecord where Self: Encodable {
  public func encode(to container: inout PersistenceContainer) throws {
    let encoder = RecordEncoder()
    try encode(to: encoder)
    container = encoder.storage.container
  }
}

/// What an insert did: the new row's rowid, and the columns written.
public struct InsertionSuccess: Sendable {
  public var rowID: Int64
  public var rowIDColumn: String?
  public var persistenceContainer: PersistenceContainer
}

/// Why a record could not be written or read.
public enum RecordError: Error, Equatable, CustomStringConvertible {
  /// An update or a delete found no row with the record's key.
  case recordNotFound(databaseTableName: String, key: [String: DatabaseValue])

  public var description: String {
    switch self {
    case .recordNotFound(let table, let key):
      "no row in \(table) with key \(key.sorted { $0.key < $1.key }.map { "\($0)=\($1)" })"
    }
  }
}

/// A record that inserts, updates, saves and deletes itself; `didInsert` learns the rowid the
/// database gave it (`id = inserted.rowID`).
public protocol MutablePersistableRecord: EncodableRecord, TableRecord {
  mutating func didInsert(_ inserted: InsertionSuccess)
}

extension MutablePersistableRecord {
  public mutating func didInsert(_ inserted: InsertionSuccess) {}

  /// `INSERT INTO "table" (columns…) VALUES (…)`, then `didInsert`.
  public mutating func insert(_ db: Database) throws {
    try insertRecord(db, RecordKeyColumns(Self.databaseTableName, db))
  }

  /// Updates every other column of the row with this record's primary key; throws
  /// `RecordError.recordNotFound` when there is none.
  public func update(_ db: Database) throws {
    try updateRecord(db, RecordKeyColumns(Self.databaseTableName, db))
  }

  /// Updates the record's row if it exists, else inserts it.
  public mutating func save(_ db: Database) throws { try saveRecord(db) }

  /// Deletes the row with this record's primary key; whether there was one.
  @discardableResult
  public func delete(_ db: Database) throws -> Bool {
    let (_, key) = try keyed(RecordKeyColumns(Self.databaseTableName, db))
    try db.execute(
      sql: "DELETE FROM \(quoteIdentifier(Self.databaseTableName)) WHERE " + key.condition,
      arguments: StatementArguments(key.values))
    return db.changesCount > 0
  }

  /// Whether the row with this record's primary key exists.
  public func exists(_ db: Database) throws -> Bool {
    try rowExists(db, keyed(RecordKeyColumns(Self.databaseTableName, db)).key)
  }

  // Each operation reads the table's key from its schema once.

  fileprivate mutating func saveRecord(_ db: Database) throws {
    let keyColumns = try RecordKeyColumns(Self.databaseTableName, db)
    do {
      try updateRecord(db, keyColumns)
    } catch RecordError.recordNotFound {
      try insertRecord(db, keyColumns)
    }
  }

  fileprivate mutating func insertRecord(_ db: Database, _ keyColumns: RecordKeyColumns) throws {
    var container = PersistenceContainer()
    try encode(to: &container)
    try db.execute(
      sql: "INSERT INTO \(quoteIdentifier(Self.databaseTableName)) "
        + "(\(container.columns.map(quoteIdentifier).joined(separator: ", "))) "
        + "VALUES (\(container.columns.map { _ in "?" }.joined(separator: ", ")))",
      arguments: StatementArguments(container.values))
    didInsert(
      InsertionSuccess(
        rowID: db.lastInsertedRowID, rowIDColumn: keyColumns.rowIDColumn,
        persistenceContainer: container))
  }

  private func updateRecord(_ db: Database, _ keyColumns: RecordKeyColumns) throws {
    let (container, key) = try keyed(keyColumns)
    let others = container.columns.indices.filter { !key.columns.contains(container.columns[$0]) }
    guard !others.isEmpty else {
      guard try rowExists(db, key) else { throw notFound(key) }
      return
    }
    try db.execute(
      sql: "UPDATE \(quoteIdentifier(Self.databaseTableName)) SET "
        + others.map { "\(quoteIdentifier(container.columns[$0])) = ?" }.joined(separator: ", ")
        + " WHERE " + key.condition,
      arguments: StatementArguments(others.map { container.values[$0] } + key.values))
    if db.changesCount == 0 { throw notFound(key) }
  }

  private func rowExists(_ db: Database, _ key: RecordKey) throws -> Bool {
    try Row.fetchOne(
      db, sql: "SELECT 1 FROM \(quoteIdentifier(Self.databaseTableName)) WHERE " + key.condition,
      arguments: StatementArguments(key.values)) != nil
  }

  private func keyed(_ keyColumns: RecordKeyColumns) throws -> (
    PersistenceContainer, key: RecordKey
  ) {
    var container = PersistenceContainer()
    try encode(to: &container)
    let values = keyColumns.columns.map { container[$0] ?? .null }
    return (container, RecordKey(columns: keyColumns.columns, values: values))
  }

  private func notFound(_ key: RecordKey) -> RecordError {
    .recordNotFound(
      databaseTableName: Self.databaseTableName,
      key: Dictionary(uniqueKeysWithValues: zip(key.columns, key.values)))
  }
}

/// A record whose `didInsert` changes nothing in it, so that a `let` can be inserted.
public protocol PersistableRecord: MutablePersistableRecord {
  func didInsert(_ inserted: InsertionSuccess)
}

extension PersistableRecord {
  public func didInsert(_ inserted: InsertionSuccess) {}

  public func insert(_ db: Database) throws {
    var copy = self
    try copy.insertRecord(db, RecordKeyColumns(Self.databaseTableName, db))
  }

  public func save(_ db: Database) throws {
    var copy = self
    try copy.saveRecord(db)
  }
}

/// A record read from a row: by default, its `Decodable` form, each property from the column
/// of its name (a value that is not a column type from JSON text).
public protocol FetchableRecord {
  init(row: Row) throws
}

extension FetchableRecord where Self: Decodable {
  public init(row: Row) throws {
    try self.init(from: RecordDecoder(row: row))
  }
}

extension FetchableRecord {
  /// Every record of `sql`'s rows.
  public static func fetchAll(
    _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
  ) throws -> [Self] {
    try Row.fetchAll(db, sql: sql, arguments: arguments).map { try Self(row: $0) }
  }

  /// The record of `sql`'s first row, or nil.
  public static func fetchOne(
    _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
  ) throws -> Self? {
    try Row.fetchOne(db, sql: sql, arguments: arguments).map { try Self(row: $0) }
  }
}

extension FetchableRecord where Self: TableRecord {
  /// Every record of the table.
  public static func fetchAll(_ db: Database) throws -> [Self] {
    try fetchAll(db, sql: "SELECT * FROM \(quoteIdentifier(databaseTableName))")
  }

  /// The number of rows of the table.
  public static func fetchCount(_ db: Database) throws -> Int {
    try Row.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(databaseTableName))")?[0] ?? 0
  }
}

/// A table's primary key columns, from its schema; `rowid` for a table without one.
struct RecordKeyColumns {
  var columns: [String]
  /// The one column that is the rowid (an `INTEGER PRIMARY KEY`), if there is one.
  var rowIDColumn: String?

  init(_ table: String, _ db: Database) throws {
    let rows = try Row.fetchAll(
      db, sql: "SELECT name, type FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk",
      arguments: [DatabaseValue(storage: .text(table))])
    columns = try rows.map { try $0["name"] }
    guard !columns.isEmpty else {
      columns = ["rowid"]
      return
    }
    let type: String = try rows[0]["type"]
    rowIDColumn = columns.count == 1 && type.uppercased() == "INTEGER" ? columns[0] : nil
  }
}

/// A record's key: its columns and its values in them.
private struct RecordKey {
  var columns: [String]
  var values: [DatabaseValue]
  var condition: String {
    columns.map { "\(quoteIdentifier($0)) = ?" }.joined(separator: " AND ")
  }
}
