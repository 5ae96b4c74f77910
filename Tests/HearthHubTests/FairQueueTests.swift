import HearthTransport
import Testing

@testable import HearthHub

/// The order in which the hub serves what waits (`FairQueue`).
@Suite struct FairQueueTests {
  @Test func severalPrincipalsAreServedOneRequestEachATurn() {
    var queue = FairQueue<Int, String>()
    for index in 0..<100 { queue.append("a\(index)", principal: "greedy", source: 1) }
    queue.append("b0", principal: "honest", source: 2)
    // However much the greedy one has waiting, the other's request comes in the first turn.
    #expect(queue.take(upTo: 64) == ["a0", "b0"])
    // Alone now, the greedy one is served a group at a time.
    #expect(queue.take(upTo: 64).count == 64)
    #expect(queue.count == 35)
  }

  @Test func oneEachHoldsEvenForAPrincipalAlone() {
    var queue = FairQueue<Int, String>()
    for index in 0..<10 { queue.append("a\(index)", principal: "p", source: 1) }
    #expect(queue.take(upTo: 64, oneEach: true) == ["a0"])
  }

  @Test func aPrincipalsConnectionsTakeTurns() {
    var queue = FairQueue<Int, String>()
    for index in 0..<3 {
      queue.append("x\(index)", principal: "p", source: 1)
      queue.append("y\(index)", principal: "p", source: 2)
    }
    queue.append("q", principal: "q", source: 3)
    // Many connections of one principal still get one turn between them.
    #expect(queue.take(upTo: 64) == ["x0", "q"])
    #expect(queue.take(upTo: 64) == ["y0", "x1", "y1", "x2", "y2"])
    #expect(queue.isEmpty && queue.waitingPrincipals == 0)
  }

  @Test func aConnectionThatLeavesTakesItsRequestsWithIt() {
    var queue = FairQueue<Int, String>()
    queue.append("gone0", principal: "p", source: 1)
    queue.append("kept", principal: "p", source: 2)
    queue.append("gone1", principal: "p", source: 1)
    #expect(queue.count(of: 1) == 2)
    #expect(queue.remove(source: 1) == ["gone0", "gone1"])
    #expect(queue.count(of: 1) == 0 && queue.count(ofPrincipal: "p") == 1)
    #expect(queue.take(upTo: 64) == ["kept"])
    #expect(queue.remove(source: 1).isEmpty)
  }
}
