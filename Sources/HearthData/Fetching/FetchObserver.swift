import Dispatch

/// Keeps one query's value current: fetches it while recording the tables it reads, then
/// refetches after each commit that touches those tables.
///
/// Commits arrive on the writer's queue and only mark the query stale; fetching happens on
/// this observer's own queue, one fetch at a time. Commits that land during a fetch cause one
/// more fetch after it, however many there were: a burst of a thousand commits costs at most
/// two fetches on a slow reader, and commits to other tables cost nothing but a set lookup.
final class FetchObserver<Value: Sendable>: Sendable {
  private struct State {
    /// Lower-cased names of the tables the last fetch read; nil before the first fetch, when
    /// any commit counts.
    var region: Set<String>?
    var isFetching = false
    var isStale = false
    var isCancelled = false
    var observation: TransactionObservation?
  }

  private let database: any DatabaseReader
  private let scheduler: FetchScheduler
  private let fetch: @Sendable (Database) throws -> Value
  private let deliver: @Sendable (Result<Value, any Error>) -> Void
  private let queue = DispatchQueue(label: "hearth.fetch")
  private let state = Locked(State())

  init(
    database: any DatabaseReader, scheduler: FetchScheduler,
    fetch: @escaping @Sendable (Database) throws -> Value,
    deliver: @escaping @Sendable (Result<Value, any Error>) -> Void
  ) {
    self.database = database
    self.scheduler = scheduler
    self.fetch = fetch
    self.deliver = deliver
  }

  /// Starts observing, then fetches the first value: on the caller's thread and delivered
  /// before this returns when `initialFetchIsSynchronous`, else on the observer's queue.
  func start(initialFetchIsSynchronous: Bool) {
    observeCommits()
    state.withLock { $0.isFetching = true }
    if initialFetchIsSynchronous {
      if let result = fetchOnce() { deliver(result) }
      // A commit that landed during that fetch: fetch again, in the background.
      if finishFetch() { queue.async { self.fetchLoop() } }
    } else {
      queue.async { self.fetchLoop() }
    }
  }

  /// Starts observing after a first fetch made elsewhere, which read `region`.
  func start(afterInitialRegion region: Set<String>) {
    state.withLock { $0.region = Set(region.map { $0.lowercased() }) }
    observeCommits()
  }

  func cancel() {
    let observation = state.withLock { state -> TransactionObservation? in
      state.isCancelled = true
      defer { state.observation = nil }
      return state.observation
    }
    observation?.cancel()
  }

  private func observeCommits() {
    // Weak: the database keeps the observation (and this closure) while the observer lives.
    let observation = database.observeCommits { [weak self] changes in self?.committed(changes) }
    let isCancelled = state.withLock { state -> Bool in
      state.observation = observation
      return state.isCancelled
    }
    if isCancelled { observation.cancel() }
  }

  private func committed(_ changes: DatabaseChanges) {
    let shouldFetch = state.withLock { state -> Bool in
      guard !state.isCancelled else { return false }
      if let region = state.region, !changes.isSchemaChanged,
        !changes.tables.keys.contains(where: { region.contains($0.lowercased()) })
      {
        return false
      }
      guard !state.isFetching else {
        state.isStale = true
        return false
      }
      state.isFetching = true
      return true
    }
    if shouldFetch { queue.async { self.fetchLoop() } }
  }

  /// Fetches and delivers until no commit made the value stale during the last fetch.
  private func fetchLoop() {
    repeat {
      if let result = fetchOnce() {
        let deliver = self.deliver
        scheduler { deliver(result) }
      }
    } while finishFetch()
  }

  /// Ends a fetch; true when a commit made the value stale meanwhile and the caller should
  /// fetch again (the observer stays in the fetching state).
  private func finishFetch() -> Bool {
    state.withLock { state in
      if state.isStale && !state.isCancelled {
        state.isStale = false
        return true
      }
      state.isFetching = false
      state.isStale = false
      return false
    }
  }

  /// One fetch, recording the tables it read; nil once cancelled.
  private func fetchOnce() -> Result<Value, any Error>? {
    if state.withLock({ $0.isCancelled }) { return nil }
    do {
      let fetch = self.fetch
      let (value, region) = try database.read { db in try db.recordingReadTables { try fetch(db) } }
      state.withLock { $0.region = Set(region.map { $0.lowercased() }) }
      return .success(value)
    } catch {
      return .failure(error)
    }
  }
}
