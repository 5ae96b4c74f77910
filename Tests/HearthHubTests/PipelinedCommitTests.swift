import Foundation
import HearthSQLite
import HearthTestbed
import HearthWire
import HearthZMQ
import Synchronization
import Testing

@testable import HearthHub

/// The pieces of pipelined group commit on their own: the syncer vouches for a ticket only
/// after a sync begun once it was asked for, a failed sync is final, and the outbox holds
/// every reply behind a commit that is not durable yet, in order.
@Suite struct PipelinedCommitTests {
  /// A syncer on its own thread; `stop` ends it and waits.
  final class RunningSyncer: Sendable {
    let syncer: WALSyncer
    private let finished = DispatchSemaphore(value: 0)

    init(_ syncer: WALSyncer) {
      self.syncer = syncer
      let finished = finished
      Thread.detachNewThread {
        syncer.run()
        finished.signal()
      }
    }

    /// Waits (up to 10 s) for the syncer to say something.
    func awaitRing() { syncer.bell.wait(timeout: .seconds(10)) }

    func stop() {
      syncer.stop()
      finished.wait()
    }

    /// Whether `run` has returned (within `timeout`).
    func hasEnded(within timeout: TimeInterval) -> Bool {
      finished.wait(timeout: .now() + timeout) == .success
    }
  }

  static func directory() throws -> String {
    let path = NSTemporaryDirectory() + "hearth-pipelined-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  @Test func theSyncerVouchesForWhatWasAskedBeforeItsSync() throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let database = directory + "/hearth.sqlite"
    FileManager.default.createFile(
      atPath: database + "-wal", contents: Data(repeating: 7, count: 8192))
    let running = RunningSyncer(try WALSyncer(databasePath: database))
    defer { running.stop() }
    // Ticket 1 is the log as the syncer found it: synced as its thread starts.
    while running.syncer.durable < 1 { running.awaitRing() }
    running.syncer.request(3)
    while running.syncer.durable < 3 { running.awaitRing() }
    #expect(running.syncer.durable == 3 && running.syncer.failure == nil)
    // The log replaced by another file (a new inode): the syncer follows the path.
    try FileManager.default.removeItem(atPath: database + "-wal")
    FileManager.default.createFile(atPath: database + "-wal", contents: Data([1, 2, 3]))
    running.syncer.request(5)
    while running.syncer.durable < 5 { running.awaitRing() }
    #expect(running.syncer.failure == nil)
  }

