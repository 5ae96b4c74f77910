import Foundation
import HearthData
import HearthDataTestSupport
import HearthHub
import HearthPlugin
import HearthSQLite
import HearthTestbed
import HearthTransport
import HearthWire
import Synchronization
import Testing

@Suite(.serialized) struct ProcessTests {
  /// Every command of `hearth` and of each feature, with no hub and no database: an
  /// option it does not take exits 2, its `--help` 0, and the executable's `--version` 0;
  /// none of it writes anything. (The commands are read from each `--help`.)
  @Test func everyCommandAnswersHelpAndRefusesAnUnknownOptionWithoutTheHub() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    var environment = ProcessInfo.processInfo.environment
    environment["HEARTH_DATABASE"] = directory.appendingPathComponent("data/hearth.sqlite").path
    environment["HEARTH_RUNTIME_DIR"] = directory.appendingPathComponent("run").path
    environment["HEARTH_KEYS_DIR"] = directory.appendingPathComponent("keys").path
    let executables = [
      "hearth", "hearth-reminders", "hearth-facts", "hearth-syncups", "hearth-attachments",
    ]
    var checked = 0
    for name in executables {
      let path = try Executables.path(name)
      let help = try runToEnd(path: path, ["--help"], environment: environment)
      #expect(help.status == 0, "\(name) --help: \(help.output)")
      let version = try runToEnd(path: path, ["--version"], environment: environment)
      #expect(version.status == 0 && version.output.hasPrefix("\(name) "), "\(version.output)")
      let commands = help.output.split(separator: "\n").compactMap { line -> String? in
        guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
        return line.split(separator: " ").first.map(String.init)
      }
      #expect(commands.count >= 3, "\(name)'s commands: \(commands)")
      for command in commands {
        let own = try runToEnd(path: path, [command, "--help"], environment: environment)
        #expect(own.status == 0, "\(name) \(command) --help: \(own.output)")
        let bogus = try runToEnd(path: path, [command, "--bogus-option"], environment: environment)
        #expect(bogus.status == 2, "\(name) \(command) --bogus-option: \(bogus.output)")
        #expect(bogus.output.contains("unknown option --bogus-option"), "\(bogus.output)")
        checked += 1
      }
    }
    #expect(checked >= 30)
    // hearthd: the same, and a config file named but missing is an error naming it.
    let hearthd = try Executables.path("hearthd")
    #expect(try runToEnd(path: hearthd, ["--help"], environment: environment).status == 0)
    let hubVersion = try runToEnd(path: hearthd, ["--version"], environment: environment)
    #expect(hubVersion.status == 0 && hubVersion.output.hasPrefix("hearthd "))
    let hubBogus = try runToEnd(path: hearthd, ["--bogus-option"], environment: environment)
    #expect(
      hubBogus.status == 2 && hubBogus.output.contains("--bogus-option"), "\(hubBogus.output)")
    let missing = directory.appendingPathComponent("none.conf").path
    let noConfig = try runToEnd(path: hearthd, ["--config", missing], environment: environment)
    #expect(noConfig.status == 2, "\(noConfig.output)")
    #expect(noConfig.output.contains("\(missing): no such config file"), "\(noConfig.output)")
    // hearth-web: the same; --url with no server running says so (exit 3).
    let web = try Executables.path("hearth-web")
    #expect(try runToEnd(path: web, ["--help"], environment: environment).status == 0)
    let webVersion = try runToEnd(path: web, ["--version"], environment: environment)
    #expect(webVersion.status == 0 && webVersion.output.hasPrefix("hearth-web "))
    let webTypo = try runToEnd(path: web, ["--prot", "80"], environment: environment)
    #expect(
      webTypo.status == 2 && webTypo.output.contains("did you mean --port?"), "\(webTypo.output)")
    let webPort = try runToEnd(path: web, ["--port", "99999"], environment: environment)
    #expect(webPort.status == 2 && webPort.output.contains("port"), "\(webPort.output)")
    let webMissing = try runToEnd(path: web, ["--config", missing], environment: environment)
    #expect(webMissing.status == 2 && webMissing.output.contains("no such config file"))
    let webURL = try runToEnd(path: web, ["--url"], environment: environment)
    #expect(webURL.status == 3 && webURL.output.contains("not running"), "\(webURL.output)")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == [],
      "nothing written without the hub")
    // The nearest option is named; a command that runs needs the hub (exit 3).
    let reminders = try Executables.path("hearth-reminders")
    let misspelt = try runToEnd(
      path: reminders, ["add", "Foo", "--prio", "high"], environment: environment)
    #expect(misspelt.status == 2)
    #expect(misspelt.output.contains("unknown option --prio; did you mean --priority?"))
    #expect(try runToEnd(path: reminders, ["show"], environment: environment).status == 3)
    // `hearth subscribe` too fails at once rather than waiting for a hub.
    let subscribe = Process()
    subscribe.executableURL = URL(fileURLWithPath: try Executables.path("hearth"))
    subscribe.arguments = ["subscribe"]
    subscribe.environment = environment
    subscribe.standardOutput = FileHandle.nullDevice
    subscribe.standardError = FileHandle.nullDevice
    try subscribe.run()
    let deadline = ContinuousClock.now + .seconds(10)
    while subscribe.isRunning, ContinuousClock.now < deadline {
      Thread.sleep(forTimeInterval: 0.02)
    }
    if subscribe.isRunning { subscribe.terminate() }
    subscribe.waitUntilExit()
    #expect(subscribe.terminationStatus == 3)
  }

  @Test func hearthdSpeaksSdNotifyAndStopsCleanlyOnSIGTERM() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let hub = try HubProcess(directory: directory)
    let ready = try hub.waitUntilReady()
    #expect(ready.last?.contains("STATUS=serving") == true)
    #expect(hub.terminate() == 0)
    #expect(hub.logText.contains("hearthd: stopped at sequence"))
    let socket = hub.runtimeDirectory
    let attributes = try FileManager.default.attributesOfItem(atPath: socket)
    #expect((attributes[.posixPermissions] as? Int) == 0o700)
    // A clean stop leaves no socket behind.
    let left = try FileManager.default.contentsOfDirectory(atPath: socket)
    #expect(left.filter { ["hub.sock", "bus.sock", "hub.stream"].contains($0) } == [])
  }

  @Test func aSecondHubOnTheSameDatabaseOrSocketsRefusesToStart() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let first = try HubProcess(directory: directory)
    _ = try first.waitUntilReady()
    defer { _ = first.terminate() }
    let pid = first.process.processIdentifier

    func refused(_ second: HubProcess, saying text: String) throws {
      let status = try second.notify.wait(for: "STATUS=cannot start")
      second.process.waitUntilExit()
      #expect(second.process.terminationStatus == 1)
      #expect(second.logText.contains(text), "\(second.logText)")
      #expect(status.last?.contains(text) == true)
    }
    // The same database, with the same sockets or others.
    try refused(
      HubProcess(directory: directory), saying: "another hearthd (pid \(pid)) is serving")
    try refused(
      HubProcess(
        directory: directory, runtimeDirectory: directory.appendingPathComponent("other").path),
      saying: "another hearthd (pid \(pid)) is serving")
    // Another database on the first hub's sockets.
    try refused(
      HubProcess(
        directory: directory,
        databasePath: directory.appendingPathComponent("other.sqlite").path),
      saying: "a hub is already serving at ipc://\(first.runtimeDirectory)/hub.sock")

    // The first hub kept its sockets and its database, and serves.
    let writer = try LoadgenProcess(hub: first, arguments: ["--plugin", "after", "--count", "3"])
    #expect(try writer.waitForExit() == 0, "\(writer.lines.suffix(3))")
    #expect(writer.acknowledged == [0, 1, 2])
  }

  @Test func aHubKilledWithSIGKILLLeavesNothingThatStopsTheNext() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let killed = try HubProcess(directory: directory)
    _ = try killed.waitUntilReady()
    killed.kill()
    // Its socket files and lock file are still there.
    #expect(FileManager.default.fileExists(atPath: killed.runtimeDirectory + "/hub.sock"))
    let keys = directory.appendingPathComponent("keys").path
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: keys).contains {
        $0.hasPrefix("hearthd-") && $0.hasSuffix(".lock")
      })
    let next = try HubProcess(directory: directory)
    _ = try next.waitUntilReady()
    let writer = try LoadgenProcess(hub: next, arguments: ["--plugin", "next", "--count", "2"])
    #expect(try writer.waitForExit() == 0, "\(writer.lines.suffix(3))")
    #expect(next.terminate() == 0)
  }

  @Test func twoPluginProcessesSeeEachOtherAndKeepToTheirOwnTables() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let hub = try HubProcess(directory: directory)
    _ = try hub.waitUntilReady()
    defer { _ = hub.terminate() }
    let alpha = try LoadgenProcess(
      hub: hub,
      arguments: ["--plugin", "alpha", "--count", "40", "--watch", "beta", "--expect", "40"])
    let beta = try LoadgenProcess(
      hub: hub,
      arguments: [
        "--plugin", "beta", "--count", "40", "--watch", "alpha", "--expect", "40", "--try-write",
        "alpha",
      ])
    #expect(try alpha.waitForExit() == 0, "\(alpha.lines.suffix(5))")
    #expect(try beta.waitForExit() == 0, "\(beta.lines.suffix(5))")
    #expect(alpha.lines.contains("saw 40"))
    #expect(beta.lines.contains("saw 40"))
    #expect(beta.lines.contains("refused unauthorized"))
    #expect(alpha.acknowledged.count == 40)

    // `hearth plugins` lists both, with the tables they own.
    let cli = Process()
    cli.executableURL = URL(fileURLWithPath: try Executables.path("hearth"))
    cli.arguments = [
      "plugins", "--json", "--database", hub.databasePath, "--runtime-dir", hub.runtimeDirectory,
    ]
    let output = Pipe()
    cli.standardOutput = output
    try cli.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    cli.waitUntilExit()
    let plugins = try #require(JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    #expect(plugins.map { $0["name"] as? String } == ["alpha", "beta"])
    #expect(plugins.allSatisfy { ($0["tables"] as? [String])?.count == 1 })
    #expect(plugins.allSatisfy { $0.keys.contains("cursor") })
  }

  @Test func killingTheHubMidLoadLosesNothingAndAppliesNothingTwice() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    var hub = try HubProcess(directory: directory)
    _ = try hub.waitUntilReady()
    let writers = try (0..<4).map { index in
      try LoadgenProcess(hub: hub, arguments: ["--plugin", "w\(index)", "--count", "120"])
    }
    for round in 0..<3 {
      // Let some writes through, then kill the hub without warning, and start it again.
      let before = writers.map(\.acknowledged.count).reduce(0, +)
      eventually(timeout: .seconds(60)) {
        writers.map(\.acknowledged.count).reduce(0, +) >= before + 30
          || writers.allSatisfy { !$0.process.isRunning }
      }
      hub.kill()
      Thread.sleep(forTimeInterval: 0.05 * Double(round + 1))
      hub = try HubProcess(directory: directory)
      _ = try hub.waitUntilReady()
    }
    for writer in writers {
      #expect(try writer.waitForExit() == 0, "\(writer.lines.suffix(3))")
    }
    defer { _ = hub.terminate() }
    let database = try DatabaseQueue(path: hub.databasePath)
    try database.read { db in
      #expect(try db.integrityCheck() == ["ok"])
      for (index, writer) in writers.enumerated() {
        let acknowledged = Set(writer.acknowledged)
        #expect(acknowledged.count == 120)
        let keys = try String.fetchAll(db, sql: "SELECT key FROM w\(index)_rows")
        // Every acknowledged write exactly once, and nothing else.
        #expect(keys.count == 120)
        #expect(Set(keys) == Set((0..<120).map { "w\(index)-\($0)" }))
      }
    }
  }

  @Test func theUnitsPassSystemdAnalyzeVerifyAndItsSecurityAim() throws {
    let analyze = "/usr/bin/systemd-analyze"
    guard FileManager.default.isExecutableFile(atPath: analyze) else {
      throw TestbedError("systemd-analyze is missing; scripts/setup installs systemd")
    }
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let etc = Executables.packageRoot.appendingPathComponent("etc")
    // The units name the installed binaries; point them at this build's.
    let hubUnit = try String(
      contentsOf: etc.appendingPathComponent("hearthd.service"), encoding: .utf8
    )
    .replacingOccurrences(of: "%h/.local/bin/hearthd", with: try Executables.path("hearthd"))
    let featureUnit = try String(
      contentsOf: etc.appendingPathComponent("hearth-feature@.service"), encoding: .utf8
    ).replacingOccurrences(
      of: "%h/.local/bin/hearth-%i", with: try Executables.path("hearth-loadgen"))
    let webUnit = try String(
      contentsOf: etc.appendingPathComponent("hearth-web.service"), encoding: .utf8
    ).replacingOccurrences(of: "%h/.local/bin/hearth-web", with: try Executables.path("hearth-web"))
    let calDAVUnit = try String(
      contentsOf: etc.appendingPathComponent("hearth-caldav.service"), encoding: .utf8
    ).replacingOccurrences(
      of: "%h/.local/bin/hearth-reminders", with: try Executables.path("hearth-reminders"))
    let units = [
      "hearthd.service": hubUnit, "hearth-feature@.service": featureUnit,
      "hearth-feature@reminders.service": featureUnit, "hearth-web.service": webUnit,
      "hearth-caldav.service": calDAVUnit,
    ]
    for (name, text) in units {
      try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }
    func analyzed(_ arguments: [String]) throws -> (status: Int32, text: String) {
      var environment = ProcessInfo.processInfo.environment
      // --user asks where the user manager's runtime directory is, even offline.
      environment["XDG_RUNTIME_DIR"] = environment["XDG_RUNTIME_DIR"] ?? directory.path
      let (status, output) = try runToEnd(path: analyze, arguments, environment: environment)
      return (status, output)
    }
    // The aim: the hub at most 2.0, a feature, the browser view and the CalDAV bridge (which
    // need the network namespace's loopback) at most 2.5 ("OK" or better).
    for (unit, aim) in [
      ("hearthd.service", 2.0), ("hearth-feature@reminders.service", 2.5),
      ("hearth-web.service", 2.5), ("hearth-caldav.service", 2.5),
    ] {
      let path = directory.appendingPathComponent(unit).path
      let verified = try analyzed(["verify", path])
      #expect(verified.status == 0, "\(unit): \(verified.text)")
      let security = try analyzed(["security", "--offline=true", "--user", path])
      let level = security.text.split(separator: "\n")
        .first { $0.contains("Overall exposure level") }
        .flatMap { line in line.split(separator: ":").last?.split(separator: " ").first }
        .flatMap { Double($0) }
      let exposure = try #require(level, "\(unit): \(security.text.suffix(2000))")
      #expect(exposure <= aim, "\(unit) is rated \(exposure), above \(aim)")
    }
  }
}

