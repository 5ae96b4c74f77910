/// One value of a query (a count, an aggregate, a row), kept current as the database
/// changes.
///
/// ```swift
/// @FetchOne(Reminder.count()) var remindersCount = 0
/// @FetchOne(Reminder.where(\.isFlagged)) var firstFlagged: Reminder?
/// ```
///
/// With a non-optional value, a query that returns no row is a `NotFound` error
/// (`loadError`, and thrown by `load`), and the value stays what it was.
@propertyWrapper
public struct FetchOne<Value: Sendable>: Sendable {
  let store: FetchStore<Value>

  public var wrappedValue: Value { store.value }

  /// Assigning another wrapper (`$value = …`) makes this one fetch its query from then on.
  public var projectedValue: Self {
    get { self }
    nonmutating set { store.adopt(newValue.store) }
  }

  /// The first row of `statement`; `wrappedValue` until there is one.
  public init<S: Statement & Sendable>(
    wrappedValue: Value, _ statement: S, database: (any DatabaseReader)? = nil,
    scheduler: FetchScheduler = .main
  ) where S.QueryValue == Value {
    store = FetchStore(initialValue: wrappedValue)
    store.start(
      database: database ?? DependencyValues.current.defaultDatabase, scheduler: scheduler,
      fetch: firstRow(of: statement))
  }

  /// No query yet: `wrappedValue` until `load` gives one.
  @_disfavoredOverload
  public init(wrappedValue: Value) {
    store = FetchStore(initialValue: wrappedValue)
  }

  /// A `@Selection` value, which no table holds: `wrappedValue` until `load` gives a query.
  public init(wrappedValue: Value) where Value: _SelectionValue {
    store = FetchStore(initialValue: wrappedValue)
  }

  /// An optional `@Selection` value: nil (or `wrappedValue`) until `load` gives a query.
  public init<Row: _SelectionValue>(wrappedValue: Value = nil) where Value == Row? {
    store = FetchStore(initialValue: wrappedValue)
  }

  /// The first row of the table; `wrappedValue` until there is one.
  @_disfavoredOverload
  public init(
    wrappedValue: Value, database: (any DatabaseReader)? = nil, scheduler: FetchScheduler = .main
  ) where Value: Table {
    self.init(
      wrappedValue: wrappedValue, Where<Value>().all.limit(1), database: database,
      scheduler: scheduler)
  }

  /// The row with `wrappedValue`'s primary key, kept current; `NotFound` while there is none.
  public init(
    wrappedValue: Value, database: (any DatabaseReader)? = nil, scheduler: FetchScheduler = .main
  ) where Value: PrimaryKeyedTable {
    self.init(
      wrappedValue: wrappedValue, Value._find(row: wrappedValue), database: database,
      scheduler: scheduler)
  }

  /// The first row of `statement`, or nil.
  public init<S: Statement & Sendable, Wrapped: Sendable>(
    wrappedValue: Value = nil, _ statement: S, database: (any DatabaseReader)? = nil,
    scheduler: FetchScheduler = .main
  ) where Value == Wrapped?, S.QueryValue == Wrapped {
    store = FetchStore(initialValue: wrappedValue)
    store.start(
      database: database ?? DependencyValues.current.defaultDatabase, scheduler: scheduler,
      fetch: { db in try statement.fetchOne(db) })
  }

  /// The first row of the table, or nil.
  public init<Row: Table & Sendable>(
    wrappedValue: Value = nil, database: (any DatabaseReader)? = nil,
    scheduler: FetchScheduler = .main
  ) where Value == Row? {
    self.init(
      wrappedValue: wrappedValue, Where<Row>().all, database: database, scheduler: scheduler)
  }

  /// The first row of `statement` when its values are optional: nil when it has no row, or
  /// its value is NULL.
  @_disfavoredOverload
  public init<S: Statement & Sendable, Wrapped: Sendable>(
    wrappedValue: Value = nil, _ statement: S, database: (any DatabaseReader)? = nil,
    scheduler: FetchScheduler = .main
  ) where Value == Wrapped?, S.QueryValue == Wrapped? {
    self.init(wrappedValue: wrappedValue, statement, database: database, scheduler: scheduler)
  }

  /// Replaces the query; while it has no row, `NotFound` (and the value stays).
  @discardableResult
  public func load<S: Statement & Sendable>(
    _ statement: S, database: (any DatabaseReader)? = nil, scheduler: FetchScheduler = .main
  ) async throws -> FetchSubscription where S.QueryValue == Value {
    try await store.load(
      database: database ?? DependencyValues.current.defaultDatabase, scheduler: scheduler,
      fetch: firstRow(of: statement))
  }

  /// Replaces the query; a query with no row gives `defaultValue`.
  @discardableResult
  public func load<S: Statement & Sendable>(
    _ statement: S, default defaultValue: Value, database: (any DatabaseReader)? = nil,
    scheduler: FetchScheduler = .main
  ) async throws -> FetchSubscription where S.QueryValue == Value {
    try await store.load(
      database: database ?? DependencyValues.current.defaultDatabase, scheduler: scheduler,
      fetch: { db in try statement.fetchOne(db) ?? defaultValue })
  }

  /// Replaces the query of an optional value.
  @discardableResult
  public func load<S: Statement & Sendable, Wrapped: Sendable>(
    _ statement: S, database: (any DatabaseReader)? = nil, scheduler: FetchScheduler = .main
  ) async throws -> FetchSubscription where Value == Wrapped?, S.QueryValue == Wrapped {
    try await store.load(
      database: database ?? DependencyValues.current.defaultDatabase, scheduler: scheduler,
      fetch: { db in try statement.fetchOne(db) })
  }

  /// Fetches the current query again now; returns once its value is in place.
  public func load() async throws { try await store.reload() }

  public var isLoading: Bool { store.isLoading }
  public var loadError: (any Error)? { store.loadError }
  public var values: AsyncStream<Value> { store.values }
}

/// The error of a `@FetchOne` of a non-optional value whose query returns no row.
public struct NotFound: Error, Equatable {
  public init() {}
}

/// A fetch of the first row of `statement`, which must have one, unless its values are
/// optional (then no row is nil).
private func firstRow<S: Statement & Sendable>(of statement: S)
  -> @Sendable (Database) throws -> S.QueryValue
{
  { db in
    if let row = try statement.fetchOne(db) { return row }
    if let optional = S.QueryValue.self as? any _OptionalProtocol.Type {
      return optional._none as! S.QueryValue
    }
    throw NotFound()
  }
}

/// Two wrappers are equal when their values are.
extension FetchOne: Equatable where Value: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.wrappedValue == rhs.wrappedValue }
}