  /// The hub's thread syncs on its own while the syncing thread is idle, and what either
  /// vouches for only grows.
  @Test func aSyncOnTheHubsThreadVouchesAndTheThreadGoesOnAfterIt() throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let database = directory + "/hearth.sqlite"
    FileManager.default.createFile(atPath: database + "-wal", contents: Data(count: 4096))
    let running = RunningSyncer(try WALSyncer(databasePath: database))
    defer { running.stop() }
    // While the thread syncs the log as it found it, the hub's thread leaves the sync to it.
    // Its one ring comes after it vouches for ticket 1: taken here, so none is left.
    repeat { running.awaitRing() } while running.syncer.durable < 1
    #expect(running.syncer.syncHere(upTo: 2))
    #expect(running.syncer.durable == 2 && running.syncer.failure == nil)
    // Its caller sends what became durable itself: no ring for the hub's loop to answer.
    var bell = pollfd(fd: running.syncer.bell.descriptor, events: Int16(POLLIN), revents: 0)
    #expect(poll(&bell, 1, 0) == 0)
    running.syncer.request(4)
    while running.syncer.durable < 4 { running.awaitRing() }
    // Idle again: a sync here of an older ticket takes nothing back.
    #expect(running.syncer.syncHere(upTo: 3))
    #expect(running.syncer.durable == 4)
    #expect(running.syncer.syncHere(upTo: 6))
    #expect(running.syncer.durable == 6)
  }

  /// Another thread (the sync service's) waits until every ticket issued so far is
  /// durable, whoever syncs it; once the syncer has ended it is told so at once.
  @Test func makeDurableWaitsForEveryTicketIssuedAndNoLongerOnceTheSyncerEnds() throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let database = directory + "/hearth.sqlite"
    FileManager.default.createFile(atPath: database + "-wal", contents: Data(count: 4096))
    let syncer = try WALSyncer(databasePath: database)
    let tickets = (0..<3).map { _ in syncer.issueTicket() }
    #expect(tickets == [2, 3, 4])
    // Nothing runs the syncer yet: the wait lasts until it does.
    let waited = DispatchSemaphore(value: 0)
    let outcome = Mutex<String?>(nil)
    Thread.detachNewThread {
      do {
        try syncer.makeDurable()
        outcome.withLock { $0 = "durable \(syncer.durable)" }
      } catch {
        outcome.withLock { $0 = "\(error)" }
      }
      waited.signal()
    }
    #expect(waited.wait(timeout: .now() + 0.2) == .timedOut)
    let running = RunningSyncer(syncer)
    #expect(waited.wait(timeout: .now() + 10) == .success)
    #expect(outcome.withLock { $0 } == "durable 4")
    running.stop()
    _ = syncer.issueTicket()
    #expect(throws: HubError.self) { try syncer.makeDurable() }
  }

  @Test func aFailedSyncIsFinalAndVouchesForNothing() throws {
    // Neither the log nor the database file can be opened: the sync fails.
    let running = RunningSyncer(
      try WALSyncer(databasePath: "/nonexistent-\(UUID().uuidString)/hearth.sqlite"))
    running.syncer.request(1)
    running.awaitRing()
    #expect(running.syncer.failure?.contains("cannot open") == true)
    #expect(running.syncer.durable == 0)
    // The thread has ended: nothing later can be vouched for.
    #expect(running.hasEnded(within: 5))
  }

  /// A `RequestStreams` served on a thread of its own, as the hub's loop serves it (poll,
  /// then serve), until `stop`.
  final class ServedStreams: Sendable {
    let streams: RequestStreams
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(_ streams: RequestStreams) {
      self.streams = streams
      Thread.detachNewThread { [self] in
        while !stopping.load(ordering: .relaxed) {
          var descriptors = streams.descriptors().map {
            pollfd(
              fd: $0.fd,
              events: Int16($0.events.contains(.readable) ? POLLIN : 0)
                | Int16($0.events.contains(.writable) ? POLLOUT : 0), revents: 0)
          }
          _ = poll(&descriptors, nfds_t(descriptors.count), 20)
          streams.serve(
            descriptors.map { descriptor in
              var events: BusSocket.Events = []
              if descriptor.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                events.insert(.readable)
              }
              if descriptor.revents & Int16(POLLOUT) != 0 { events.insert(.writable) }
              return events
            }, principal: { $0 })
        }
        finished.signal()
      }
    }

    func stop() {
      stopping.store(true, ordering: .relaxed)
      finished.wait()
    }
  }

  /// A held reply to a request-stream client goes out from the syncing thread as the sync
  /// ends, with nothing asked of the hub's thread; a ZeroMQ client's waits for the hub's
  /// thread, and so does any later reply to it, in order. The commit is marked durable
  /// before any of its replies leaves.
  @Test func theOutboxHoldsRepliesBehindACommitUntilItIsDurable() throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let database = directory + "/hearth.sqlite"
    FileManager.default.createFile(atPath: database + "-wal", contents: Data(count: 4096))
    // A ZeroMQ client.
    let context = BusContext()
    let router = try BusSocket(context, .router)
    try router.bind("inproc://outbox")
    let client = try BusSocket(context, .dealer)
    try client.connect("inproc://outbox")
    try client.send([Data("hello".utf8)])
    let identity = try #require(try router.receive(timeout: .seconds(5))?.first)
    func received() throws -> String? {
      try client.receive(timeout: .milliseconds(200)).map {
        String(decoding: $0.last!, as: UTF8.self)
      }
    }
    // A request-stream client, its handshake served on a thread of its own.
    let hubKeys = try CurveKeyPair.generate()
    let served = ServedStreams(
      try RequestStreams(
        path: directory + "/hub.stream", keys: hubKeys, limit: 1 << 20,
        limits: StreamLimits(descriptors: 1024, replyBudget: 64 << 20)))
    defer {
      served.stop()
      served.streams.close()
    }
    let stream = try RequestStream.open(
      path: directory + "/hub.stream", keys: try .generate(), hubKey: hubKeys.publicKey,
      timeout: .seconds(5))
    defer { stream.close() }
    try stream.send(Data("hello".utf8))
    var streamClient: ReplyRoute?
    for _ in 0..<250 where streamClient == nil {
      streamClient = served.streams.take(upTo: 1).first?.route
      if streamClient == nil { usleep(20_000) }
    }
    let streamRoute = try #require(streamClient)
    guard case .stream = streamRoute else {
      Issue.record("a request of the stream came with the route \(streamRoute)")
      return
    }

    let syncer = try WALSyncer(databasePath: database)
    let durableMarks = Mutex<[Int64]>([])
    let outbox = HubOutbox(router: router, streams: served.streams, syncer: syncer) { seq in
      durableMarks.withLock { $0.append(seq) }
    }
    syncer.deliverAfterEachSync { outbox.deliverDurable() }

    // Nothing waits for the disk: a reply goes at once.
    outbox.send(.router(identity), Data("first".utf8))
    #expect(try received() == "first")
    // After a commit, its replies and any later one wait for the sync.
    let event = CommitEvent(
      hub: "h", seq: 7, plugin: "p", request: "r", at: 0, changes: DatabaseChanges())
    outbox.commit([ChangeFeed.PublishedCommit(event: event, body: Data())], by: [])
    outbox.send(.router(identity), Data("second".utf8))
    outbox.send(streamRoute, Data("on the stream".utf8))
    #expect(try received() == nil)
    #expect(try stream.receive(timeout: .milliseconds(200)) == nil)
    #expect(outbox.takeForHubThread().isEmpty && !outbox.isEmpty)
    #expect(durableMarks.withLock { $0 }.isEmpty)

    // The syncer runs: the stream's reply goes from its thread, the commit marked durable
    // first; the ZeroMQ reply waits for the hub's thread, and a later one behind it.
    let running = RunningSyncer(syncer)
    defer { running.stop() }
    let streamed = try stream.receive(timeout: .seconds(5))
    #expect(streamed.map { String(decoding: $0, as: UTF8.self) } == "on the stream")
    #expect(durableMarks.withLock { $0 } == [7])
    #expect(try received() == nil)
    outbox.send(.router(identity), Data("third".utf8))
    #expect(try received() == nil)
    let items = outbox.takeForHubThread()
    #expect(items.count == 2 && outbox.isEmpty)
    for case .reply(let to, let body) in items { outbox.sendNow(.router(to), body) }
    #expect(try received() == "second")
    #expect(try received() == "third")
    outbox.send(.router(identity), Data("fourth".utf8))
    #expect(try received() == "fourth")
    syncer.deliverAfterEachSync(nil)
  }
}
