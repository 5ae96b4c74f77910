import Foundation
import HearthService
import HearthSupport
import Testing

@Suite struct ServiceGroupTests {
  @Test func stoppingTheGroupStopsEveryServiceInOrderAndWaitsForThem() throws {
    let events = Locked<[String]>([])
    func loop(_ name: String) -> LoopService {
      LoopService(name) { loop in
        events.withLock { $0.append("\(name) started") }
        while loop.wait(for: .seconds(60)) {}
        events.withLock { $0.append("\(name) ended") }
      }
    }
    let group = ServiceGroup([loop("a"), loop("b")], signals: [], logger: Logger(label: "test"))
    let running = group.start()
    while events.withLock({ $0.count }) < 2 { Thread.sleep(forTimeInterval: 0.001) }
    running.stop()
    try running.wait()
    #expect(Set(events.withLock { $0 }) == ["a started", "b started", "a ended", "b ended"])
    try running.wait()  // ended: returns at once
  }

  @Test func aServiceThatFailsStopsTheOthersAndItsErrorIsRethrown() {
    struct Broken: Error, CustomStringConvertible {
      var description: String { "broken on purpose" }
    }
    let steady = LoopService("steady") { loop in while loop.wait(for: .seconds(60)) {} }
    let failing = LoopService("failing") { _ in throw Broken() }
    let group = ServiceGroup([steady, failing], signals: [], logger: Logger(label: "test"))
    let failure = #expect(throws: ServiceFailure.self) { try group.run() }
    #expect(failure?.service == "failing")
    #expect(failure?.message == "broken on purpose")
    #expect(steady.isStopping)
  }

  @Test func aLoopsWaitEndsEarlyOnStop() {
    let loop = LoopService("waiting") { _ in }
    #expect(loop.wait(for: .milliseconds(1)))
    loop.stop()
    #expect(!loop.wait(for: .seconds(60)))
    #expect(!loop.wait(for: .seconds(60)))
  }

  @Test func theLoggerWritesJournaldPrioritiesOnlyToTheJournal() {
    let journal = Logger(label: "hearthd", journal: true)
    #expect(journal.line(.warning, "pruning failed") == "<4>hearthd: pruning failed")
    #expect(journal.line(.error, "x") == "<3>hearthd: x")
    #expect(journal.line(.info, "x") == "<6>hearthd: x")
    // Elsewhere: the local time to the millisecond, and the priority by name.
    let plain = Logger(label: "hearthd", journal: false)
    let time = Date(timeIntervalSince1970: 1_700_000_000.25)
    let line = plain.line(.warning, "pruning failed", at: time)
    #expect(
      line.wholeMatch(
        of: /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.250 hearthd: warning: pruning failed/) != nil,
      "\(line)")
    #expect(plain.line(.info, "x", at: time).hasSuffix(".250 hearthd: x"))
  }
}
