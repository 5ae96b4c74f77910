import Foundation
import HearthTransport
import Testing

/// A unique ipc endpoint in a private temporary directory.
func ipcEndpoint(_ name: String) throws -> (String, URL) {
  let directory = FileManager.default.temporaryDirectory
    .appendingPathComponent("hearth-bus-\(UUID().uuidString.prefix(8))")
  try FileManager.default.createDirectory(
    at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
  return ("ipc://" + directory.appendingPathComponent(name).path, directory)
}

@Suite struct BusSocketTests {
  let context = BusContext()

  @Test func libzmqIsRecentAndHasCurve() {
    let version = BusContext.version
    #expect(version.major == 4 && version.minor >= 3)
    #expect(BusContext.hasCurve)
  }

  @Test func dealerAndRouterExchangeMultipartMessages() throws {
    let (endpoint, directory) = try ipcEndpoint("router.sock")
    defer { try? FileManager.default.removeItem(at: directory) }
    let router = try BusSocket(context, .router)
    try router.bind(endpoint)
    let dealer = try BusSocket(context, .dealer)
    try dealer.setRoutingID(Data("client-1".utf8))
    try dealer.connect(endpoint)

    try dealer.send(["hello", "", "world"])
    let received = try #require(try router.receive(timeout: .seconds(5)))
    #expect(
      received.map { String(decoding: $0, as: UTF8.self) } == ["client-1", "hello", "", "world"])

    try router.send([received[0], Data("reply".utf8)])
    let reply = try #require(try dealer.receive(timeout: .seconds(5)))
    #expect(reply == [Data("reply".utf8)])
  }

  @Test func receiveTimesOutWithNil() throws {
    let (endpoint, directory) = try ipcEndpoint("quiet.sock")
    defer { try? FileManager.default.removeItem(at: directory) }
    let router = try BusSocket(context, .router)
    try router.bind(endpoint)
    let start = ContinuousClock.now
    #expect(try router.receive(timeout: .milliseconds(50)) == nil)
    #expect(ContinuousClock.now - start >= .milliseconds(40))
  }

  /// `.zero` takes what is queued without waiting; a bounded wait after it waits again (the
  /// wait is the receive's own option, set for each call).
  @Test func receiveWithoutWaitingTakesWhatIsQueuedAndTheNextWaitStillWaits() throws {
    let (endpoint, directory) = try ipcEndpoint("zero.sock")
    defer { try? FileManager.default.removeItem(at: directory) }
    let router = try BusSocket(context, .router)
    try router.bind(endpoint)
    let dealer = try BusSocket(context, .dealer)
    try dealer.connect(endpoint)
    for index in 0..<3 { try dealer.send(["message \(index)"]) }
    var received = [try #require(try router.receive(timeout: .seconds(5)))]
    let deadline = ContinuousClock.now + .seconds(5)
    while received.count < 3, ContinuousClock.now < deadline {
      if let next = try router.receive(timeout: .zero) { received.append(next) }
    }
    #expect(
      received.map { String(decoding: $0[1], as: UTF8.self) } == [
        "message 0", "message 1", "message 2",
      ])
    let start = ContinuousClock.now
    #expect(try router.receive(timeout: .zero) == nil)
    #expect(try router.receive(timeout: .milliseconds(50)) == nil)
    #expect(ContinuousClock.now - start >= .milliseconds(40))
    try dealer.send(["late"])
    let late = try #require(try router.receive(timeout: .seconds(5)))
    #expect(late.last == Data("late".utf8))
  }

  @Test func subscribersReceiveOnlyTheirTopics() throws {
    let (endpoint, directory) = try ipcEndpoint("bus.sock")
    defer { try? FileManager.default.removeItem(at: directory) }
    let publisher = try BusSocket(context, .pub)
    try publisher.bind(endpoint)
    let subscriber = try BusSocket(context, .sub)
    try subscriber.subscribe("table:reminders")
    try subscriber.connect(endpoint)
    // A subscription takes a moment to reach the publisher (the "slow joiner").
    var first: [Data]?
    for _ in 0..<100 where first == nil {
      try publisher.send(["table:facts", "{}"])
      try publisher.send(["table:reminders", "{\"n\":1}"])
      first = try subscriber.receive(timeout: .milliseconds(20))
    }
    #expect(first.map { String(decoding: $0[0], as: UTF8.self) } == "table:reminders")
  }

  @Test func aFullQueueReportsWouldBlock() throws {
    let (endpoint, directory) = try ipcEndpoint("slow.sock")
    defer { try? FileManager.default.removeItem(at: directory) }
    let push = try BusSocket(context, .push)
    try push.setSendHighWaterMark(10)
    try push.bind(endpoint)
    let pull = try BusSocket(context, .pull)
    try pull.setReceiveHighWaterMark(10)
    try pull.connect(endpoint)
    // A blocking send waits for the peer; then the queue fills up.
    try push.send(["message 0"])
    var failure: BusError?
    for index in 1..<10_000 {
      do {
        try push.send(["message \(index)"], dontWait: true)
      } catch let error as BusError {
        failure = error
        break
      }
    }
    #expect(failure?.wouldBlock == true)
    #expect(try pull.receive(timeout: .seconds(1)) == [Data("message 0".utf8)])
  }

  @Test func curveLetsInOnlyClientsThatKnowTheServerKey() throws {
    let serverKeys = try CurveKeyPair.generate()
    #expect(serverKeys.publicKey.count == 40 && serverKeys.secretKey.count == 40)
    let server = try BusSocket(context, .router)
    try server.makeCurveServer(serverKeys)
    try server.bind("tcp://127.0.0.1:*")
    let endpoint = try #require(server.lastEndpoint)

    let trusted = try BusSocket(context, .dealer)
    try trusted.makeCurveClient(try CurveKeyPair.generate(), serverKey: serverKeys.publicKey)
    try trusted.connect(endpoint)
    try trusted.send(["secret"])
    let received = try #require(try server.receive(timeout: .seconds(5)))
    #expect(received.last == Data("secret".utf8))

    let stranger = try BusSocket(context, .dealer)
    try stranger.makeCurveClient(
      try CurveKeyPair.generate(), serverKey: try CurveKeyPair.generate().publicKey)
    try stranger.connect(endpoint)
    try stranger.send(["let me in"], dontWait: true)
    #expect(try server.receive(timeout: .milliseconds(300)) == nil)

    let plain = try BusSocket(context, .dealer)
    try plain.connect(endpoint)
    try plain.send(["no keys"], dontWait: true)
    #expect(try server.receive(timeout: .milliseconds(300)) == nil)
  }

  @Test func bindErrorsNameTheEndpoint() throws {
    let socket = try BusSocket(context, .router)
    let error = try #require(throws: BusError.self) {
      try socket.bind("ipc:///nonexistent-dir/x/hub.sock")
    }
    #expect(error.endpoint == "ipc:///nonexistent-dir/x/hub.sock")
    #expect(error.description.contains("bind failed"))
  }
}
