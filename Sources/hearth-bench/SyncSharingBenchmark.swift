import Foundation
import HearthData
import HearthHub
import HearthPlugin
import HearthPostgres
import HearthSync
import HearthTestbed
import HearthWire

let shareBenchPlugin = PluginRegistration(
  name: "sharebench", version: "1", tables: ["shareLists", "shareItems"],
  migrations: [
    .init(
      id: "1",
      sql: """
        CREATE TABLE shareLists (id TEXT PRIMARY KEY NOT NULL, title TEXT NOT NULL DEFAULT '',
          photo TEXT);
        CREATE TABLE shareItems (id TEXT PRIMARY KEY NOT NULL,
          listID TEXT NOT NULL REFERENCES shareLists (id) ON DELETE CASCADE,
          title TEXT NOT NULL DEFAULT '');
        """)
  ])

/// A hub of person `role`, syncing the share bench plugin's tables and its photo files.
struct ShareBenchHub {
  let directory: BenchmarkDirectory
  let hub: BenchHub
  let plugin: HubDatabase
  let engine: SyncEngine

  init(_ server: PostgresServer, role: String) throws {
    directory = try BenchmarkDirectory()
    hub = try BenchHub(
      directory: directory, configure: { $0.syncServer = server.conninfo(user: role) })
    plugin = try HubDatabase(shareBenchPlugin, paths: hub.paths)
    engine = try SyncEngine(
      for: plugin, tableNames: ["shareLists", "shareItems"],
      fileColumns: ["shareLists.photo"])
  }

  func count() throws -> Int {
    try plugin.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM shareItems") ?? 0 }
  }

  func path(_ digest: String) -> String {
    SyncFiles.path(digest, plugin: "sharebench", databasePath: hub.paths.databasePath)
  }

  /// Puts `bytes` in the plugin's files, as a plugin does; returns their digest.
  func store(_ bytes: Data) throws -> String {
    let digest = SHA256.hex(bytes)
    try FileManager.default.createDirectory(
      atPath: (path(digest) as NSString).deletingLastPathComponent,
      withIntermediateDirectories: true)
    try bytes.write(to: URL(fileURLWithPath: path(digest)))
    return digest
  }
}

/// Sharing and files through the real server: accepting a share of a list of `rows` items
/// and a 20 MB file until they are here, against the owner's second device pulling the same
/// for the first time; a new 20 MB file on the list, pushed by one device (the row's change
/// written and pushed, the file sent) and pulled by the other (until the file is there),
/// against the server's own floor for the same bytes (`bareFileTimes`).
func sharingFigures(_ postgres: PostgresServer, rows: Int) async throws -> [Figure] {
  for role in ["alice", "bob"] {
    _ = try? postgres.executeOnce("CREATE ROLE \(role) LOGIN")
  }
  let alice = try ShareBenchHub(postgres, role: "alice")
  let bob = try ShareBenchHub(postgres, role: "bob")
  defer {
    alice.hub.stop()
    bob.hub.stop()
  }
  let bytes = incompressibleBytes(20 << 20)
  let digest = try alice.store(bytes)
  try await alice.plugin.write { db in
    try db.execute(
      sql: "INSERT INTO shareLists (id, title, photo) VALUES ('list', 'Shared', ?)",
      arguments: [digest])
    for index in 0..<rows {
      try db.execute(
        sql: "INSERT INTO shareItems (id, listID, title) VALUES (?, 'list', ?)",
        arguments: ["item-\(index)", "item \(index)"])
    }
  }
  try await alice.engine.syncChanges()
  let floor = try bareFileTimes(postgres, bytes: bytes)
  let second = try ShareBenchHub(postgres, role: "alice")
  defer { second.hub.stop() }
  // The owner's second device: its first round brings the rows and the file.
  let firstPull = try await timedAsync {
    while try second.count() < rows || !FileManager.default.fileExists(atPath: second.path(digest))
    {
      try await second.engine.syncChanges()
    }
  }
  // A new 20 MB photo on the list: pushed by the first device, pulled by the second.
  let photo = Data(bytes.reversed())
  let photoDigest = try alice.store(photo)
  // Pushed: from the write until the hub has pushed it all (the file goes before the row's
  // record). Pulled: from then until the file is on the other device, which pulls on the
  // server's notification. Both watched, not driven by `syncChanges`: a round asked for
  // while one runs is a second round, which would be timed too.
  let filePush = try await timedAsync {
    try await alice.plugin.write { db in
      try db.execute(
        sql: "UPDATE shareLists SET photo = ? WHERE id = 'list'", arguments: [photoDigest])
    }
    try await until { try alice.plugin.sync().pending == 0 }
  }
  let filePull = try await timedAsync {
    try await until { FileManager.default.fileExists(atPath: second.path(photoDigest)) }
  }
  let shared = try await alice.engine.share(record: ShareRoot(id: "list")) { _ in }
  // Bob's: the same rows and file, through a share.
  let accept = try await timedAsync {
    try await bob.engine.acceptShare(metadata: ShareMetadata(invitation: shared.invitation!))
    while try bob.count() < rows
      || !FileManager.default.fileExists(atPath: bob.path(photoDigest))
    {
      try await bob.engine.syncChanges()
    }
  }
  let megabytes = Double(bytes.count) / 1_048_576
  return [
    Figure(
      bench: "sync-share-accept-\(rows)", ours: accept, baseline: firstPull, unit: "ms"),
    Figure(
      bench: "sync-file-push-20MB", ours: megabytes / (filePush / 1_000),
      baseline: megabytes / (floor.put / 1_000), unit: "MB/s"),
    Figure(
      bench: "sync-file-pull-20MB", ours: megabytes / (filePull / 1_000),
      baseline: megabytes / (floor.get / 1_000), unit: "MB/s"),
  ]
}

