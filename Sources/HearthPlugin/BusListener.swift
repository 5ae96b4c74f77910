import Foundation
import HearthWire
import HearthZMQ
import HearthSQLite
import Synchronization

/// Follows the hub's change bus for a feature process and turns its commit events into
/// `DatabaseChanges` for the observers (`@FetchAll` and friends).
///
/// The bus only rings the doorbell: when a sequence number is skipped (a high-water-mark
/// drop, a restart of this process or of the hub), the missed commits are read from the
/// durable feed in the database, in order; when they are no longer there (pruned), every
/// observer is told that everything changed.
final class BusListener: Sendable {
  private struct State {
    var lastSequence: Int64
    var observers: [UUID: @Sendable (DatabaseChanges) -> Void] = [:]
  }

  private let state: Locked<State>
  private let isStopped = Atomic<Bool>(false)
  private let reader: any DatabaseReader
  /// Called after every event and heartbeat with the sequence number the observers are at.
  private let onAdvance: @Sendable (Int64) -> Void

  init(
    context: BusContext, transport: HubTransport, reader: any DatabaseReader, lastSequence: Int64,
    onAdvance: @escaping @Sendable (Int64) -> Void = { _ in }
  ) throws {
    self.reader = reader
    self.onAdvance = onAdvance
    state = Locked(State(lastSequence: lastSequence))
    // The socket is made on the listening thread, its only owner.
    let started = DispatchSemaphore(value: 0)
    let failure = Locked<(any Error)?>(nil)
    let thread = Thread { [self] in
      let socket: BusSocket
      do {
        socket = try BusSocket(context, .sub)
        try socket.setReceiveHighWaterMark(10_000)
        try socket.setReconnectInterval(.milliseconds(50))
        try socket.subscribe("commit")
        try socket.subscribe("heartbeat")
        try transport.prepare(socket)
        try socket.connect(transport.busEndpoint)
      } catch {
        failure.withLock { $0 = error }
        started.signal()
        return
      }
      started.signal()
      listen(socket)
    }
    thread.name = "hearth.bus"
    thread.start()
    started.wait()
    if let error = failure.withLock({ $0 }) { throw error }
  }

  func stop() { isStopped.store(true, ordering: .relaxed) }

  var lastSequence: Int64 { state.withLock { $0.lastSequence } }

  func addObserver(_ onChange: @escaping @Sendable (DatabaseChanges) -> Void) -> UUID {
    let id = UUID()
    state.withLock { $0.observers[id] = onChange }
    return id
  }

  func removeObserver(_ id: UUID) {
    state.withLock { _ = $0.observers.removeValue(forKey: id) }
  }

  // The socket is owned by the listening thread alone.
  private func listen(_ socket: BusSocket) {
    while !isStopped.load(ordering: .relaxed) {
      guard let frames = try? socket.receive(timeout: .milliseconds(100)), frames.count == 2 else {
        continue
      }
      let topic = String(decoding: frames[0], as: UTF8.self)
      switch topic {
      case "commit":
        // Nobody observes: the event is not even decoded (a process that only writes spends
        // nothing on the bus); heartbeats keep the sequence number, and so the cursor, current.
        guard state.withLock({ !$0.observers.isEmpty }) else { continue }
        if let event = try? WireCoding.decode(CommitEvent.self, from: frames[1]) {
          received(seq: event.seq, event: event)
        }
      case "heartbeat":
        if let beat = try? WireCoding.decode(HeartbeatEvent.self, from: frames[1]) {
          received(seq: beat.seq, event: nil)
        }
      default:
        break
      }
    }
    socket.close()
  }

  /// Brings the listener to `seq`: delivers the missed commits from the feed, then `event`.
  /// (A restarted hub continues its sequence from the database, so the same gap check
  /// covers what was missed while it was away.)
  private func received(seq: Int64, event: CommitEvent?) {
    defer { onAdvance(lastSequence) }
    let (last, isObserved) = state.withLock { state -> (Int64, Bool) in
      let isObserved = !state.observers.isEmpty
      // Without observers there is nothing to deliver, nor to read from the feed: an observer
      // added later starts from a fresh fetch.
      if !isObserved { state.lastSequence = max(state.lastSequence, seq) }
      return (state.lastSequence, isObserved)
    }
    guard isObserved, seq > last else { return }
    var events: [CommitEvent] = []
    let expected = event.map { $0.seq - 1 } ?? seq
    if expected > last {
      // A gap: read the missed commits from the durable feed.
      do {
        let stored = try reader.read { db in
          try String.fetchAll(
            db, sql: "SELECT event FROM hearth_commits WHERE seq > ? AND seq <= ? ORDER BY seq",
            arguments: [last, expected])
        }
        events = try stored.map { try WireCoding.decode(CommitEvent.self, from: Data($0.utf8)) }
        let isComplete =
          events.count == Int(expected - last) && events.first?.seq == last + 1
        if !isComplete {
          // Pruned past our cursor: whatever we observe must be read again.
          deliver(DatabaseChanges(isSchemaChanged: true), upTo: expected)
          events = []
        }
      } catch {
        deliver(DatabaseChanges(isSchemaChanged: true), upTo: expected)
        events = []
      }
    }
    if let event { events.append(event) }
    for event in events where event.seq > lastSequence {
      deliver(event.databaseChanges, upTo: event.seq)
    }
  }

  private func deliver(_ changes: DatabaseChanges, upTo seq: Int64) {
    let observers = state.withLock { state -> [@Sendable (DatabaseChanges) -> Void] in
      state.lastSequence = max(state.lastSequence, seq)
      return Array(state.observers.values)
    }
    for observer in observers { observer(changes) }
  }
}

extension CommitEvent {
  /// The event as the observers of a local database would have seen the commit.
  var databaseChanges: DatabaseChanges {
    var tables: [String: TableChanges] = [:]
    for (name, summary) in self.tables {
      tables[name] = TableChanges(
        insertedRowIDs: summary.inserted, updatedRowIDs: summary.updated,
        deletedRowIDs: summary.deleted, rowIDsAreKnown: summary.unknownRows != true,
        updatedColumns: summary.updatedColumns)
    }
    return DatabaseChanges(tables: tables, isSchemaChanged: schemaChanged == true)
  }
}
