import Foundation
import Observation

/// The state behind one `@FetchAll`, `@FetchOne` or `@Fetch`: the current value, loading
/// and error flags, the running observation. The wrappers are structs holding a reference to
/// one store, so copies of a wrapper share it.
///
/// Observable: reading `value` inside `withObservationTracking` (or from an `@Observable`
/// model's property that wraps it) registers for its changes.
final class FetchStore<Value: Sendable>: Observable, Sendable {
  private struct State {
    var value: Value
    var isLoading = false
    var loadError: (any Error)?
    var observer: FetchObserver<Value>?
    /// Bumped for each new query, so that a late value of an old query is dropped.
    var generation = 0
    /// The query now observed, for `reload` and `adopt`.
    var query: Query?
    /// Each running `values` stream's way to yield a new value.
    var streams: [UUID: @Sendable (Value) -> Void] = [:]
  }

  /// What a store fetches, and from where.
  struct Query: Sendable {
    let database: any DatabaseReader
    let scheduler: FetchScheduler
    let fetch: @Sendable (Database) throws -> Value
    /// What else tells this query from another of the same rows (a fetch's sections).
    let shape: (any Hashable & Sendable)?
  }

  private let state: Locked<State>
  private let registrar = ObservationRegistrar()

  init(initialValue: Value) { state = Locked(State(value: initialValue)) }

  deinit { state.withLock { $0.observer }?.cancel() }

  var value: Value {
    registrar.access(self, keyPath: \.value)
    return state.withLock { $0.value }
  }

  var isLoading: Bool {
    registrar.access(self, keyPath: \.isLoading)
    return state.withLock { $0.isLoading }
  }

  var loadError: (any Error)? {
    registrar.access(self, keyPath: \.loadError)
    return state.withLock { $0.loadError }
  }

  /// Replaces the running query with `fetch` on `database`: fetches once now (blocking) so
  /// the value is current when this returns, then keeps it current.
  func start(
    database: any DatabaseReader, scheduler: FetchScheduler,
    shape: (any Hashable & Sendable)? = nil,
    fetch: @escaping @Sendable (Database) throws -> Value
  ) {
    let (generation, previous) = replaceQuery(
      with: Query(database: database, scheduler: scheduler, fetch: fetch, shape: shape))
    previous?.cancel()
    let observer = FetchObserver(
      database: database, scheduler: scheduler, fetch: fetch,
      deliver: { [weak self] result in self?.receive(result, generation: generation) })
    state.withLock { $0.observer = observer }
    withLoading { observer.start(initialFetchIsSynchronous: true) }
  }

  /// `load`: like `start`, but the first fetch runs without blocking the caller, and the
  /// call returns once its value is in place (or throws its error).
  func load(
    database: any DatabaseReader, scheduler: FetchScheduler,
    shape: (any Hashable & Sendable)? = nil,
    fetch: @escaping @Sendable (Database) throws -> Value
  ) async throws -> FetchSubscription {
    let (generation, previous) = replaceQuery(
      with: Query(database: database, scheduler: scheduler, fetch: fetch, shape: shape))
    previous?.cancel()
    setLoading(true)
    defer { setLoading(false) }
    // The first value is delivered here directly, whatever the scheduler, so that it is in
    // place when `load` returns.
    let first = try await database.read { db in try db.recordingReadTables { try fetch(db) } }
    receive(.success(first.0), generation: generation)
    let observer = FetchObserver(
      database: database, scheduler: scheduler, fetch: fetch,
      deliver: { [weak self] result in self?.receive(result, generation: generation) })
    let stillCurrent = state.withLock { state -> Bool in
      guard state.generation == generation else { return false }
      state.observer = observer
      return true
    }
    if stillCurrent { observer.start(afterInitialRegion: first.1) }
    // Cancelled, the subscription ends the query too: `load()` then has nothing to fetch
    // again (a later `load(query)` starts another).
    return FetchSubscription { [weak self, weak observer] in
      observer?.cancel()
      self?.state.withLock { state in
        if state.observer === observer { state.observer = nil }
        if state.generation == generation { state.query = nil }
      }
    }
  }

  /// The shape of the current query (`shape` of `start` or `load`).
  var shape: AnyHashable? { state.withLock { $0.query?.shape.map { AnyHashable($0) } } }

  /// Fetches the current query again, and observes it from there (nothing without one).
  func reload() async throws {
    guard let query = state.withLock({ $0.query }) else { return }
    _ = try await load(
      database: query.database, scheduler: query.scheduler, shape: query.shape, fetch: query.fetch)
  }

