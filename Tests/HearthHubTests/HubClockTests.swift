import Foundation
import HearthData
import HearthDependencies
import HearthHub
import HearthPlugin
import HearthTransport
import HearthWire
import Testing

/// The hub's time-dependent behaviour on a clock the test moves: no sleeping, and no
/// margin for a slow machine.
@Suite struct HubClockTests {
  @Test func aSilentTransactionExpiresWhenTheHubsClockPassesTheTimeout() throws {
    let clock = TestClock()
    let running = try RunningHub(clock: clock)
    defer { running.stopAndRemove() }
    let notes = try HubDatabase.registered(notesPlugin, paths: running.paths)
    let client = try RawClient(running.paths, as: "notes")
    func part(_ number: Int, end: String? = nil) throws -> [String: Any] {
      try client.send(
        #"{"v":1,"type":"transaction","id":"slow","plugin":"notes","part":\#(number),"#
          + (end.map { #""end":"\#($0)","# } ?? "")
          + #""statements":[{"sql":"INSERT INTO notes (text) VALUES ('part \#(number)')"}]}"#)
    }
    #expect(try part(0)["type"] as? String == "results")
    // Silent for 4.9 s of a 5 s timeout, twice: each message starts the count again.
    clock.advance(by: .milliseconds(4_900))
    #expect(try part(1)["type"] as? String == "results")
    clock.advance(by: .milliseconds(4_900))
    #expect(try part(2)["type"] as? String == "results")
    // Then silent past it: the next message finds the transaction rolled back.
    clock.advance(by: .milliseconds(5_001))
    let late = try part(3, end: "commit")
    #expect(late["code"] as? String == "timeout")
    #expect(try notes.read { try Note.fetchCount($0) } == 0)
    // The writer is free again.
    try notes.write { db in try Note.insert { Note.Draft(text: "after") }.execute(db) }
    #expect(try notes.read { try Note.fetchAll($0).map(\.text) } == ["after"])
  }

  @Test func heartbeatsFollowTheHubsClock() throws {
    let clock = TestClock()
    let running = try RunningHub(clock: clock)
    defer { running.stopAndRemove() }
    let context = BusContext()
    let bus = try BusSocket(context, .sub)
    try bus.subscribe("heartbeat")
    try bus.connect(running.paths.busEndpoint)
    func heartbeat(within timeout: Duration) throws -> HeartbeatEvent? {
      guard let frames = try bus.receive(timeout: timeout), frames.count == 2 else { return nil }
      return try WireCoding.decode(HeartbeatEvent.self, from: frames[1])
    }
    // The hub's clock stands still: however long real time runs, no beat is due. (A beat
    // sent before the subscription took hold would be lost, and none is due anyway.)
    #expect(try heartbeat(within: .milliseconds(300)) == nil)
    clock.advance(by: .milliseconds(999))
    #expect(try heartbeat(within: .milliseconds(300)) == nil)
    clock.advance(by: .milliseconds(1))
    let first = try #require(try heartbeat(within: .seconds(5)))
    #expect(first.hub == running.hub.instanceID)
    #expect(try heartbeat(within: .milliseconds(300)) == nil)
    // A commit, then the next second: the beat says how far the feed has come.
    _ = try HubDatabase.registered(notesPlugin, paths: running.paths)
    clock.advance(by: .seconds(1))
    let second = try #require(try heartbeat(within: .seconds(5)))
    #expect(second.seq == running.hub.lastSequence)
    #expect(second.seq == first.seq + 1)
  }
}

@Suite struct HubLimitsTests {
  /// A statement larger than the transport lets through (4 × max-message-size) would be
  /// dropped by libzmq with no reply; the client knows the hub's limits from `welcome` and
  /// refuses it at once, as `tooLarge`, without a round trip.
  @Test func aFrameOfAnySizeOverTheLimitIsTooLargeAtOnce() throws {
    let running = try RunningHub { $0.maximumMessageSize = 65_536 }
    defer { running.stopAndRemove() }
    let client = try RawClient(running.paths, as: "notes")
    let welcome = try client.send(#"{"v":1,"type":"hello","id":"h"}"#)
    let limits = try #require(welcome["limits"] as? [String: Int])
    #expect(
      limits == [
        "maxMessageSize": 65_536, "transportMaxMessageSize": 262_144, "maxStatements": 10_000,
      ])

    let notes = try HubDatabase.registered(notesPlugin, paths: running.paths)
    for size in [70_000, 300_000, 5_000_000] {
      let started = ContinuousClock.now
      let refusal = #expect(throws: DatabaseError.self) {
        try notes.write { db in
          try db.execute(
            sql: "INSERT INTO notes (text) VALUES (?)",
            arguments: [String(repeating: "x", count: size)])
        }
      }
      #expect(refusal?.hubCode == .tooLarge, "\(size) bytes: \(String(describing: refusal))")
      #expect(refusal?.resultCode == .SQLITE_TOOBIG)
      #expect(ContinuousClock.now - started < .seconds(2), "\(size) bytes waited")
    }
    #expect(try notes.read { try Note.fetchCount($0) } == 0)
    // A frame just over the limit, sent raw, gets the hub's own tooLarge.
    let raw = try client.send(
      #"{"v":1,"type":"hello","id":"big","plugin":""# + String(repeating: "y", count: 70_000)
        + #""}"#)
    #expect(raw["code"] as? String == "tooLarge")
  }
}
