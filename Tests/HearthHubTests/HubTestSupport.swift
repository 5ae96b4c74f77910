import Foundation
import HearthDataTestSupport
import HearthDependencies
import HearthHub
import HearthPlugin
import HearthTestbed
import HearthTransport
import HearthWire
import Synchronization
import Testing

/// A hub running on its own thread over a temporary directory, stopped on `stop()`.
final class RunningHub: Sendable {
  let directory: URL
  let paths: HubPaths
  let hub: Hub
  private let finished = DispatchSemaphore(value: 0)

  /// `clock` and `date` are the hub's time (its timeouts and intervals, the feed's
  /// timestamps): the real ones unless a test moves time by hand.
  init(
    directory: URL? = nil, clock: any Clock<Duration> = ContinuousClock(),
    date: DateGenerator = .system, configure: (inout HubConfiguration) -> Void = { _ in }
  ) throws {
    let directory =
      directory
      ?? FileManager.default.temporaryDirectory.appendingPathComponent(
        "hearth-hub-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    self.directory = directory
    paths = HubPaths(
      databasePath: directory.appendingPathComponent("hearth.sqlite").path,
      runtimeDirectory: directory.appendingPathComponent("run").path)
    var configuration = HubConfiguration(paths: paths)
    configure(&configuration)
    hub = try withDependencies {
      $0.continuousClock = clock
      $0.date = date
    } operation: {
      try Hub(configuration: configuration)
    }
    let ready = DispatchSemaphore(value: 0)
    let hub = self.hub
    let finished = self.finished
    Thread.detachNewThread {
      do {
        try hub.run { ready.signal() }
      } catch {
        print("hub failed: \(error)")
        ready.signal()
      }
      finished.signal()
    }
    ready.wait()
  }

  func stop() {
    hub.stop()
    finished.wait()
  }

  func removeFiles() { try? FileManager.default.removeItem(at: directory) }

  func stopAndRemove() {
    stop()
    removeFiles()
  }
}

/// Sends raw frames to a hub, as a client in another language would: authenticated as
/// `plugin` (with the key its keyring issues it), or with a key of no plugin.
final class RawClient {
  let socket: BusSocket
  let context = BusContext()

  init(_ paths: HubPaths, as plugin: String? = nil) throws {
    socket = try BusSocket(context, .dealer)
    try socket.connectToHub(
      paths, as: try plugin.map { try HubTransport.pluginKeys($0, paths: paths, [:]) })
  }

  func send(_ json: String) throws -> [String: Any] {
    try socket.send([Data(json.utf8)])
    guard let reply = try socket.receive(timeout: .seconds(5)), let frame = reply.last else {
      throw HubError("no reply")
    }
    return try JSONSerialization.jsonObject(with: frame) as! [String: Any]
  }

  func sendRaw(_ frames: [Data]) throws -> [String: Any]? {
    try socket.send(frames)
    guard let reply = try socket.receive(timeout: .seconds(5)), let frame = reply.last else {
      return nil
    }
    return try JSONSerialization.jsonObject(with: frame) as? [String: Any]
  }
}

extension HubDatabase {
  /// A plugin's database, registered with the hub now, as its first read or write would
  /// (the tests that talk to the hub raw need the plugin registered first).
  static func registered(
    _ registration: PluginRegistration, paths: HubPaths, transport: HubTransport? = nil,
    requestTimeout: Duration = .seconds(5)
  ) throws -> HubDatabase {
    let database = try HubDatabase(
      registration, paths: paths, transport: transport, requestTimeout: requestTimeout)
    try database.prepare()
    return database
  }
}
