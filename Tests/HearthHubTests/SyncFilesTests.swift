import Foundation
import HearthData
import HearthDataTestSupport
import HearthPlugin
import HearthPostgres
import HearthSQLite
import HearthSync
import HearthTestbed
import HearthWire
import Testing

/// A plugin whose rows name files of its directory by their SHA-256 (as the attachments'
/// images do).
let albumPlugin = PluginRegistration(
  name: "album", version: "1", tables: ["photos"],
  migrations: [
    .init(
      id: "1",
      sql: """
        CREATE TABLE photos (
          id TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid()),
          caption TEXT NOT NULL DEFAULT '', digest TEXT);
        """)
  ])

extension SyncSuites {
  /// Files that go with synced rows, across two hubs and one real PostgreSQL.
  @Suite(.serialized) struct SyncFilesTests {
    /// A hub with the album plugin, syncing its photos and their files.
    final class Device {
      let running: RunningHub
      let album: HubDatabase
      let engine: SyncEngine

      init(_ server: PostgresServer) throws {
        running = try RunningHub { $0.syncServer = server.conninfo() }
        album = try HubDatabase.registered(albumPlugin, paths: running.paths)
        engine = try SyncEngine(
          for: album, tableNames: ["photos"], fileColumns: ["photos.digest"])
      }

      func path(_ digest: String) -> String {
        SyncFiles.path(digest, plugin: "album", databasePath: running.paths.databasePath)
      }

      /// Stores `data` as the plugin does (under its digest) and adds a photo naming it.
      func add(_ data: Data, caption: String) async throws -> String {
        let digest = SHA256.hex(data)
        try FileManager.default.createDirectory(
          atPath: (path(digest) as NSString).deletingLastPathComponent,
          withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: path(digest)))
        try await album.write { db in
          try db.execute(
            sql: "INSERT INTO photos (caption, digest) VALUES (?, ?)", arguments: [caption, digest])
        }
        return digest
      }

      func stop() {
        running.stop()
        try? FileManager.default.removeItem(at: running.directory)
      }
    }

    static func randomBytes(_ count: Int) -> Data {
      var generator = SystemRandomNumberGenerator()
      var bytes = [UInt8](repeating: 0, count: count)
      for index in stride(from: 0, to: count, by: 8) {
        withUnsafeBytes(of: generator.next()) { word in
          for offset in 0..<min(8, count - index) { bytes[index + offset] = word[offset] }
        }
      }
      return Data(bytes)
    }

    @Test func filesOf1And20MBArriveWholeAndTheSameFileIsStoredOnce() async throws {
      let server = try PostgresServer()
      defer { server.stop() }
      let (a, b) = (try Device(server), try Device(server))
      defer {
        a.stop()
        b.stop()
      }
      let small = Self.randomBytes(1 << 20)
      let large = Self.randomBytes(20 << 20)
      let smallDigest = try await a.add(small, caption: "small")
      let largeDigest = try await a.add(large, caption: "large")
      _ = try await a.add(small, caption: "small again")
      try await a.engine.syncChanges()
      try await b.engine.syncChanges()
      let (smallPath, largePath) = (b.path(smallDigest), b.path(largeDigest))
      try await eventually(timeout: .seconds(30)) {
        FileManager.default.fileExists(atPath: largePath)
          && FileManager.default.fileExists(atPath: smallPath)
      }
      #expect(FileManager.default.contents(atPath: b.path(smallDigest)) == small)
      #expect(FileManager.default.contents(atPath: b.path(largeDigest)) == large)
      #expect(
        try await b.album.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM photos") }
          == 3)
      // On the server: two files, once each, whatever the rows that name them.
      let stored = try server.execute(
        "SELECT sha256, size FROM hearth.assets ORDER BY size")
      #expect(
        stored.rows.map { $0.compactMap { $0 } } == [
          [smallDigest, String(small.count)], [largeDigest, String(large.count)],
        ])
      let queued = try await b.album.read { db in try SyncFiles.queued(db).count }
      #expect(queued == 0)
    }

    @Test func theServerTakesNoFileUnderAnotherNameNorGivesOneToSomeoneElse() throws {
      let server = try SyncSharingServerTests.people()
      defer { server.stop() }
      let alice = try SyncServer(server.conninfo(user: "alice"))
      let bob = try SyncServer(server.conninfo(user: "bob"))
      let data = Data("a picture".utf8)
      let digest = SHA256.hex(data)
      #expect(throws: PostgresError.self) {
        try alice.putFile(SHA256.hex(Data("another".utf8)), bytes: data)
      }
      try alice.putFile(digest, bytes: data)
      #expect(try alice.file(digest) == data)
      // Bob knows its name, not its bytes: he can neither read nor link it.
      #expect(try bob.file(digest) == nil)
      #expect(try bob.linkFile(digest) == false)
      #expect(try bob.file(digest) == nil)
    }
  }
}
