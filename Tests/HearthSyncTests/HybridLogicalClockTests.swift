import HearthDataTestSupport
import HearthSync
import Testing

@Suite struct HybridLogicalClockTests {
  @Test func localTimesOnlyGoForwardWhateverTheWallClockDoes() {
    var clock = HybridLogicalClock(hub: "a")
    let first = clock.tick(now: 1_000)
    let sameMillisecond = clock.tick(now: 1_000)
    let wallWentBack = clock.tick(now: 400)
    let wallMovedOn = clock.tick(now: 2_000)
    #expect(first == HybridTimestamp(milliseconds: 1_000, counter: 0, hub: "a"))
    #expect(sameMillisecond == HybridTimestamp(milliseconds: 1_000, counter: 1, hub: "a"))
    #expect(wallWentBack == HybridTimestamp(milliseconds: 1_000, counter: 2, hub: "a"))
    #expect(wallMovedOn == HybridTimestamp(milliseconds: 2_000, counter: 0, hub: "a"))
    #expect(
      [first, sameMillisecond, wallWentBack, wallMovedOn].sorted() == [
        first, sameMillisecond, wallWentBack, wallMovedOn,
      ])
  }

  @Test func aTimeSeenFromAnotherHubIsPassedByTheNextLocalOne() {
    var a = HybridLogicalClock(hub: "a")
    var b = HybridLogicalClock(hub: "b")
    // b's wall clock is 30 s ahead (within the bound): a's next edit still comes after it.
    let fromB = b.tick(now: 31_000)
    #expect(a.receive(fromB, now: 1_000) == nil)
    let next = a.tick(now: 1_001)
    #expect(next > fromB)
    #expect(next.milliseconds == 31_000 && next.counter == 2)
    // Equal times of two hubs: the hub id decides, the same way everywhere.
    let tieA = HybridTimestamp(milliseconds: 5, counter: 1, hub: "a")
    let tieB = HybridTimestamp(milliseconds: 5, counter: 1, hub: "b")
    #expect(tieA < tieB && max(tieA, tieB) == tieB)
  }

  @Test func aClockFarBehindMovesPastEveryTimeItReceivesAndSaysItIsBehind() {
    for behind: Int64 in [90_000, 3_600_000, 86_400_000] {
      var clock = HybridLogicalClock(hub: "slow", maximumDrift: 60_000)
      let realNow: Int64 = 1_800_000_000_000
      let seen = HybridTimestamp(milliseconds: realNow, counter: 3, hub: "right")
      #expect(clock.receive(seen, now: realNow - behind) == behind)
      // An edit made after seeing that value is later than it, whatever this wall clock says.
      #expect(clock.tick(now: realNow - behind + 1) > seen)
    }
    var near = HybridLogicalClock(hub: "a", maximumDrift: 60_000)
    let close = HybridTimestamp(milliseconds: 31_000, counter: 0, hub: "b")
    #expect(near.receive(close, now: 1_000) == nil)
  }

  @Test func textSortsAsTimesCompareAndReadsBack() {
    var generator = SeededGenerator(seed: 42)
    let times = (0..<500).map { _ in
      HybridTimestamp(
        milliseconds: Int64.random(in: 0...4_102_444_800_000, using: &generator),
        counter: Int64.random(in: 0...50, using: &generator),
        hub: ["a1", "b-2", "c"].randomElement(using: &generator)!)
    }
    #expect(times.sorted().map(\.description) == times.map(\.description).sorted())
    for time in times { #expect(HybridTimestamp(time.description) == time) }
    for bad in ["", "1-2-a", "001764500000000-0000000003-", "x01764500000000-0000000003-a"] {
      #expect(HybridTimestamp(bad) == nil, "\(bad)")
    }
  }
}
