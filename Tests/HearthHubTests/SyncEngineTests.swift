import Foundation
import HearthData
import HearthDataTestSupport
import HearthHub
import HearthPlugin
import HearthSQLite
import HearthTestbed
import Testing

@Table("lists")
struct SyncedList: Sendable {
  let id: String
  var title: String
  var color: Int
}

@Table("items")
struct SyncedItem: Sendable {
  let id: String
  var listID: String
  var title: String
  var done: Bool
  var position: Int
}

extension SyncSuites {
  /// The reference's API, written as its documentation writes it, against hubs.
  @Suite(.serialized) struct SyncEngineTests {
    @Test func theDocumentedSetUpSyncsAndSyncChangesWaitsForARound() async throws {
      let cluster = try SyncCluster(["a", "b"])
      defer { cluster.stop() }
      let (a, b) = (cluster[0].todo, cluster[1].todo)
      defer { withExtendedLifetime(b) {} }
      try withDependencies {
        $0.defaultDatabase = a
        $0.defaultSyncEngine = try SyncEngine(
          for: $0.defaultDatabase, tables: SyncedList.self, SyncedItem.self)
      } operation: {
        @Dependency(\.defaultSyncEngine) var syncEngine
        #expect(syncEngine.isRunning)
        #expect(syncEngine.tableNames == ["lists", "items"])
      }
      let engineOnB = try SyncEngine(for: b, tables: SyncedList.self, SyncedItem.self)
      let engineOnA = try SyncEngine(for: a, tables: SyncedList.self, SyncedItem.self)
      try await a.write { db in
        try SyncedList.insert { SyncedList(id: "l", title: "Errands", color: 3) }.execute(db)
      }
      try await engineOnA.syncChanges()
      try await engineOnB.syncChanges()
      let lists = try await b.read { db in try SyncedList.fetchAll(db) }
      #expect(lists.map(\.title) == ["Errands"])
      #expect(try engineOnB.state()?.pending == 0)

      // What a UI shows: paused, the changes waiting, by table; up to date once resumed.
      try await engineOnA.pause()
      try await a.write { db in
        try SyncedItem.insert {
          SyncedItem(id: "i", listID: "l", title: "Stamps", done: false, position: 0)
        }.execute(db)
      }
      var state = try #require(try engineOnA.state())
      #expect(state.isPaused && !state.isUpToDate)
      #expect(state.pendingByTable == ["items": 1])
      await #expect(throws: DatabaseError.self) { try await engineOnA.syncChanges() }
      try await engineOnA.resume()
      try await engineOnA.syncChanges()
      state = try #require(try engineOnA.state())
      #expect(state.isUpToDate && state.pendingByTable.isEmpty, "\(state)")
      #expect(state.clockSkew.map { abs($0.components.seconds) < 5 } == true)

      // deleteLocalData drops B's copy, changes not pushed included, not the server's: the
      // next round brings the server's rows back.
      try cluster[1].goOffline()
      let offline = try SyncEngine(for: cluster[1].todo, tables: SyncedList.self, SyncedItem.self)
      try await cluster[1].todo.write { db in
        try SyncedList.insert { SyncedList(id: "mine", title: "Never sent", color: 0) }.execute(db)
      }
      try await offline.deleteLocalData()
      #expect(try await cluster[1].todo.read { db in try SyncedList.fetchCount(db) } == 0)
      try cluster[1].goOnline()
      let online = try SyncEngine(for: cluster[1].todo, tables: SyncedList.self, SyncedItem.self)
      try await online.syncChanges()
      let back = try await cluster[1].todo.read { db in try SyncedList.fetchAll(db) }
      #expect(back.map(\.id) == ["l"])
      #expect(try await a.read { db in try SyncedList.fetchCount(db) } == 1)
      // A hub that drops its copy gets back what it pushed itself too (the server leaves
      // out of a hub's pulls only the pushes the hub says it has).
      try await engineOnA.deleteLocalData()
      try await engineOnA.syncChanges()
      #expect(try await a.read { db in try SyncedList.fetchAll(db) }.map(\.id) == ["l"])
      #expect(try await a.read { db in try SyncedItem.fetchAll(db) }.map(\.id) == ["i"])

      engineOnB.stop()
      #expect(!engineOnB.isRunning)
    }

