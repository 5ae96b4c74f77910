/// The value of a `FetchKeyRequest` (several queries read in one transaction), kept current
/// as the database changes.
///
/// ```swift
/// @Fetch(Facts()) var facts = Facts.Value()
/// facts.facts   // [Fact]
/// facts.count   // Int
/// try await $facts.load(Facts(query: "42")).task
/// ```
@propertyWrapper
public struct Fetch<Value: Sendable>: Sendable {
  let store: FetchStore<Value>

  public var wrappedValue: Value { store.value }

  /// Assigning another wrapper (`$value = …`) makes this one fetch its query from then on.
  public var projectedValue: Self {
    get { self }
    nonmutating set { store.adopt(newValue.store) }
  }

  /// The value of `request`, observed.
  public init(
    wrappedValue: Value, _ request: some FetchKeyRequest<Value>,
    database: (any DatabaseReader)? = nil, scheduler: FetchScheduler = .main
  ) {
    store = FetchStore(initialValue: wrappedValue)
    store.start(
      database: database ?? DependencyValues.current.defaultDatabase, scheduler: scheduler,
      fetch: { db in try request.fetch(db) })
  }

  /// No request yet: `wrappedValue` until `load` gives one.
  public init(wrappedValue: Value) {
    store = FetchStore(initialValue: wrappedValue)
  }

  /// Replaces the request.
  @discardableResult
  public func load(
    _ request: some FetchKeyRequest<Value>, database: (any DatabaseReader)? = nil,
    scheduler: FetchScheduler = .main
  ) async throws -> FetchSubscription {
    try await store.load(
      database: database ?? DependencyValues.current.defaultDatabase, scheduler: scheduler,
      fetch: { db in try request.fetch(db) })
  }

  /// Fetches the current query again now; returns once its value is in place.
  public func load() async throws { try await store.reload() }

  public var isLoading: Bool { store.isLoading }
  public var loadError: (any Error)? { store.loadError }
  public var values: AsyncStream<Value> { store.values }
}

/// Two wrappers are equal when their values are.
extension Fetch: Equatable where Value: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.wrappedValue == rhs.wrappedValue }
}
