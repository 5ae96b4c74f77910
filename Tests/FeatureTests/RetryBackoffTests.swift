import HearthPlugin
import Testing

@Suite struct RetryBackoffTests {
  @Test func failuresDoubleTheWaitUpToTheCeilingAndOnlyTheFirstAndTheRecoveryAreToldOf() {
    var backoff = RetryBackoff(interval: .seconds(1), ceiling: .seconds(60))
    #expect(backoff.wait == .seconds(1))
    let quiet = backoff.succeeded()
    #expect(quiet == nil)  // working: nothing to tell
    var told = 0
    var waits: [Duration] = []
    for _ in 0..<9 {
      if backoff.failed() { told += 1 }
      waits.append(backoff.wait)
    }
    #expect(told == 1)
    #expect(waits.map { Int($0.components.seconds) } == [1, 2, 4, 8, 16, 32, 60, 60, 60])
    let recovered = backoff.succeeded()
    #expect(recovered == 9)
    #expect(backoff.wait == .seconds(1))
    let toldAgain = backoff.failed()
    #expect(toldAgain)  // a new outage is told of again
  }
}
