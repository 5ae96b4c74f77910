import Foundation
import HearthData
import HearthDataTestSupport
import HearthHub
import HearthPlugin
import HearthTestbed
import HearthTransport
import HearthWire
import Testing

/// A follower nobody observes takes no commit events (heartbeats move it on); observed
/// again, it first delivers from the feed what was committed since its position, then
/// follows the bus, none missed or twice.
@Suite struct FeedFollowerTests {
  @Test func anUnobservedFollowerCatchesUpFromTheFeedWhenObservedAgain() throws {
    // No heartbeat after the first: the follower's position stays where the test put it.
    let running = try RunningHub { $0.heartbeatInterval = .seconds(3_600) }
    defer {
      running.stop()
      running.removeFiles()
    }
    let notes = try HubDatabase.registered(notesPlugin, paths: running.paths)
    let reader = try DatabasePool(
      path: running.paths.databasePath,
      configuration: {
        var configuration = Configuration()
        configuration.readonly = true
        return configuration
      }())
    let follower = try FeedFollower(
      context: BusContext(), endpoint: running.paths.busEndpoint, reader: reader, from: .now)
    let start = follower.position
    // Unobserved: polls deliver nothing, whatever is committed.
    #expect(try follower.poll(timeout: .milliseconds(50), isObserved: { false }).isEmpty)
    for index in 0..<3 {
      try notes.write { db in try Note.insert { Note.Draft(text: "quiet \(index)") }.execute(db) }
    }
    let deadline = Date().addingTimeInterval(1)
    while Date() < deadline {
      #expect(try follower.poll(timeout: .milliseconds(100), isObserved: { false }).isEmpty)
    }
    // Observed: the first poll hands over the three from the feed, at once.
    let caughtUp = try follower.poll(timeout: .zero, isObserved: { true })
    let seqs = caughtUp.compactMap { delivery -> Int64? in
      if case .commit(let event) = delivery { event.seq } else { nil }
    }
    #expect(seqs == [start + 1, start + 2, start + 3])
    // … and the bus carries the next one.
    try notes.write { db in try Note.insert { Note.Draft(text: "loud") }.execute(db) }
    var next: [FeedFollower.Delivery] = []
    let until = Date().addingTimeInterval(10)
    while next.isEmpty, Date() < until {
      next = try follower.poll(timeout: .milliseconds(100), isObserved: { true })
    }
    guard case .commit(let event)? = next.first else {
      Issue.record("no commit event: \(next)")
      return
    }
    #expect(event.seq == start + 4 && next.count == 1)
  }

  /// Commits this follower's subscription never carried (made before it subscribed, as a
  /// commit published before a subscription reaches the hub is) come from the feed in its
  /// first waits, not at the next heartbeat.
  @Test func commitsTheBusNeverCarriedComeFromTheFeedWhileTheSubscriptionSettles() throws {
    let running = try RunningHub { $0.heartbeatInterval = .seconds(3_600) }
    defer {
      running.stop()
      running.removeFiles()
    }
    let notes = try HubDatabase.registered(notesPlugin, paths: running.paths)
    let reader = try readOnlyPool(running.paths.databasePath)
    let start = try reader.read(HubTables.lastSequence)
    for index in 0..<2 {
      try notes.write { db in try Note.insert { Note.Draft(text: "early \(index)") }.execute(db) }
    }
    let follower = try FeedFollower(
      context: BusContext(), endpoint: running.paths.busEndpoint, reader: reader,
      from: .after(start))
    // No heartbeat comes and the bus never carries these two: only the feed has them.
    let first = try follower.poll(timeout: .seconds(30), isObserved: { true })
    let seqs = first.compactMap { delivery -> Int64? in
      if case .commit(let event) = delivery { event.seq } else { nil }
    }
    #expect(seqs == [start + 1, start + 2])
  }

  /// A bell rung by another thread ends a follower's wait.
  @Test func aRungBellEndsTheWait() throws {
    let running = try RunningHub { $0.heartbeatInterval = .seconds(3_600) }
    defer {
      running.stop()
      running.removeFiles()
    }
    let follower = try FeedFollower(
      context: BusContext(), endpoint: running.paths.busEndpoint,
      reader: try readOnlyPool(running.paths.databasePath), from: .now)
    // Past the settling moment, a wait is as long as it is asked to be.
    Thread.sleep(forTimeInterval: 2 * FeedFollower.settling.timeInterval)
    #expect(try follower.poll(timeout: .zero).isEmpty)
    let bell = try Doorbell()
    DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { bell.ring() }
    let began = Date()
    #expect(try follower.poll(timeout: .seconds(30), bell: bell).isEmpty)
    #expect(Date().timeIntervalSince(began) < 10)
  }

  private func readOnlyPool(_ path: String) throws -> DatabasePool {
    var configuration = Configuration()
    configuration.readonly = true
    return try DatabasePool(path: path, configuration: configuration)
  }
}
