// `import SharingGRDB`: the forms of SQLiteData's migration guides (its 0.1 name), kept
// thin over HearthData so that code written against them compiles:
//
// ```swift
// @SharedReader(.fetchAll(sql: "SELECT * FROM reminders WHERE isCompleted ORDER BY title"))
// var completedReminders: [Reminder]
// @SharedReader(.fetchOne(sql: "SELECT count(*) FROM reminders")) var count = 0
// @SharedReader(.fetch(CompletedReminders())) var completedReminders
// ```
//
// and GRDB's query interface, the part those guides show: `Column("title")`,
// `Reminder.all().where(Column("isCompleted")).order(Column("title")).fetchAll(db)`.
@_exported import HearthData

/// A value read from the database and kept current, as `@SharedReader` spelled it before
/// `@FetchAll`, `@FetchOne` and `@Fetch` (which it runs on).
@propertyWrapper
public struct SharedReader<Value: Sendable>: Sendable {
  let fetch: Fetch<Value>

  public var wrappedValue: Value { fetch.wrappedValue }

  public var projectedValue: Self { self }

  /// The key's value, `wrappedValue` until the first fetch arrives.
  public init(
    wrappedValue: Value, _ key: SharedReaderKey<Value>, database: (any DatabaseReader)? = nil
  ) {
    fetch = Fetch(wrappedValue: wrappedValue, key, database: database)
  }

  /// Rows of the key, empty until the first fetch arrives.
  public init(_ key: SharedReaderKey<Value>, database: (any DatabaseReader)? = nil)
  where Value: RangeReplaceableCollection {
    self.init(wrappedValue: Value(), key, database: database)
  }

  /// Whether the first value is still being fetched.
  public var isLoading: Bool { fetch.isLoading }
  /// The error of the last fetch, or nil.
  public var loadError: (any Error)? { fetch.loadError }
  /// The value now, then each time it changes.
  public var values: AsyncStream<Value> { fetch.values }
}

/// What a `@SharedReader` reads: `.fetchAll(sql:)`, `.fetchOne(sql:)` or `.fetch(request)`.
public struct SharedReaderKey<Value: Sendable>: FetchKeyRequest {
  let identity: AnyHashableSendable
  let read: @Sendable (Database) throws -> Value

  public func fetch(_ db: Database) throws -> Value { try read(db) }

  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.identity == rhs.identity }
  public func hash(into hasher: inout Hasher) { hasher.combine(identity) }
}

extension SharedReaderKey {
  /// Every row of `sql`, each decoded as `Element` (a `@Table` row reads its columns in
  /// declaration order: `SELECT *` of a table created in that order).
  public static func fetchAll<Element: QueryDecodable & Sendable>(
    sql: String, arguments: StatementArguments = StatementArguments()
  ) -> Self where Value == [Element] {
    Self(identity: AnyHashableSendable(SQLKey(kind: "all", sql: sql, arguments: arguments))) {
      db in
      let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
      var elements: [Element] = []
      while let row = try rows.next() {
        var decoder = QueryRowDecoder(row: row)
        elements.append(try Element(decoder: &decoder))
      }
      return elements
    }
  }

  /// The first row of `sql`, decoded as `Value`. No row gives nil for an optional `Value`,
  /// and is an error (`FetchOneNotFound`) for any other.
  public static func fetchOne(
    sql: String, arguments: StatementArguments = StatementArguments()
  ) -> Self where Value: QueryDecodable {
    Self(identity: AnyHashableSendable(SQLKey(kind: "one", sql: sql, arguments: arguments))) {
      db in
      let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
      guard let row = try rows.next() else {
        let none = (Value.self as? any ExpressibleByNilLiteral.Type)?.init(nilLiteral: ())
        guard let none = none as? Value else { throw FetchOneNotFound(sql: sql) }
        return none
      }
      var decoder = QueryRowDecoder(row: row)
      return try Value(decoder: &decoder)
    }
  }

  /// The value of a `FetchKeyRequest`: several reads in one transaction.
  public static func fetch<Request: FetchKeyRequest<Value>>(_ request: Request) -> Self {
    Self(identity: AnyHashableSendable(request)) { db in try request.fetch(db) }
  }
}

/// `fetchOne(sql:)` of a non-optional value found no row.
public struct FetchOneNotFound: Error, CustomStringConvertible {
  public let sql: String
  public var description: String { "no row for a non-optional fetchOne: \(sql)" }
}

/// A key's SQL and arguments, as its identity.
struct SQLKey: Hashable, Sendable {
  let kind: String
  let sql: String
  let arguments: StatementArguments
}

/// A hashable, sendable value of any such type: the identity of a key.
struct AnyHashableSendable: Hashable, Sendable {
  let base: any Hashable & Sendable

  init(_ base: any Hashable & Sendable) { self.base = base }

  static func == (lhs: Self, rhs: Self) -> Bool { AnyHashable(lhs.base) == AnyHashable(rhs.base) }
  func hash(into hasher: inout Hasher) { hasher.combine(AnyHashable(base)) }
}
