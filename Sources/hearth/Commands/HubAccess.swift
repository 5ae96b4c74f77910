import Foundation
import HearthCommandLine
import HearthSQLite
import HearthSupport
import HearthTransport
import HearthWire

/// Where the hub is: as for hearthd (`$HEARTH_DATABASE`, `$HEARTH_RUNTIME_DIR`,
/// `$HEARTH_KEYS_DIR`, else the XDG directories), unless `--database`, `--runtime-dir` or
/// `--keys-dir` say otherwise.
func hubPaths(_ input: CommandInput) -> HubPaths {
  var paths = HubPaths.fromEnvironment()
  if let database = input.option("database") { paths.databasePath = database }
  if let directory = input.option("runtime-dir") { paths.runtimeDirectory = directory }
  if let directory = input.option("keys-dir") { paths.keysDirectory = directory }
  return paths
}

/// The hub's database, read-only.
func openDatabase(_ paths: HubPaths) throws -> DatabaseQueue {
  guard FileManager.default.fileExists(atPath: paths.databasePath) else {
    throw CommandError("no database at \(paths.databasePath); is hearthd set up? (hearth --help)")
  }
  var configuration = Configuration()
  configuration.readonly = true
  do {
    return try DatabaseQueue(path: paths.databasePath, configuration: configuration)
  } catch {
    throw CommandError("cannot open \(paths.databasePath): \(error)")
  }
}

/// Asks the hub who it is (and, with `locks`, which other processes' locks hold up its
/// writer); nil when it does not answer within a second.
func hello(_ paths: HubPaths, locks: Bool = false) -> WelcomeReply? {
  guard let socket = try? BusSocket(BusContext(), .dealer) else { return nil }
  guard (try? socket.connectToHub(paths)) != nil else { return nil }
  let id = UUID().uuidString
  guard let body = try? WireCoding.encode(HelloRequest(id: id, locks: locks ? true : nil)),
    (try? socket.send([body])) != nil,
    let reply = try? socket.receive(timeout: .seconds(1)), let frame = reply.last
  else { return nil }
  return try? WireCoding.decode(WelcomeReply.self, from: frame)
}

/// `0 bytes`, `512 bytes`, `330 KiB`, `32.0 MiB`: binary units (`binarySize`).
func fileSize(_ bytes: Int) -> String { binarySize(bytes) }

/// The size of the file at `path` (0 when there is none).
func sizeOfFile(_ path: String) -> Int {
  (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
}

/// A JSON object as one line, sorted keys.
func jsonData(_ object: [String: Any]) throws -> Data {
  try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
}