@Suite(.serialized) struct SubscriberTests {
  /// Writes `count` commits through a loadgen process.
  func write(_ count: Int, as plugin: String, to hub: HubProcess) throws {
    let writer = try LoadgenProcess(
      hub: hub, arguments: ["--plugin", plugin, "--count", String(count)])
    #expect(try writer.waitForExit() == 0)
  }

  @Test func aRestartedSubscriberGetsExactlyWhatItMissedInOrder() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let hub = try HubProcess(directory: directory)
    _ = try hub.waitUntilReady()
    defer { _ = hub.terminate() }
    try write(10, as: "early", to: hub)  // sequence 1 (registration) to 11
    let first = try SubscriberProcess(hub: hub, arguments: ["--since", "0"])
    eventually { first.sequences.count == 11 }
    first.stop()
    let cursor = try #require(first.sequences.last)
    #expect(first.sequences == Array(1...11))
    try write(20, as: "late", to: hub)  // 12 (registration) to 32
    let second = try SubscriberProcess(hub: hub, arguments: ["--since", String(cursor)])
    defer { second.stop() }
    eventually { second.sequences.count >= 21 }
    try write(5, as: "late", to: hub)  // 33 to 37, live
    eventually { second.sequences.count >= 26 }
    Thread.sleep(forTimeInterval: 0.2)
    #expect(second.sequences == Array(12...37))
  }

  @Test func aSubscriberFromNowPrintsNoOldCommit() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let hub = try HubProcess(directory: directory)
    _ = try hub.waitUntilReady()
    defer { _ = hub.terminate() }
    try write(3, as: "before", to: hub)  // 1 (registration) to 4
    let subscriber = try SubscriberProcess(hub: hub, arguments: [])
    defer { subscriber.stop() }
    // Two heartbeats (each says the hub is at 4): nothing old comes.
    Thread.sleep(forTimeInterval: 2.2)
    #expect(subscriber.sequences == [])
    try write(2, as: "after", to: hub)  // 5 (registration) to 7
    eventually { subscriber.sequences.count >= 3 }
    Thread.sleep(forTimeInterval: 0.2)
    #expect(subscriber.sequences == [5, 6, 7])
  }

  @Test func aStoppedSubscriberPastTheHighWaterMarkConvergesWithoutDuplicates() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    // A bus that drops early: a stopped subscriber loses messages for sure.
    let hub = try HubProcess(directory: directory, config: "bus-high-water-mark = 5\n")
    _ = try hub.waitUntilReady()
    defer { _ = hub.terminate() }
    let subscriber = try SubscriberProcess(hub: hub, arguments: ["--since", "0"])
    defer { subscriber.stop() }
    try write(3, as: "warmup", to: hub)  // 1 to 4
    eventually { subscriber.sequences.count == 4 }
    subscriber.signal(SIGSTOP)
    try write(2_000, as: "burst", to: hub)  // 5 (registration) to 2005
    subscriber.signal(SIGCONT)
    eventually(timeout: .seconds(30)) { subscriber.sequences.count >= 2005 }
    Thread.sleep(forTimeInterval: 1.5)  // a heartbeat or two: nothing more may come
    #expect(subscriber.sequences == Array(1...2005))
  }
}

