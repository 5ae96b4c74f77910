/// The rows of a query, kept current as the database changes.
///
/// ```swift
/// @FetchAll var items: [Item]                                   // every row
/// @FetchAll(Item.order(by: \.title)) var items                  // a query
/// @FetchAll(Item.where(\.isInStock), database: otherDatabase) var inStock
/// ```
///
/// The first value is fetched when the wrapper is created; after that, every commit that
/// touches a table the query reads refetches it in the background, and the new value
/// arrives on the main actor (or `scheduler`). `$items.load(…)` swaps the query.
@propertyWrapper
public struct FetchAll<Element: Sendable>: Sendable {
  let store: FetchStore<[Element]>

  /// The rows.
  public var wrappedValue: [Element] { store.value }

  /// `$items`: `load`, `isLoading`, `loadError`, `values`.
  public var projectedValue: Self { self }

  /// Rows of `statement`, from `database` (default: `@Dependency(\.defaultDatabase)`).
  public init<S: Statement & Sendable>(
    wrappedValue: [Element] = [], _ statement: S, database: (any DatabaseReader)? = nil,
    scheduler: FetchScheduler = .main
  ) where S.QueryValue == Element {
    store = FetchStore(initialValue: wrappedValue)
    store.start(
      database: database ?? DependencyValues.current.defaultDatabase, scheduler: scheduler,
      fetch: { db in try statement.fetchAll(db) })
  }

  /// Every row of the table.
  public init(
    wrappedValue: [Element] = [], database: (any DatabaseReader)? = nil,
    scheduler: FetchScheduler = .main
  ) where Element: Table {
    self.init(
      wrappedValue: wrappedValue, Where<Element>().all, database: database, scheduler: scheduler)
  }

  /// Replaces the query. Returns once the new rows are in place; throws the fetch's error.
  ///
  /// ```swift
  /// try await $items.load(Item.where { $0.id > #bind(lastID ?? 0) }.order { $0.id }.limit(20))
  /// ```
  @discardableResult
  public func load<S: Statement & Sendable>(
    _ statement: S, database: (any DatabaseReader)? = nil, scheduler: FetchScheduler = .main
  ) async throws -> FetchSubscription where S.QueryValue == Element {
    try await store.load(
      database: database ?? DependencyValues.current.defaultDatabase, scheduler: scheduler,
      fetch: { db in try statement.fetchAll(db) })
  }

  /// Whether a `load` is fetching its first value.
  public var isLoading: Bool { store.isLoading }

  /// The error of the last fetch, or nil once a fetch succeeds again. The rows keep their
  /// last good value meanwhile.
  public var loadError: (any Error)? { store.loadError }

  /// The rows now, then each time they change (an `AsyncSequence`, in place of Combine's
  /// `publisher`).
  public var values: AsyncStream<[Element]> { store.values }
}
