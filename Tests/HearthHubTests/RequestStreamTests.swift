import Foundation
import HearthData
import HearthDataTestSupport
import HearthPlugin
import HearthSQLite
import HearthWire
import Testing

@testable import HearthHub
@testable import HearthTransport

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

  /// A greeting sealed for another key than the hub's: the hub cannot read it and closes
  /// the connection. A process at the path that answers without the hub's secret key (it
  /// has the public one, as everyone does): the client refuses it. Nothing at the path:
  /// `notListening`.
  @Test func aClientRefusesAProcessThatDoesNotProveTheHubsKey() throws {
    let running = try RunningHub()
    defer { running.stopAndRemove() }
    #expect(throws: RequestStream.Failure.noAnswer) {
      try RequestStream.open(
        path: running.paths.requestStreamPath, keys: .generate(),
        hubKey: CurveKeyPair.generate().publicKey, timeout: .seconds(5))
    }
    let impostor = running.paths.runtimeDirectory + "/impostor.stream"
    let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(listener) }
    #expect(withUnixAddress(impostor, { bind(listener, $0, $1) }) == 0)
    #expect(listen(listener, 4) == 0)
    let answered = Thread {
      let fd = accept(listener, nil, nil)
      guard fd >= 0 else { return }
      defer { close(fd) }
      var greeting = [UInt8](repeating: 0, count: 4 + StreamHandshake.greetingSize)
      _ = recv(fd, &greeting, greeting.count, Int32(MSG_WAITALL))
      // An answer of the right size that no secret key made.
      let answer =
        FrameBuffer.header(StreamHandshake.answerSize)
        + (0..<StreamHandshake.answerSize).map { _ in UInt8.random(in: 0...255) }
      _ = send(fd, answer, answer.count, 0)
      var rest = [UInt8](repeating: 0, count: 64)
      _ = recv(fd, &rest, rest.count, 0)
    }
    answered.start()
    #expect(throws: RequestStream.Failure.notTheHub) {
      try RequestStream.open(
        path: impostor, keys: .generate(), hubKey: #require(running.paths.hubPublicKey()),
        timeout: .seconds(5))
    }
    #expect(throws: RequestStream.Failure.notListening) {
      try RequestStream.open(
        path: running.paths.runtimeDirectory + "/nothing.stream", keys: .generate(),
        hubKey: CurveKeyPair.generate().publicKey, timeout: .seconds(5))
    }
  }

  /// Key-compromise impersonation: a process that has stolen the hub's secret key, and has
  /// no plugin's, tries to act as plugin `s` on the stream. It can make the first handshake
  /// message in `s`'s name (its `ss` is the hub's secret with `s`'s public key), but not
  /// the keys after the second (`se` needs `s`'s secret key): its confirmation and its
  /// write do not decrypt, the hub closes the connection, and nothing is written.
  @Test func theHubsSecretKeyAloneCannotActAsAPlugin() throws {
    let running = try RunningHub()
    defer { running.stopAndRemove() }
    let database = try HubDatabase.registered(Self.registration, paths: running.paths)
    let plugin = try #require(try running.paths.keyring.pluginKeys("s"))
    let hub = try #require(StreamHandshake.keyPair(running.paths.keyring.hubKeys()))
    let pluginPublic = try #require(CurveKeyPair.raw(plugin.publicKey))

    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    #expect(withUnixAddress(running.paths.requestStreamPath, { connect(fd, $0, $1) }) == 0)
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    // The initiator's first message, step by step, with the hub's secret in `ss`.
    var symmetric = NoiseSymmetric(protocolName: Noise.protocolName)
    symmetric.mixHash(StreamHandshake.magic)
    symmetric.mixHash(hub.publicKey)
    let ephemeral = Noise.KeyPair.generate()
    var first = ephemeral.publicKey
    symmetric.mixHash(ephemeral.publicKey)
    symmetric.mixKey(try Noise.dh(ephemeral, hub.publicKey))
    first += try symmetric.encryptAndHash(pluginPublic)
    symmetric.mixKey(try Noise.dh(hub, pluginPublic))
    first += try symmetric.encryptAndHash(Data())
    Self.sendFrame(fd, StreamHandshake.magic + first)
    // The hub accepts the first message and answers.
    let answer = try #require(Self.readFrame(fd))
    #expect(answer.count == StreamHandshake.answerSize)
    // `ee` it can do; `se` (the plugin's secret with the hub's ephemeral key) it cannot:
    // its best guess is the hub's secret again.
    let hubEphemeral = answer.prefix(32)
    symmetric.mixHash(hubEphemeral)
    symmetric.mixKey(try Noise.dh(ephemeral, hubEphemeral))
    symmetric.mixKey(try Noise.dh(hub, hubEphemeral))
    #expect(throws: Noise.Failure.decryption) {
      try symmetric.decryptAndHash(answer.dropFirst(32))
    }
    var (toHub, _) = symmetric.split()
    Self.sendFrame(fd, try toHub.encrypt(Data()))
    Self.sendFrame(fd, try toHub.encrypt(Self.insert("stolen", "impostor")))
    // The hub closes the connection without a word.
    #expect(Self.readFrame(fd) == nil)
    let rows = try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM s_rows") }
    #expect(rows == 0)
  }

  /// A relay between a real plugin and the hub passes the plugin's handshake and first
  /// write through, then slips in a write of its own, in the clear: every frame after the
  /// handshake is sealed for its place in the session, so the hub closes the connection
  /// and the relay's write never runs.
  @Test func aFrameInjectedAfterARealHandshakeIsRefused() throws {
    let running = try RunningHub()
    defer { running.stopAndRemove() }
    let database = try HubDatabase.registered(Self.registration, paths: running.paths)
    let keys = try HubTransport.pluginKeys("s", paths: running.paths, [:])
    let hubKey = try #require(running.paths.hubPublicKey())
    let relayPath = running.paths.runtimeDirectory + "/relay.stream"
    let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(listener) }
    #expect(withUnixAddress(relayPath, { bind(listener, $0, $1) }) == 0)
    #expect(listen(listener, 4) == 0)
    // The plugin, on its own thread, talks to the relay as if it were the hub.
    Thread {
      guard
        let stream = try? RequestStream.open(
          path: relayPath, keys: keys, hubKey: hubKey, timeout: .seconds(5))
      else { return }
      try? stream.send(Self.insert("own", "plugin"))
      _ = try? stream.receive(timeout: .seconds(5))
      _ = try? stream.receive(timeout: .seconds(5))
    }.start()
    let plugin = accept(listener, nil, nil)
    defer { close(plugin) }
    let hub = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(hub) }
    #expect(withUnixAddress(running.paths.requestStreamPath, { connect(hub, $0, $1) }) == 0)
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    for fd in [plugin, hub] {
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }
    // Greeting, answer, confirmation, the plugin's write and its reply: passed through.
    for (from, to) in [(plugin, hub), (hub, plugin), (plugin, hub), (plugin, hub), (hub, plugin)] {
      Self.sendFrame(to, try #require(Self.readFrame(from)))
    }
    Self.sendFrame(hub, Self.insert("relay", "injected"))
    #expect(Self.readFrame(hub) == nil)
    let values = try database.read { db in try String.fetchAll(db, sql: "SELECT v FROM s_rows") }
    #expect(values == ["plugin"])
  }

  static func sendFrame(_ fd: Int32, _ body: Data) {
    let bytes = FrameBuffer.header(body.count) + [UInt8](body)
    _ = send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL))
  }

  /// The next frame on a blocking socket; nil when it closes (or its receive timeout ends).
  static func readFrame(_ fd: Int32) -> Data? {
    func exactly(_ count: Int) -> [UInt8]? {
      var bytes = [UInt8](repeating: 0, count: count)
      var got = 0
      while got < count {
        let n = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + got, count - got, 0) }
        if n <= 0 { return nil }
        got += n
      }
      return bytes
    }
    guard let header = exactly(4) else { return nil }
    let length = header.reduce(0) { $0 << 8 | Int($1) }
    return exactly(length).map { Data($0) }
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
    // The deadline is on the hub's clock, which the test moves.
    let clock = TestClock()
    let running = try RunningHub(clock: clock) { $0.maximumMessageSize = 16_384 }
    defer { running.stopAndRemove() }
    let database = try HubDatabase.registered(Self.registration, paths: running.paths)
    for _ in 0..<10 {
      try database.write { db in
        for index in 0..<100 {
          try db.execute(sql: "INSERT INTO s_rows (v) VALUES (?)", arguments: ["\(index)"])
        }
      }
    }
    let watcher = try Self.open(running.paths, as: .generate())
    func connections() throws -> [String: Any] {
      try watcher.send(Data(#"{"v":1,"type":"hello","id":"h"}"#.utf8))
      return try #require(
        Self.object(watcher.receive(timeout: .seconds(5)))["connections"] as? [String: Any])
    }
    let deaf = try Self.openUnread(running.paths)
    try deaf.send(Data(repeating: 0x20, count: 4 * 16_384 + 1))
    // Each hello is a turn of the hub's: it reads what came (the deaf client's requests,
    // then its frame past the limit, which it refuses: the deadline starts then, on the
    // hub's clock), then closes what is past its deadline. The hub's time moves 100 ms a
    // turn until the refused client is gone: never before its deadline.
    let open = try #require(connections()["streamConnections"] as? Int)
    let deadline = StreamLimits(descriptors: 4096, replyBudget: 1).handshakeDeadline
    var moved = Duration.zero
    let started = ContinuousClock.now
    while try connections()["streamConnections"] as? Int == open {
      try #require(ContinuousClock.now - started < .seconds(30))
      clock.advance(by: .milliseconds(100))
      moved += .milliseconds(100)
    }
    #expect(moved > deadline)
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
