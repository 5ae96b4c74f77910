import Foundation
import HearthTestbed
import HearthZMQ
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
    #expect(running.syncer.durable == 0)
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

  @Test func theOutboxHoldsRepliesBehindACommitUntilItIsDurable() throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let database = directory + "/hearth.sqlite"
    FileManager.default.createFile(atPath: database + "-wal", contents: Data(count: 4096))
    let context = BusContext()
    let router = try BusSocket(context, .router)
    try router.bind("inproc://outbox")
    let client = try BusSocket(context, .dealer)
    try client.connect("inproc://outbox")
    try client.send([Data("hello".utf8)])
    let identity = try #require(try router.receive(timeout: .seconds(5))?.first)
    let syncer = try WALSyncer(databasePath: database)
    let streams = try RequestStreams(
      path: directory + "/hub.stream", keys: .generate(), limit: 1 << 20)
    defer { streams.close() }
    let outbox = HubOutbox(router: router, streams: streams, syncer: syncer)
    func received() throws -> String? {
      try client.receive(timeout: .milliseconds(200)).map {
        String(decoding: $0.last!, as: UTF8.self)
      }
    }

    // Nothing waits for the disk: a reply goes at once.
    outbox.send(identity, Data("first".utf8))
    #expect(try received() == "first")
    // After a commit, its reply and any later one wait for the sync.
    outbox.commit([], by: [])
    outbox.send(identity, Data("second".utf8))
    outbox.send(identity, Data("third".utf8))
    #expect(try received() == nil)
    #expect(outbox.takeDurable().isEmpty && !outbox.isEmpty)
    // The syncer runs: the commit is durable, the replies go, in order.
    let running = RunningSyncer(syncer)
    defer { running.stop() }
    while syncer.durable < 1 { running.awaitRing() }
    let items = outbox.takeDurable()
    #expect(items.count == 3 && outbox.isEmpty)
    guard case .durable = items.first else {
      Issue.record("the commit comes first: \(items)")
      return
    }
    for case .reply(let to, let body) in items { outbox.sendNow(to, body) }
    #expect(try received() == "second")
    #expect(try received() == "third")
    outbox.send(identity, Data("fourth".utf8))
    #expect(try received() == "fourth")
  }
}