@Suite struct HostileInputTests {
  @Test func aStreamOfMalformedFramesGetsTypedErrorsInBoundedMemory() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let hub = try HubProcess(directory: directory, config: "max-message-size = 65536\n")
    _ = try hub.waitUntilReady()
    defer { _ = hub.terminate() }
    let client = try RawClient(
      HubPaths(databasePath: hub.databasePath, runtimeDirectory: hub.runtimeDirectory))
    let garbage: [Data] = [
      Data("not json at all".utf8), Data([0x00, 0xFF, 0x13]),
      Data(#"{"v":9,"type":"hello","id":"x"}"#.utf8),
      Data(#"{"v":1,"type":"transaction","id":"x","plugin":1}"#.utf8),
      Data(repeating: 0x41, count: 200_000),
    ]
    // Warm up, then measure: a long stream must not grow the hub.
    for frame in garbage { _ = try client.sendRaw([frame]) }
    let before = try residentKilobytes(hub.process.processIdentifier)
    var codes: [String: Int] = [:]
    for round in 0..<2_000 {
      let frame = garbage[round % garbage.count]
      let reply = try #require(try client.sendRaw([frame]))
      codes[reply["code"] as? String ?? "none", default: 0] += 1
    }
    let after = try residentKilobytes(hub.process.processIdentifier)
    #expect(codes["malformed"] == 1_200)
    #expect(codes["unsupportedVersion"] == 400)
    #expect(codes["tooLarge"] == 400)
    #expect(after - before < 16_000, "the hub grew from \(before) kB to \(after) kB")
    // Still serving.
    let hello = try client.send(#"{"v":1,"type":"hello","id":"still"}"#)
    #expect(hello["type"] as? String == "welcome")
  }
}

@Suite struct CurveTests {
  @Test func tcpAdmitsOnlyTheKeysTheKeyringIssued() throws {
    let port = Int.random(in: 20_000..<40_000)
    let running = try RunningHub { $0.extraRequestEndpoints = ["tcp://127.0.0.1:\(port)"] }
    defer {
      running.stop()
      running.removeFiles()
    }
    let hubKey = try running.paths.keyring.hubKeys().publicKey
    #expect(running.paths.hubPublicKey() == hubKey)
    let context = BusContext()
    func hello(_ socket: BusSocket, timeout: Duration = .seconds(5)) throws -> Bool {
      try socket.connect("tcp://127.0.0.1:\(port)")
      try socket.send([Data(#"{"v":1,"type":"hello","id":"tcp"}"#.utf8)], dontWait: true)
      let reply = try socket.receive(timeout: timeout)
      return String(decoding: reply?.last ?? Data(), as: UTF8.self).contains("welcome")
    }
    let issued = try BusSocket(context, .dealer)
    try issued.makeCurveClient(try running.paths.keyring.issue("remote"), serverKey: hubKey)
    #expect(try hello(issued))

    // A key the keyring did not issue, and no CURVE at all: refused at the handshake.
    let unknown = try BusSocket(context, .dealer)
    try unknown.makeCurveClient(try CurveKeyPair.generate(), serverKey: hubKey)
    #expect(try hello(unknown, timeout: .milliseconds(500)) == false)
    let plain = try BusSocket(context, .dealer)
    #expect(try hello(plain, timeout: .milliseconds(500)) == false)
  }

  @Test func aPluginWritesAndFollowsOverTcpWithItsKey() throws {
    let port = Int.random(in: 20_000..<40_000)
    let request = "tcp://127.0.0.1:\(port)"
    let bus = "tcp://127.0.0.1:\(port + 1)"
    let running = try RunningHub {
      $0.extraRequestEndpoints = [request]
      $0.extraBusEndpoints = [bus]
    }
    defer {
      running.stop()
      running.removeFiles()
    }
    let hubKey = try running.paths.keyring.hubKeys().publicKey
    let environment = [
      "HEARTH_HUB_ENDPOINT": request, "HEARTH_BUS_ENDPOINT": bus, "HEARTH_HUB_PUBLIC_KEY": hubKey,
    ]
    func transport(_ plugin: String) throws -> HubTransport {
      try HubTransport.fromEnvironment(running.paths, plugin: plugin, environment)
    }
    let notesTransport = try transport(notesPlugin.name)
    #expect(notesTransport.requestEndpoint == request && notesTransport.serverKey == hubKey)
    #expect(try running.paths.keyring.pluginKeys(notesPlugin.name) == notesTransport.keys)
    let writer = try HubDatabase.registered(
      notesPlugin, paths: running.paths, transport: notesTransport)
    let facts = try factsPlugin()
    let reader = try HubDatabase.registered(
      facts, paths: running.paths, transport: try transport(facts.name))
    @FetchAll(Note.order(by: \.id), database: reader, scheduler: .immediate) var notes
    try writer.write { db in try Note.insert { Note.Draft(text: "over tcp") }.execute(db) }
    eventually { notes.map(\.text) == ["over tcp"] }

    // The wrong server key gets no answer: CURVE refuses the handshake.
    var stranger = notesTransport
    stranger.serverKey = try CurveKeyPair.generate().publicKey
    let strangerDatabase = try HubDatabase(
      notesPlugin, paths: running.paths, transport: stranger, requestTimeout: .milliseconds(300),
      maximumAttempts: 1)
    let silence = #expect(throws: DatabaseError.self) {
      try strangerDatabase.write { db in try Note.insert { Note.Draft(text: "no") }.execute(db) }
    }
    #expect(silence?.hubCode == .unavailable)
  }

  @Test func aConfiguredKeyThatIsNotOneIsRefused() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("hearth-curve-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    var configuration = HubConfiguration(
      paths: HubPaths(
        databasePath: directory.appendingPathComponent("db.sqlite").path,
        runtimeDirectory: directory.appendingPathComponent("run").path))
    configuration.curveSecretKey = "not a key"
    let hub = try Hub(configuration: configuration)
    #expect(throws: HubError.self) { try hub.run() }
  }
}