    @Test func aTableThatBreaksARuleIsRefusedWithTheRule() throws {
      let cluster = try SyncCluster(["a"])
      defer { cluster.stop() }
      let plugin = PluginRegistration(
        name: "counts", version: "1", tables: ["counters", "tags"],
        migrations: [
          .init(
            id: "1",
            sql: """
              CREATE TABLE counters (id INTEGER PRIMARY KEY, count INTEGER NOT NULL DEFAULT 0);
              CREATE TABLE tags (id TEXT PRIMARY KEY NOT NULL, title TEXT NOT NULL UNIQUE);
              """)
        ])
      let database = try HubDatabase.registered(plugin, paths: cluster[0].running.paths)
      for (table, rule) in [("counters", "primary key is one TEXT column"), ("tags", "UNIQUE")] {
        do {
          _ = try SyncEngine(for: database, tableNames: [table])
          Issue.record("\(table) was accepted")
        } catch let error as DatabaseError {
          #expect(error.message?.contains(rule) == true, "\(error)")
        }
      }
      // On a database no hub writes, the engine syncs nothing and says so.
      let local = try SyncEngine(for: try DatabaseQueue(), tables: SyncedList.self)
      #expect(!local.isRunning)
      #expect(try local.state() == nil)
    }
  }
}

extension SyncSuites {
  /// `SyncMetadata`, joined the reference's way.
  @Suite(.serialized) struct SyncMetadataTests {
    @Test func aSyncedRowJoinsItsMetadataByItsSyncMetadataID() async throws {
      let cluster = try SyncCluster(["a"])
      defer { cluster.stop() }
      let a = cluster[0].todo
      _ = try SyncEngine(for: a, tables: SyncedList.self, SyncedItem.self)
      try await a.write { db in
        try SyncedList.insert { SyncedList(id: "l1", title: "One", color: 0) }.execute(db)
      }
      try await SyncEngine(for: a, tables: SyncedList.self).syncChanges()
      let rows = try await a.read { db in
        try SyncedList
          .leftJoin(SyncMetadata.all) { $0.syncMetadataID.eq($1.id) }
          .select { ($0.title, $1.recordName, $1.hasPendingChanges, $1.isDeleted) }
          .fetchAll(db)
      }
      #expect(rows.count == 1)
      #expect(rows.first?.1 == "l1:lists")
      #expect(rows.first?.2 == false && rows.first?.3 == false)
      let list = SyncedList(id: "l1", title: "One", color: 0)
      let metadata = try await a.read { db in
        try SyncMetadata.where { $0.recordName.eq("l1:lists") }.fetchOne(db)
      }
      #expect(metadata?.id == list.syncMetadataID)
      #expect(metadata?.zoneName == "default")
      #expect((metadata?.userModificationTime ?? 0) > 1_700_000_000_000)
    }
  }
}

