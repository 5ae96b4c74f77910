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

    // Stopped, the engine asks nothing; the hub goes on.
    engineOnB.stop()
    #expect(!engineOnB.isRunning)
    try await engineOnB.syncChanges()
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
