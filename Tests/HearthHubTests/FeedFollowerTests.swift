import Foundation
import HearthData
import HearthDataTestSupport
import HearthHub
import HearthPlugin
import HearthTestbed
import HearthWire
import HearthZMQ
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
}
