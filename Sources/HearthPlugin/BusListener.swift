import Foundation
import HearthSQLite
import HearthTransport
import HearthWire
import Synchronization

/// Follows the hub's commits for a feature process (a `FeedFollower` on a thread of its
/// own) and hands them to the observers (`@FetchAll` and friends) as `DatabaseChanges`;
/// commits pruned before they were seen reach them as "everything changed".
final class BusListener: Sendable {
  private struct State {
    var lastSequence: Int64
    var observers: [UUID: @Sendable (DatabaseChanges) -> Void] = [:]
  }

  private let state: Locked<State>
  private let isStopped = Atomic<Bool>(false)
  /// Rung when the first observer comes: the listening thread then follows at once instead
  /// of after its wait.
  private let bell: Doorbell
  /// Called after every event and heartbeat with the sequence number the observers are at.
  private let onAdvance: @Sendable (Int64) -> Void

  init(
    context: BusContext, transport: HubTransport, reader: any DatabaseReader, lastSequence: Int64,
    onAdvance: @escaping @Sendable (Int64) -> Void = { _ in }
  ) throws {
    self.onAdvance = onAdvance
    state = Locked(State(lastSequence: lastSequence))
    bell = try Doorbell()
    // The follower (and its socket) is made on the listening thread, its only owner.
    let started = DispatchSemaphore(value: 0)
    let failure = Locked<(any Error)?>(nil)
    let thread = Thread { [self] in
      let follower: FeedFollower
      do {
        follower = try FeedFollower(
          context: context, endpoint: transport.busEndpoint, reader: reader,
          from: .after(lastSequence), prepare: transport.prepareBusSocket)
      } catch {
        failure.withLock { $0 = error }
        started.signal()
        return
      }
      started.signal()
      listen(follower)
    }
    thread.name = "hearth.bus"
    thread.start()
    started.wait()
    if let error = failure.withLock({ $0 }) { throw error }
  }

  func stop() { isStopped.store(true, ordering: .relaxed) }

  var lastSequence: Int64 { state.withLock { $0.lastSequence } }

  func addObserver(id: UUID, _ onChange: @escaping @Sendable (DatabaseChanges) -> Void) {
    let isFirst = state.withLock { state in
      defer { state.observers[id] = onChange }
      return state.observers.isEmpty
    }
    if isFirst { bell.ring() }
  }

  func removeObserver(_ id: UUID) {
    state.withLock { _ = $0.observers.removeValue(forKey: id) }
  }

  private func listen(_ follower: FeedFollower) {
    while !isStopped.load(ordering: .relaxed) {
      // Nobody observes: nothing is decoded or read from the feed, heartbeats keep the
      // sequence number (and so the cursor) current; an observer added later starts from a
      // fresh fetch of its own.
      // (Asked when a message has come: an observer added during the wait sees it.)
      guard
        let deliveries = try? follower.poll(
          timeout: .milliseconds(100), isObserved: { state.withLock { !$0.observers.isEmpty } },
          bell: bell)
      else { continue }
      for delivery in deliveries {
        switch delivery {
        case .commit(let event): deliver(event.changes)
        case .missed: deliver(DatabaseChanges(isSchemaChanged: true))
        }
      }
      let position = follower.position
      state.withLock { $0.lastSequence = max($0.lastSequence, position) }
      // (The reporter sends at most one cursor a second, and only a newer one.)
      onAdvance(position)
    }
  }

  private func deliver(_ changes: DatabaseChanges) {
    let observers = state.withLock { Array($0.observers.values) }
    for observer in observers { observer(changes) }
  }
}
