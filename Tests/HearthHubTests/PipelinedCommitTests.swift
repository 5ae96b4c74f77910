import CLinux
import Foundation
import HearthSQLite
import HearthTestbed
import HearthTransport
import HearthWire
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

  /// The syncer's look at whether the log it holds is still linked: the link count of the
  /// open file, 0 once its name is gone, and an error for no descriptor.
  @Test func theLinkCountOfAnOpenLogFollowsItsName() throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/hearth.sqlite-wal"
    FileManager.default.createFile(atPath: path, contents: Data(count: 4096))
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    #expect(descriptor >= 0)
    #expect(hearth_link_count(descriptor) == 1)
    #expect(link(path, directory + "/second") == 0)
    #expect(hearth_link_count(descriptor) == 2)
    #expect(unlink(path) == 0 && unlink(directory + "/second") == 0)
    #expect(hearth_link_count(descriptor) == 0)
    close(descriptor)
    #expect(hearth_link_count(-1) == -1 && errno == EBADF)
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

  /// A reply goes at once while nothing waits for the disk; after a commit, its replies,
  /// its events and every later reply wait, in order, until its ticket is durable — the
  /// commit marked durable before any of them.
  @Test func theOutboxHoldsRepliesBehindACommitUntilItIsDurable() throws {
    var outbox = HubOutbox()
    let (alice, bob) = (ReplyRoute.stream(1), ReplyRoute.router(Data("bob".utf8)))
    func shown(_ deliveries: [HubOutbox.Delivery]) -> [String] {
      deliveries.map { delivery in
        switch delivery {
        case .durable(let events): "durable \(events.map(\.event.seq))"
        case .reply(let route, let body):
          "\(route == alice ? "alice" : "bob"): \(String(decoding: body, as: UTF8.self))"
        case .publish(let events): "publish \(events.map(\.event.seq))"
        }
      }
    }
    func commit(_ seq: Int64) -> ChangeFeed.PublishedCommit {
      ChangeFeed.PublishedCommit(
        event: CommitEvent(
          hub: "h", seq: seq, plugin: "p", request: "r\(seq)", at: 0, changes: DatabaseChanges()),
        body: Data())
    }
    let first = outbox.reply(to: bob, Data("first".utf8))
    #expect(shown(first.map { [$0] } ?? []) == ["bob: first"])
    #expect(outbox.isEmpty)
    // Two commits, each with a reply and its event; a reply to someone else between them.
    var sentAtOnce: [HubOutbox.Delivery?] = []
    let asksSeven = outbox.commit(ticket: 2, [commit(7)], by: [alice], now: .zero)
    sentAtOnce.append(outbox.reply(to: alice, Data("seven".utf8)))
    outbox.publish([commit(7)])
    sentAtOnce.append(outbox.reply(to: bob, Data("after seven".utf8)))
    let asksEight = outbox.commit(ticket: 3, [commit(8)], by: [bob], now: .nanoseconds(1))
    sentAtOnce.append(outbox.reply(to: bob, Data("eight".utf8)))
    outbox.publish([commit(8)])
    #expect(asksSeven && asksEight && sentAtOnce.allSatisfy { $0 == nil })
    let early = outbox.durable(upTo: 1)
    #expect(early.isEmpty && !outbox.isEmpty)
    let second = outbox.durable(upTo: 2)
    #expect(shown(second) == ["durable [7]", "alice: seven", "publish [7]", "bob: after seven"])
    let third = outbox.durable(upTo: 3)
    #expect(shown(third) == ["durable [8]", "bob: eight", "publish [8]"])
    let none = outbox.durable(upTo: 9)
    #expect(outbox.isEmpty && none.isEmpty)
    let now = outbox.reply(to: alice, Data("now".utf8))
    #expect(shown(now.map { [$0] } ?? []) == ["alice: now"])
  }

  /// One writer writing alone for a while has its commits synced on the hub's thread (once
  /// per commit asked); a second writer, or the hub's own commit, gives it back to the
  /// syncing thread.
  @Test func aWriterAloneForAWhileIsSyncedOnTheHubsThread() {
    var outbox = HubOutbox()
    let (alice, bob) = (ReplyRoute.stream(1), ReplyRoute.stream(2))
    let later = HubOutbox.aloneAfter
    let asked = [
      outbox.commit(ticket: 2, [], by: [alice], now: .zero),
      outbox.takeSyncHere() == nil,
      !outbox.commit(ticket: 3, [], by: [alice], now: later),
      outbox.takeSyncHere() == 3,
      outbox.takeSyncHere() == nil,
      outbox.commit(ticket: 4, [], by: [bob], now: later + .nanoseconds(1)),
      outbox.commit(ticket: 5, [], by: [], now: later * 3),
      outbox.commit(ticket: 6, [], by: [alice, bob], now: later * 4),
      outbox.takeSyncHere() == nil,
    ]
    #expect(asked == Array(repeating: true, count: 9))
  }
}
