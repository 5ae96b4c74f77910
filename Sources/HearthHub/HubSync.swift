import Foundation
import HearthSQLite
import HearthService
import HearthSync
import HearthTransport
import HearthWire

/// The hub's side of sync: the capture on its writer, the service (when a server is set up),
/// the service's writes run by the loop, and the `sync` request.
struct HubSync: Sendable {
  let capture: SyncCapture
  /// The hub's database (the plugins' files are beside it).
  let databasePath: String
  let jobs: SyncJobs
  let service: SyncService?
  let settings: SyncService.Settings?

  /// Prepares the sync tables and the capture on the writer (`db`), and the service.
  init(
    configuration: HubConfiguration, database: DatabasePool, syncer: WALSyncer, _ db: Database
  ) throws {
    try SyncStore.prepare(db)
    databasePath = configuration.databasePath
    let hub = try SyncStore.value("hub", db) ?? "hub"
    let last = try SyncStore.value("clock", db).flatMap(HybridTimestamp.init)
    capture = SyncCapture(
      clock: SyncClock(hub: hub, last: last, offset: configuration.syncClockOffset))
    capture.addFunctions(to: db)
    try capture.install(SyncStore.syncedTables(db), on: db)
    jobs = try SyncJobs(makeDurable: { try syncer.makeDurable() })
    if let server = configuration.syncServer {
      var settings = SyncService.Settings(server: server)
      settings.zone = configuration.syncZone
      settings.pullPage = configuration.syncPageSize
      settings.databasePath = configuration.databasePath
      try SyncStore.setValue(configuration.syncZone, for: "zone", db)
      self.settings = settings
      service = try SyncService(settings, writer: jobs, reader: database, capture: capture)
    } else {
      settings = nil
      service = nil
    }
  }

  /// The service as one of the hub's helpers.
  var helper: (any Service)? { service.map(Runner.init) }

  private struct Runner: Service {
    let service: SyncService
    var name: String { "hearthd.sync" }
    func run() throws { service.run() }
    func stop() { service.stop() }
  }

  /// After the schema changed (a registration): the capture for the tables as they are now,
  /// and what was held for columns or tables that now exist.
  func schemaChanged(_ db: Database) throws {
    let tables = try SyncStore.syncedTables(db)
    try capture.install(tables, on: db)
    let applier = SyncApplier(capture: capture, tables: tables, shares: try SyncShares.all(db))
    var report = SyncApplier.Report()
    try capture.applying { try applier.retryHeld(report: &report, db) }
    try SyncFiles.queueMissing(report.appliedRecords, databasePath: databasePath, db)
    try applier.replayExtras(db)
  }

  /// Declares `names` (tables of `plugin`) synced: checks the rules, records them, stamps
  /// their rows as changes to push, and puts the capture on them.
  func declare(
    _ names: [String], files: [String] = [], references: [SyncReference] = [],
    of plugin: String, owned: Set<String>, at now: Int64, _ db: Database
  )
    throws
  {
    if let foreign = names.first(where: { !owned.contains($0.lowercased()) }) {
      throw ErrorReply(
        id: nil, code: .unauthorized, message: "plugin \(plugin) does not own table \(foreign)")
    }
    let already = Set(try SyncStore.syncedTableNames(db))
    let tables = try SyncedTable.validate(names, alsoSynced: already, db)
    for table in tables
    where !already.contains(where: { $0.lowercased() == table.name.lowercased() }) {
      try db.execute(
        sql: "INSERT INTO \(SyncStore.tables) (name, plugin, addedAt) VALUES (?, ?, ?)",
        arguments: [table.name, plugin, now])
      try SyncStore.stampExistingRows(of: table, db)
    }
    try SyncFiles.declare(files, plugin: plugin, tables: tables, db)
    try SyncReferences.declare(
      references, plugin: plugin, tables: tables,
      synced: Set((try SyncStore.syncedTableNames(db)).map { $0.lowercased() }), db)
    try schemaChanged(db)
    if !files.isEmpty { try SyncFiles.queueAllMissing(databasePath: databasePath, db) }
  }

  /// Whether `names` are tables `plugin` owns that are synced already.
  func isDeclared(
    _ names: [String], files: [String] = [], references: [SyncReference] = [],
    of plugin: String, _ db: Database
  ) throws -> Bool {
    let owned = try HubStore.ownedTables(of: plugin, db)
    let synced = Set(try SyncStore.syncedTableNames(db).map { $0.lowercased() })
    return try names.allSatisfy {
      owned.contains($0.lowercased()) && synced.contains($0.lowercased())
    }
      && SyncFiles.areDeclared(files, db) && SyncReferences.areDeclared(references, db)
  }

  /// The reply to `sync`.
  func status(id: String, _ db: Database) throws -> SyncingReply {
    var reply = SyncingReply(
      id: id, tables: try SyncStore.syncedTableNames(db),
      server: settings.map { SyncService.Settings.shown($0.server) },
      zone: settings?.zone ?? "default",
      hub: capture.clock.hub, pending: try SyncStore.pendingCount(db),
      held: try SyncStore.heldCount(db), pulled: try SyncStore.cursor(db).seq,
      pushed: try SyncStore.value(SyncStore.lastPushKey, db).flatMap { Int64($0) },
      lastError: try SyncStore.value("lastError", db),
      accountChange: try SyncStore.value("accountChange", db),
      shares: try SyncShares.all(db))
    reply.paused = try SyncStore.value(SyncStore.pausedKey, db) != nil ? true : nil
    reply.clockSkew = try SyncStore.value(SyncStore.clockSkewKey, db).flatMap { Int64($0) }
    let byTable = try SyncStore.pendingByTable(db)
    reply.pendingByTable = byTable.isEmpty ? nil : byTable
    return reply
  }
}

extension HubSession {
  /// Runs the sync service's writes (between requests, never inside a client's
  /// transaction), each its own commit of origin `sync`.
  mutating func runSyncJobs() {
    guard executor.open == nil else { return }
    for job in hub.sync.jobs.take() {
      do {
        try commitAsSync(job.body) { job.finish(nil) }
      } catch {
        job.finish(error)
      }
    }
  }

  /// Runs `body` in a transaction of its own on the writer, recorded in the feed as a
  /// commit of origin `sync` when it changed a plugin's table; `answer` runs after the
  /// COMMIT (its event is published once the commit is durable).
  mutating func commitAsSync(
    _ body: (Database) throws -> Void, answer: () -> Void = {}
  ) throws {
    let event = try SyncRequests.commit(
      body, feed: feed, seq: hub.committedSequence + 1, at: hub.millisecondsNow(), hub.database)
    announce([event].compactMap { $0 }, by: [], replies: [])
    answer()
  }

  /// The `sync` request (`SyncRequests`): its commits announced, then its answer, unless it
  /// waits for the service (`answerSyncRequests`).
  mutating func sync(client: ReplyRoute, request: SyncRequest) {
    let outcome = syncRequests.receive(
      request, from: client, feed: feed, seq: hub.committedSequence + 1,
      at: hub.millisecondsNow(), clock: hub.clock.elapsed)
    let answer = outcome.answer.flatMap { encoded($0) }.map { [(client, $0)] } ?? []
    if outcome.wrote {
      announce(outcome.commits, by: [], replies: answer)
    } else {
      for (client, body) in answer { send(client, body) }
    }
  }

  /// Answers the `sync` requests whose wait is over.
  mutating func answerSyncRequests() {
    for (client, answer) in syncRequests.answersDue(clock: hub.clock.elapsed) {
      reply(client, answer)
    }
  }
}