extension SyncSuites {
  /// A hub whose server or zone changed waits for a word before it pushes or pulls.
  @Suite(.serialized) struct SyncAccountTests {
    @Test func anAccountChangePausesSyncUntilTheRowsAreKeptOrDropped() async throws {
      let cluster = try SyncCluster(["a", "b"])
      defer { cluster.stop() }
      try await cluster[0].todo.write { db in
        try SyncedList.insert { SyncedList(id: "home", title: "From zone default", color: 0) }
          .execute(db)
      }
      try cluster.converge()
      // B moves to zone "work", where C has a list of its own.
      let c = try SyncedHub("c", server: cluster.server) { $0.syncZone = "work" }
      defer { c.stopAndRemove() }
      try await c.todo.write { db in
        try SyncedList.insert { SyncedList(id: "desk", title: "From zone work", color: 0) }
          .execute(db)
      }
      try await SyncEngine(for: c.todo, tables: SyncedList.self).syncChanges()
      cluster[1].configure = { $0.syncZone = "work" }
      try cluster[1].goOnline()
      let b = cluster[1].todo
      try eventually { try cluster[1].status()["accountChange"] as? String != nil }
      let change = try #require(cluster[1].status()["accountChange"] as? String)
      #expect(change.contains("zone default") && change.contains("zone work"), "\(change)")
      // Nothing moved either way meanwhile.
      #expect(try await b.read { db in try SyncedList.fetchAll(db) }.map(\.id) == ["home"])
      await #expect(throws: SyncEngineError.self) {
        try await SyncEngine(for: b, tables: SyncedList.self).syncChanges()
      }
      // A stopped engine asks its hub nothing, so it meets no account change either.
      let stopped = try SyncEngine(for: b, tables: SyncedList.self)
      stopped.stop()
      try await stopped.syncChanges()
      // The delegate drops B's rows for zone work's.
      let delegate = AccountDelegate(keepsRows: false)
      let engine = try SyncEngine(for: b, tables: SyncedList.self, delegate: delegate)
      try await engine.syncChanges()
      #expect(delegate.told.withLock { $0.count } == 1)
      try await engine.syncChanges()
      #expect(try await b.read { db in try SyncedList.fetchAll(db) }.map(\.id) == ["desk"])
      #expect(try cluster[1].status()["accountChange"] == nil)
      // Zone default (the superuser hearth's) still has its row: nothing of B's was pushed to, or deleted from, it.
      let zones = try cluster.server.execute(
        "SELECT zone, record_name FROM hearth.records ORDER BY zone, record_name")
      #expect(
        zones.rows.map { $0.compactMap { $0 } } == [
          ["hearth/default", "home"], ["hearth/work", "desk"],
        ])
    }

    @Test func keepingTheRowsPushesThemToTheNewAccount() async throws {
      let cluster = try SyncCluster(["a"])
      defer { cluster.stop() }
      try await cluster[0].todo.write { db in
        try SyncedList.insert { SyncedList(id: "mine", title: "Kept", color: 0) }.execute(db)
      }
      try cluster.converge()
      cluster[0].configure = { $0.syncZone = "new" }
      try cluster[0].goOnline()
      try eventually { try cluster[0].status()["accountChange"] as? String != nil }
      let hearth = try RawClient(cluster[0].running.paths).send(
        #"{"v":1,"type":"sync","id":"keep","action":"acceptAccount"}"#)
      #expect(hearth["type"] as? String == "syncing")
      try await SyncEngine(for: cluster[0].todo, tables: SyncedList.self).syncChanges()
      let zones = try cluster.server.execute(
        "SELECT zone, record_name FROM hearth.records ORDER BY zone, record_name")
      #expect(
        zones.rows.map { $0.compactMap { $0 } } == [
          ["hearth/default", "mine"], ["hearth/new", "mine"],
        ])
    }
  }
}

extension SyncSuites {
  /// A zone deleted on the server deletes nothing here without a word.
  @Suite(.serialized) struct SyncZoneDeletedTests {
    @Test func aZoneDeletedOnTheServerPausesUntilTheRowsAreKeptAndPushedAgain() async throws {
      let cluster = try SyncCluster(["a"])
      defer { cluster.stop() }
      let a = cluster[0].todo
      try await a.write { db in
        try SyncedList.insert { SyncedList(id: "kept", title: "Mine", color: 0) }.execute(db)
      }
      try cluster.converge()
      try cluster.server.execute("DELETE FROM hearth.zones WHERE zone = 'hearth/default'")
      // The next whole round (within the poll interval) finds the zone gone: nothing deleted
      // here, nothing pushed.
      let engine = try SyncEngine(
        for: a, tables: SyncedList.self, delegate: AccountDelegate(keepsRows: true))
      try eventually {
        try (cluster[0].status()["accountChange"] as? String)?
          .hasPrefix("zone deleted on the server") == true
      }
      #expect(try await a.read { db in try SyncedList.fetchCount(db) } == 1)
      #expect(
        try cluster.server.execute("SELECT count(*) FROM hearth.records").rows.first?.first == "0")
      // The delegate keeps the rows: they are pushed again, and the zone is back.
      try await engine.syncChanges()
      let delegate = try #require(engine.delegate as? AccountDelegate)
      #expect(delegate.told.withLock { $0.count } == 1)
      if case .zoneDeleted? = delegate.told.withLock({ $0.first }) {
      } else {
        Issue.record("told \(delegate.told.withLock { $0 })")
      }
      try await engine.syncChanges()
      let records = try cluster.server.execute("SELECT record_name FROM hearth.records")
      #expect(records.rows.map { $0.first ?? nil } == ["kept"])
    }
  }
}

/// Records what it is told of account changes and keeps this device's rows or drops them.
final class AccountDelegate: SyncEngineDelegate {
  let keepsRows: Bool
  let told = Locked<[SyncEngine.AccountChange]>([])

  init(keepsRows: Bool) { self.keepsRows = keepsRows }

  func syncEngine(_ syncEngine: SyncEngine, accountChanged change: SyncEngine.AccountChange) async {
    told.withLock { $0.append(change) }
    if keepsRows {
      try? await syncEngine.acceptAccount()
    } else {
      try? await syncEngine.deleteLocalData()
    }
  }
}