/// `count` bytes no compressor can shrink, as a photo's are (xorshift64*).
func incompressibleBytes(_ count: Int) -> Data {
  var state: UInt64 = 0x9E37_79B9_7F4A_7C15
  var bytes = [UInt8](repeating: 0, count: count)
  for index in stride(from: 0, to: count, by: 8) {
    state ^= state >> 12
    state ^= state << 25
    state ^= state >> 27
    var word = state &* 0x2545_F491_4F6C_DD1D
    for offset in index..<min(index + 8, count) {
      bytes[offset] = UInt8(truncatingIfNeeded: word)
      word >>= 8
    }
  }
  return Data(bytes)
}

/// The server's floor for a file, in milliseconds: `bytes` inserted by one bare statement
/// into a `bytea` column stored as the server stores files (uncompressed, out of line);
/// then read back by one bare statement and written to a local file, fsync'd.
func bareFileTimes(_ postgres: PostgresServer, bytes: Data) throws -> (put: Double, get: Double) {
  let connection = try PostgresConnection(postgres.conninfo())
  try connection.execute("CREATE TABLE IF NOT EXISTS bench_floor (id int PRIMARY KEY, bytes bytea)")
  try connection.execute("ALTER TABLE bench_floor ALTER COLUMN bytes SET STORAGE EXTERNAL")
  try connection.execute("TRUNCATE bench_floor")
  let put = try timed {
    try connection.executeBinary("INSERT INTO bench_floor VALUES (1, $1)", [.bytes(bytes)])
  }
  let local = try BenchmarkDirectory()
  let get = try timed {
    guard let read = try connection.executeBinary("SELECT bytes FROM bench_floor", []),
      read.count == bytes.count
    else { throw BenchmarkError("the floor's file did not come back") }
    let handle = try FileHandle(
      forWritingTo: URL(fileURLWithPath: local.path("file"), isDirectory: false).creating())
    try handle.write(contentsOf: read)
    try handle.synchronize()
    try handle.close()
  }
  try connection.execute("DROP TABLE bench_floor")
  return (put.milliseconds, get.milliseconds)
}

@Table("shareLists")
struct ShareRoot: Sendable {
  let id: String
}

/// Returns once `condition` holds, looking every 2 ms; throws after `timeout`.
func until(timeout: Duration = .seconds(120), _ condition: () throws -> Bool) async throws {
  let deadline = ContinuousClock.now + timeout
  while try !condition() {
    guard ContinuousClock.now < deadline else { throw BenchmarkError("sync: timed out") }
    try await Task.sleep(for: .milliseconds(2))
  }
}

/// Milliseconds `body` takes.
func timedAsync(_ body: () async throws -> Void) async throws -> Double {
  let start = DispatchTime.now().uptimeNanoseconds
  try await body()
  return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

extension URL {
  /// The file, made empty.
  fileprivate func creating() throws -> URL {
    guard FileManager.default.createFile(atPath: path, contents: nil) else {
      throw BenchmarkError("cannot create \(path)")
    }
    return self
  }
}
