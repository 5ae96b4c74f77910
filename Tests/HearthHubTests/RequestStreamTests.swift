import Foundation
import HearthData
import HearthDataTestSupport
import HearthPlugin
import HearthSQLite
import HearthWire
import HearthZMQ
import Testing

@testable import HearthHub

/// The request stream (`RequestStream`, Protocols/README.md "The request stream") against a
/// real hub: its handshake, requests and replies, and what the hub does with a client that
/// misbehaves. (Tests/python/hub_protocol_test.py speaks it from the spec alone.)
@Suite struct RequestStreamTests {
  static let registration = PluginRegistration(
    name: "s", version: "1", tables: ["s_rows"],
    migrations: [.init(id: "1", sql: "CREATE TABLE s_rows (id INTEGER PRIMARY KEY, v TEXT)")])

  static func insert(_ id: String, _ value: String) -> Data {
    Data(
      #"{"v":1,"type":"transaction","id":"\#(id)","plugin":"s","part":0,"end":"commit","statements":[{"sql":"INSERT INTO s_rows (v) VALUES (?)","args":[{"text":"\#(value)"}]}]}"#
        .utf8)
  }

  static func object(_ frame: Data?) throws -> [String: Any] {
    let frame = try #require(frame)
    return try #require(JSONSerialization.jsonObject(with: frame) as? [String: Any])
  }

  static func open(_ paths: HubPaths, as keys: CurveKeyPair) throws -> RequestStream {
    try RequestStream.open(
      path: paths.requestStreamPath, keys: keys, hubKey: #require(paths.hubPublicKey()),
      timeout: .seconds(5))
  }

