import Foundation
import HearthDataTestSupport
import HearthHub
import HearthPlugin
import HearthPostgres
import HearthSQLite
import HearthTestbed
import HearthWire
import Testing

/// The plugin every sync test runs on each hub: lists and their items (a child table with
/// one foreign key), keyed by text UUIDs as synced tables must be.
let todoPlugin = PluginRegistration(
  name: "todo", version: "1", tables: ["lists", "items"],
  migrations: [
    .init(
      id: "1",
      sql: """
        CREATE TABLE lists (
          id TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid()),
          title TEXT NOT NULL DEFAULT '', color INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE items (
          id TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid()),
          listID TEXT NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
          title TEXT NOT NULL DEFAULT '', done INTEGER NOT NULL DEFAULT 0,
          position INTEGER NOT NULL DEFAULT 0);
        CREATE INDEX items_by_list ON items (listID);
        """)
  ])

/// Every suite of sync tests, one at a time: each starts a PostgreSQL server and several
/// hubs, and eight of them at once on two cores starve the other suites' timing.
@Suite(.serialized) struct SyncSuites {}

/// One device: a hub in its own directory, syncing with `server` while online, and the
/// `todo` plugin's connection to it.
final class SyncedHub: SyncPeer {
  let name: String
  let directory: URL
  let server: PostgresServer
  var configure: (inout HubConfiguration) -> Void
  /// The plugin's registration: `upgrade(to:)` registers a newer one.
  private(set) var registration = todoPlugin
  private(set) var running: RunningHub
  private(set) var todo: HubDatabase

  /// The person it syncs as: the server's login (its superuser unless said).
  let role: String?

  init(
    _ name: String, server: PostgresServer, role: String? = nil,
    syncing tables: [String] = ["lists", "items"],
    configure: @escaping (inout HubConfiguration) -> Void = { _ in }
  ) throws {
    self.name = name
    self.server = server
    self.role = role
    self.configure = configure
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "hearth-sync-\(name)-\(UUID().uuidString.prefix(8))")
    running = try Self.start(directory, server: server, role: role, online: true, configure)
    todo = try HubDatabase.registered(todoPlugin, paths: running.paths)
    if !tables.isEmpty { try sync(tables) }
  }

  /// The plugin declares `tables` synced.
  func sync(_ tables: [String]) throws {
    let list = tables.map { "\"\($0)\"" }.joined(separator: ",")
    let reply = try RawClient(running.paths, as: "todo").send(
      #"{"v":1,"type":"sync","id":"declare","plugin":"todo","tables":["# + list + "]}")
    guard reply["type"] as? String == "syncing" else { throw HubError("sync refused: \(reply)") }
  }

  private static func start(
    _ directory: URL, server: PostgresServer, role: String? = nil, online: Bool,
    _ configure: (inout HubConfiguration) -> Void
  ) throws -> RunningHub {
    try RunningHub(directory: directory) { configuration in
      configuration.syncServer =
        online ? server.conninfo(database: "postgres", user: role ?? "hearth") : nil
      configure(&configuration)
    }
  }

  /// Restarts the hub without a server: local writes go on, nothing syncs.
  func goOffline() throws { try restart(online: false) }

  /// Restarts the hub with its server.
  func goOnline() throws { try restart(online: true) }

  private func restart(online: Bool) throws {
    running.stop()
    running = try Self.start(directory, server: server, role: role, online: online, configure)
    todo = try HubDatabase.registered(registration, paths: running.paths)
  }

  /// Registers `newer` (more migrations) with the running hub.
  func upgrade(to newer: PluginRegistration) throws {
    registration = newer
    todo = try HubDatabase.registered(newer, paths: running.paths)
  }

  var paths: HubPaths { running.paths }

  func stopAndRemove() {
    running.stop()
    try? FileManager.default.removeItem(at: directory)
  }
}

/// A server and hubs, stopped and removed at the end.
final class SyncCluster {
  let server: PostgresServer
  var hubs: [SyncedHub] = []

  init(_ names: [String], configure: @escaping (inout HubConfiguration) -> Void = { _ in })
    throws
  {
    server = try PostgresServer()
    for name in names { hubs.append(try SyncedHub(name, server: server, configure: configure)) }
  }

  subscript(_ index: Int) -> SyncedHub { hubs[index] }

  func isSettled() throws -> Bool { try HearthHubTests.isSettled(hubs, server: server) }

  /// Waits until every hub has the same rows, with nothing left to push or pull; returns the
  /// dump.
  @discardableResult
  func converge(
    timeout: Duration = .seconds(60), sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> String {
    try HearthHubTests.converge(
      hubs, server: server, timeout: timeout, sourceLocation: sourceLocation)
  }

  func stop() {
    for hub in hubs { hub.stopAndRemove() }
    server.stop()
  }
}

extension PostgresServer {
  /// Runs `sql` on the server (as its superuser), for what a test sets or checks there.
  @discardableResult
  func execute(_ sql: String, _ parameters: [String?] = []) throws -> PostgresResult {
    try PostgresConnection(conninfo()).execute(sql, parameters)
  }
}

/// One device of a sync test: an in-process hub or a hearthd process, with the `todo`
/// plugin on it.
protocol SyncPeer {
  var name: String { get }
  var paths: HubPaths { get }
  var todo: HubDatabase { get }
}

extension SyncPeer {
  /// The `sync` request's reply.
  func status() throws -> [String: Any] {
    try RawClient(paths).send(#"{"v":1,"type":"sync","id":"status"}"#)
  }

  /// Every row of the synced tables, ordered: what must be equal on every hub.
  func dump() throws -> String {
    try todo.read { db in
      let lists = try Row.fetchAll(db, sql: "SELECT * FROM lists ORDER BY id")
      let items = try Row.fetchAll(db, sql: "SELECT * FROM items ORDER BY id")
      return (lists + items).map(\.description).joined(separator: "\n")
    }
  }

  func count(_ table: String) throws -> Int {
    try todo.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0 }
  }
}

/// Whether every peer has pushed everything and pulled everything the server has.
func isSettled(_ peers: [any SyncPeer], server: PostgresServer) throws -> Bool {
  // No schema yet: no hub has reached the server so far.
  guard
    try server.execute("SELECT to_regclass('hearth.clock')").rows.first?.first ?? nil != nil
  else { return false }
  let last = try server.execute("SELECT seq FROM hearth.clock").rows.first?.first ?? nil
  return try peers.allSatisfy { peer in
    let status = try peer.status()
    return status["pending"] as? Int == 0 && (status["pulled"] as? Int).map(String.init) == last
  }
}

/// Waits until every peer has the same rows, with nothing left to push or pull, and returns
/// the dump; records what each has otherwise.
@discardableResult
func converge(
  _ peers: [any SyncPeer], server: PostgresServer, timeout: Duration = .seconds(60),
  sourceLocation: SourceLocation = #_sourceLocation
) throws -> String {
  let deadline = ContinuousClock.now + timeout
  while ContinuousClock.now < deadline {
    // The cheap question first (a status request each); the dumps once it says yes.
    if try isSettled(peers, server: server) {
      let dumps = try peers.map { try $0.dump() }
      if Set(dumps).count == 1 { return dumps[0] }
    }
    Thread.sleep(forTimeInterval: 0.05)
  }
  let states = try peers.map { peer in
    "\(peer.name): \(try peer.status()), \(try peer.dump().split(separator: "\n").count) rows"
  }
  Issue.record(
    "the hubs did not converge within \(timeout): \(states.joined(separator: "; "))",
    sourceLocation: sourceLocation)
  return ""
}