  /// Takes `other`'s value and query, which it stops observing: what assigning a wrapper to
  /// another's projected value does.
  func adopt(_ other: FetchStore) {
    guard other !== self else { return }
    let (value, error, query) = other.state.withLock { state in
      defer {
        state.observer?.cancel()
        state.observer = nil
        state.generation += 1
      }
      return (state.value, state.loadError, state.query)
    }
    registrar.withMutation(of: self, keyPath: \.value) {
      state.withLock { $0.value = value }
    }
    registrar.withMutation(of: self, keyPath: \.loadError) {
      state.withLock { $0.loadError = error }
    }
    if let query {
      start(
        database: query.database, scheduler: query.scheduler, shape: query.shape,
        fetch: query.fetch)
    } else {
      replaceQuery(with: nil).previous?.cancel()
    }
  }

  /// Makes `query` the store's query (nil: none): a new generation, so that a late value of
  /// the old query is dropped, and the old query's observer, for the caller to cancel.
  private func replaceQuery(with query: Query?) -> (
    generation: Int, previous: FetchObserver<Value>?
  ) {
    state.withLock { state in
      state.generation += 1
      state.query = query
      defer { state.observer = nil }
      return (state.generation, state.observer)
    }
  }

  private func withLoading(_ body: () -> Void) {
    setLoading(true)
    body()
    setLoading(false)
  }

  private func setLoading(_ isLoading: Bool) {
    registrar.withMutation(of: self, keyPath: \.isLoading) {
      state.withLock { $0.isLoading = isLoading }
    }
  }

  private func receive(_ result: Result<Value, any Error>, generation: Int) {
    switch result {
    case .success(let value):
      let streams = registrar.withMutation(of: self, keyPath: \.value) {
        state.withLock { state -> [@Sendable (Value) -> Void] in
          guard state.generation == generation else { return [] }
          state.value = value
          return Array(state.streams.values)
        }
      }
      if state.withLock({ $0.loadError != nil && $0.generation == generation }) {
        registrar.withMutation(of: self, keyPath: \.loadError) {
          state.withLock { $0.loadError = nil }
        }
      }
      for yield in streams { yield(value) }
    case .failure(let error):
      registrar.withMutation(of: self, keyPath: \.loadError) {
        state.withLock { state in
          if state.generation == generation { state.loadError = error }
        }
      }
    }
  }

  /// The current value, then each new one, until the consumer stops.
  var values: AsyncStream<Value> { values { $0 } }

  /// What `transform` makes of the current value, then of each new one.
  func values<T>(_ transform: @escaping @Sendable (Value) -> T) -> AsyncStream<T> {
    AsyncStream { continuation in
      let id = UUID()
      let current = state.withLock { state -> Value in
        state.streams[id] = { continuation.yield(transform($0)) }
        return state.value
      }
      continuation.yield(transform(current))
      continuation.onTermination = { [weak self] _ in
        self?.state.withLock { _ = $0.streams.removeValue(forKey: id) }
      }
    }
  }
}

/// A running `load`. `cancel()` stops observing; awaiting `task` keeps the subscription
/// alive until the awaiting task is cancelled (as SwiftUI's `.task` does), then cancels it.
///
/// ```swift
/// try await $facts.load(Facts(query: query)).task
/// ```
public struct FetchSubscription: Sendable {
  private let state: SubscriptionState

  init(onCancel: @escaping @Sendable () -> Void) { state = SubscriptionState(onCancel: onCancel) }

  /// Stops observing; a task awaiting `task` goes on.
  public func cancel() { state.cancel() }

  /// Suspends until the current task is cancelled, then stops observing; or until `cancel()`
  /// stops it.
  public var task: Void {
    get async throws {
      let state = self.state
      await withTaskCancellationHandler {
        await state.untilCancelled()
      } onCancel: {
        state.cancel()
      }
      try Task.checkCancellation()
    }
  }
}

/// Whether a subscription was cancelled, and the tasks awaiting that.
private final class SubscriptionState: Sendable {
  private struct Waiting {
    var isCancelled = false
    var waiters: [CheckedContinuation<Void, Never>] = []
  }

  private let waiting = Locked(Waiting())
  private let onCancel: @Sendable () -> Void

  init(onCancel: @escaping @Sendable () -> Void) { self.onCancel = onCancel }

  /// Stops observing, once, and resumes every awaiting task.
  func cancel() {
    let waiters = waiting.withLock { waiting -> [CheckedContinuation<Void, Never>]? in
      guard !waiting.isCancelled else { return nil }
      waiting.isCancelled = true
      defer { waiting.waiters = [] }
      return waiting.waiters
    }
    guard let waiters else { return }
    onCancel()
    for waiter in waiters { waiter.resume() }
  }

  func untilCancelled() async {
    await withCheckedContinuation { continuation in
      let cancelled = waiting.withLock { waiting -> Bool in
        if !waiting.isCancelled { waiting.waiters.append(continuation) }
        return waiting.isCancelled
      }
      if cancelled { continuation.resume() }
    }
  }
}