  /// A stream that has sent 300 `changes` requests (each answered with the whole feed) and
  /// read nothing yet.
  static func openUnread(_ paths: HubPaths) throws -> RequestStream {
    let stream = try open(paths, as: .generate())
    for index in 0..<300 {
      try stream.send(Data(#"{"v":1,"type":"changes","id":"d\#(index)","since":0}"#.utf8))
    }
    return stream
  }

  @Test func aPluginWritesOnTheStreamAndExactlyOnceHoldsAcrossBothTransports() throws {
    let running = try RunningHub()
    defer { running.stopAndRemove() }
    let keys = try HubTransport.pluginKeys("s", paths: running.paths, [:])
    let database = try HubDatabase.registered(
      Self.registration, paths: running.paths, transport: .ipc(running.paths, keys: keys))
    try database.write { db in try db.execute(sql: "INSERT INTO s_rows (v) VALUES ('plugin')") }

    let stream = try Self.open(running.paths, as: keys)
    // Two requests without waiting: both answered, each with its id.
    try stream.send(Self.insert("w1", "raw"))
    try stream.send(Data(#"{"v":1,"type":"changes","id":"c1","since":0}"#.utf8))
    let replies = try (0..<2).map { _ in try Self.object(stream.receive(timeout: .seconds(5))) }
    let byID = Dictionary(uniqueKeysWithValues: replies.map { ($0["id"] as! String, $0) })
    #expect(byID["w1"]?["type"] as? String == "committed")
    #expect(byID["c1"]?["type"] as? String == "changes")
    // The same transaction again on the ZeroMQ socket: the first reply, marked duplicate.
    let again = try RawClient(running.paths, as: "s").send(
      String(decoding: Self.insert("w1", "raw"), as: UTF8.self))
    #expect(again["duplicate"] as? Bool == true)
    #expect(again["seq"] as? Int == byID["w1"]?["seq"] as? Int)
    let zeroMQ = try HubDatabase.registered(
      Self.registration, paths: running.paths,
      transport: .ipc(running.paths, keys: keys, stream: false))
    try zeroMQ.write { db in try db.execute(sql: "INSERT INTO s_rows (v) VALUES ('zeromq')") }
    let values = try database.read { db in
      try String.fetchAll(db, sql: "SELECT v FROM s_rows ORDER BY id")
    }
    #expect(values == ["plugin", "raw", "zeromq"])
  }

  @Test func aKeyOfNoPluginReadsAndMayNotWrite() throws {
    let running = try RunningHub()
    defer { running.stopAndRemove() }
    _ = try HubDatabase.registered(Self.registration, paths: running.paths)
    let reader = try Self.open(running.paths, as: .generate())
    try reader.send(Data(#"{"v":1,"type":"hello","id":"h"}"#.utf8))
    #expect(try Self.object(reader.receive(timeout: .seconds(5)))["type"] as? String == "welcome")
    try reader.send(Self.insert("w", "x"))
    #expect(
      try Self.object(reader.receive(timeout: .seconds(5)))["code"] as? String == "unauthorized")
  }

  @Test func aClientRefusesAProcessThatDoesNotProveTheHubsKey() throws {
    let running = try RunningHub()
    defer { running.stopAndRemove() }
    #expect(throws: RequestStream.Failure.notTheHub) {
      try RequestStream.open(
        path: running.paths.requestStreamPath, keys: .generate(),
        hubKey: CurveKeyPair.generate().publicKey, timeout: .seconds(5))
    }
    #expect(throws: RequestStream.Failure.notListening) {
      try RequestStream.open(
        path: running.paths.runtimeDirectory + "/nothing.stream", keys: .generate(),
        hubKey: CurveKeyPair.generate().publicKey, timeout: .seconds(5))
    }
  }

  @Test func aFramePastTheTransportLimitIsRefusedAndTheConnectionClosed() throws {
    let running = try RunningHub { $0.maximumMessageSize = 1000 }
    defer { running.stopAndRemove() }
    let stream = try Self.open(running.paths, as: .generate())
    // Past maxMessageSize, within the transport's limit: tooLarge, and the stream goes on.
    try stream.send(
      Data(#"{"v":1,"type":"hello","pad":"\#(String(repeating: "x", count: 2000))"}"#.utf8))
    #expect(try Self.object(stream.receive(timeout: .seconds(5)))["code"] as? String == "tooLarge")
    try stream.send(Data(#"{"v":1,"type":"hello","id":"h"}"#.utf8))
    #expect(try Self.object(stream.receive(timeout: .seconds(5)))["type"] as? String == "welcome")
    // Past the transport's limit (4 × 1000): tooLarge without an id, then the end.
    try stream.send(Data(repeating: 0x20, count: 4001))
    let refusal = try Self.object(stream.receive(timeout: .seconds(5)))
    #expect(refusal["code"] as? String == "tooLarge" && refusal["id"] == nil)
    #expect(throws: StreamClosed.self) { try stream.receive(timeout: .seconds(5)) }
  }

  /// Requests of a connection that closes before they are served are dropped unrun: here
  /// five writes wait behind another plugin's open transaction, and their client leaves.
  @Test func aClosedConnectionsWaitingRequestsNeverRun() throws {
    let running = try RunningHub()
    defer { running.stopAndRemove() }
    let other = PluginRegistration(
      name: "u", version: "1", tables: ["u_rows"],
      migrations: [.init(id: "1", sql: "CREATE TABLE u_rows (id INTEGER PRIMARY KEY, v TEXT)")])
    let database = try HubDatabase.registered(Self.registration, paths: running.paths)
    _ = try HubDatabase.registered(other, paths: running.paths)
    let holder = try Self.open(
      running.paths, as: HubTransport.pluginKeys("u", paths: running.paths, [:]))
    try holder.send(
      Data(
        #"{"v":1,"type":"transaction","id":"hold","plugin":"u","part":0,"statements":[{"sql":"INSERT INTO u_rows (v) VALUES ('held')"}]}"#
          .utf8))
    #expect(try Self.object(holder.receive(timeout: .seconds(5)))["type"] as? String == "results")

    let leaving = try Self.open(
      running.paths, as: HubTransport.pluginKeys("s", paths: running.paths, [:]))
    for index in 0..<5 { try leaving.send(Self.insert("gone\(index)", "gone")) }
    // The hub has read them (they wait for the writer), then the client goes.
    func connections() throws -> [String: Any] {
      try holder.send(Data(#"{"v":1,"type":"hello","id":"h"}"#.utf8))
      return try #require(
        Self.object(holder.receive(timeout: .seconds(5)))["connections"] as? [String: Any])
    }
    let deadline = ContinuousClock.now + .seconds(5)
    while try connections()["waitingRequests"] as? Int != 5, ContinuousClock.now < deadline {
      Thread.sleep(forTimeInterval: 0.01)
    }
    #expect(try connections()["waitingRequests"] as? Int == 5)
    let open = try #require(connections()["streamConnections"] as? Int)
    leaving.close()
    while try connections()["streamConnections"] as? Int != open - 1, ContinuousClock.now < deadline
    {
      Thread.sleep(forTimeInterval: 0.01)
    }
    #expect(try connections()["streamConnections"] as? Int == open - 1)

    try holder.send(
      Data(
        #"{"v":1,"type":"transaction","id":"hold","plugin":"u","part":1,"end":"commit","statements":[]}"#
          .utf8))
    let committed = try Self.object(holder.receive(timeout: .seconds(5)))
    #expect(committed["type"] as? String == "committed", "\(committed)")
    try database.write { db in try db.execute(sql: "INSERT INTO s_rows (v) VALUES ('after')") }
    let values = try database.read { db in
      try String.fetchAll(db, sql: "SELECT v FROM s_rows ORDER BY id")
    }
    #expect(values == ["after"])
  }

  /// A client that sends and never reads fills its socket; the hub keeps its replies and
  /// goes on serving everyone else.
  @Test func aClientThatDoesNotReadHoldsNobodyUp() throws {
    let running = try RunningHub()
    defer { running.stopAndRemove() }
    let database = try HubDatabase.registered(Self.registration, paths: running.paths)
    try database.write { db in
      for index in 0..<1000 {
        try db.execute(sql: "INSERT INTO s_rows (v) VALUES (?)", arguments: ["\(index)"])
      }
    }
    let deaf = try Self.openUnread(running.paths)
    let started = ContinuousClock.now
    try database.write { db in try db.execute(sql: "INSERT INTO s_rows (v) VALUES ('after')") }
    #expect(ContinuousClock.now - started < .seconds(3))
    // Its replies waited for it: every one comes when it reads at last. They were more than
    // its socket holds (a unix socket buffers about 208 KiB, `net.core.wmem_default`), so
    // the hub did hold some.
    var (answered, bytes) = (0, 0)
    while let frame = try deaf.receive(timeout: .seconds(5)) {
      #expect(try Self.object(frame)["type"] as? String == "changes")
      (answered, bytes) = (answered + 1, bytes + frame.count)
      if answered == 300 { break }
    }
    #expect(answered == 300)
    #expect(bytes > 1 << 20)
  }

  /// A client refused (here for a frame past the limit) while replies wait for it, and that
  /// reads nothing, is closed at its deadline with what waited: the hub does not keep it.
  @Test func aRefusedClientThatDoesNotReadIsClosedAtItsDeadline() throws {
    let running = try RunningHub { $0.maximumMessageSize = 16_384 }
    defer { running.stopAndRemove() }
    let database = try HubDatabase.registered(Self.registration, paths: running.paths)
    for _ in 0..<10 {
      try database.write { db in
        for index in 0..<100 {
          try db.execute(sql: "INSERT INTO s_rows (v) VALUES (?)", arguments: ["\(index)"])
        }
      }
    }
    let deaf = try Self.openUnread(running.paths)
    try deaf.send(Data(repeating: 0x20, count: 4 * 16_384 + 1))
    Thread.sleep(
      forTimeInterval: Double(StreamLimits(descriptors: 4096, replyBudget: 1).handshakeDeadline)
        / 1e9 + 1.5)
    // What the socket held comes, then the end: neither every reply nor the refusal.
    var answered = 0
    #expect(throws: StreamClosed.self) {
      while let frame = try deaf.receive(timeout: .seconds(5)) {
        let object = try Self.object(frame)
        #expect(
          object["type"] as? String == "changes", "got \(object.filter { $0.key != "commits" })")
        answered += 1
      }
    }
    #expect(answered > 0 && answered < 300)
  }

  /// When the hub stops, a client waiting on the stream hears it at once, and its next
  /// request reaches the next hub.
  @Test func aStoppingHubEndsTheWaitAndTheNextHubIsReachedAgain() throws {
    let first = try RunningHub()
    defer { first.removeFiles() }
    let database = try HubDatabase.registered(Self.registration, paths: first.paths)
    try database.write { db in try db.execute(sql: "INSERT INTO s_rows (v) VALUES ('one')") }
    let stream = try Self.open(first.paths, as: .generate())
    let waited = ContinuousClock.now
    let stopped = DispatchSemaphore(value: 0)
    DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) {
      first.stop()
      stopped.signal()
    }
    #expect(throws: StreamClosed.self) { try stream.receive(timeout: .seconds(30)) }
    #expect(ContinuousClock.now - waited < .seconds(15))
    stopped.wait()
    let second = try RunningHub(directory: first.directory)
    defer { second.stop() }
    try database.write { db in try db.execute(sql: "INSERT INTO s_rows (v) VALUES ('two')") }
    #expect(
      try database.read { db in try String.fetchAll(db, sql: "SELECT v FROM s_rows ORDER BY id") }
        == ["one", "two"])
  }

  @Test func framesAreCutWhereverTheBytesBreak() throws {
    var buffer = FrameBuffer()
    let frames = [Data("a".utf8), Data(), Data(repeating: 7, count: 70_000)]
    var bytes = Data()
    for frame in frames { bytes += FrameBuffer.header(frame.count) + frame }
    var out: [Data] = []
    var offset = 0
    for size in [1, 2, 3, 5, 8, 13, 100_000] where offset < bytes.count {
      let end = min(bytes.count, offset + size)
      bytes[offset..<end].withUnsafeBytes { buffer.append($0) }
      offset = end
      while let frame = try buffer.next(limit: 100_000) { out.append(frame) }
    }
    #expect(out == frames)
    #expect(buffer.count == 0)
    Data(FrameBuffer.header(5000)).withUnsafeBytes { buffer.append($0) }
    #expect(throws: FrameTooLarge.self) { try buffer.next(limit: 4096) }
  }
}
