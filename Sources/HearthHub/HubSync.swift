import Foundation
import HearthSQLite
import HearthService
import HearthSync
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
    let seq = hub.committedSequence + 1
    let now = hub.millisecondsNow()
    let event = try hub.database.inWriterDatabase { [feed] db -> ChangeFeed.PublishedCommit? in
      try db.beginTransaction(.immediate)
      do {
        try body(db)
        let event = try feed.recordEntry(
          db.pendingChanges, plugin: "sync", request: "sync-\(UUID().uuidString.lowercased())",
          seq: seq, at: now, db)
        try db.commit()
        return event
      } catch {
        try? db.rollback()
        throw error
      }
    }
    announce([event].compactMap { $0 }, by: [], replies: [])
    answer()
  }

  /// The `sync` request: declares tables and runs the action (writes, so they wait for an
  /// open transaction to end), rings the service, answers with the state — for `now`, once
  /// a round begun after the request has finished (see `answerSyncWaiters`).
  mutating func sync(client: ReplyRoute, request: SyncRequest) {
    let (sync, now) = (hub.sync, hub.millisecondsNow())
    do {
      // Declaring tables already synced (a plugin does at each start) writes nothing.
      var declared = false
      if let plugin = request.plugin, !request.tables.isEmpty,
        try !hub.database.read({ db in
          try sync.isDeclared(
            request.tables, files: request.files, references: request.references, of: plugin,
            db)
        })
      {
        try commitAsSync { db in
          let owned = try HubStore.ownedTables(of: plugin, db)
          try sync.declare(
            request.tables, files: request.files, references: request.references, of: plugin,
            owned: owned, at: now, db)
        }
        declared = true
      }
      let account = sync.settings?.account
      switch request.action {
      case .status, .now: break
      case .pause:
        try commitAsSync { db in
          if try SyncStore.value(SyncStore.pausedKey, db) == nil {
            try SyncStore.setValue(String(now), for: SyncStore.pausedKey, db)
          }
        }
      case .resume:
        try commitAsSync { db in try SyncStore.setValue(nil, for: SyncStore.pausedKey, db) }
      case .share, .acceptShare, .unshare, .revokeShare, .verify:
        guard let service = sync.service else {
          throw ErrorReply(
            id: request.id, code: .syncFailed,
            message: "no sync server is set up (hearth sync setup URL, then restart hearthd)")
        }
        let action = try Self.shareAction(request)
        if let table = action.table, let plugin = request.plugin,
          try !hub.database.read({ db in try HubStore.ownedTables(of: plugin, db) })
            .contains(table.lowercased())
        {
          throw ErrorReply(
            id: request.id, code: .unauthorized,
            message: "plugin \(plugin) does not own table \(table)")
        }
        let ticket = service.perform(action)
        syncWaiters.append(
          (client, request.id, 0, hub.clock.elapsed + configuration.syncWait, ticket))
        return
      case .resync: try commitAsSync { db in try SyncStore.resync(db) }
      case .deleteLocalData:
        try commitAsSync { db in
          try SyncStore.deleteLocalData(capture: sync.capture, db)
          if let account { try SyncStore.acceptAccount(account, db) }
        }
      case .acceptAccount:
        guard let account else {
          throw ErrorReply(
            id: request.id, code: .syncFailed, message: "no sync server is set up: no account")
        }
        // This hub's rows go to the new account, and its rows come here: nothing deleted.
        try commitAsSync { db in
          try SyncStore.acceptAccount(account, db)
          try SyncStore.resync(db)
        }
      }
      if request.action == .now {
        guard let service = sync.service else {
          throw ErrorReply(
            id: request.id, code: .syncFailed,
            message: "no sync server is set up (hearth sync setup URL, then restart hearthd)")
        }
        if try hub.database.read({ db in try SyncStore.value(SyncStore.pausedKey, db) }) != nil {
          throw ErrorReply(id: request.id, code: .syncFailed, message: SyncPaused().description)
        }
        syncWaiters.append(
          (
            client, request.id, service.requestRound(),
            hub.clock.elapsed + configuration.syncWait, nil
          ))
      } else {
        if request.action != .status || declared { sync.service?.requestRound() }
        reply(client, try hub.database.read { db in try sync.status(id: request.id, db) })
      }
    } catch let error as SyncSchemaError {
      reply(client, ErrorReply(id: request.id, code: .notSyncable, message: error.description))
    } catch var refusal as ErrorReply {
      refusal.id = request.id
      reply(client, refusal)
    } catch {
      reply(client, ErrorReply(id: request.id, code: .internal, message: "\(error)"))
    }
  }

  /// Answers the `sync` requests of action `now` whose round has finished, and those that
  /// waited too long (with the service's last error).
  mutating func answerSyncWaiters() {
    guard !syncWaiters.isEmpty, let service = hub.sync.service else { return }
    let (finished, now, sync) = (service.finishedRounds, hub.clock.elapsed, hub.sync)
    var waiting: [SyncWaiter] = []
    for waiter in syncWaiters {
      if let ticket = waiter.ticket {
        if let outcome = service.outcome(of: ticket) {
          answer(waiter, with: outcome)
        } else if now >= waiter.deadline {
          reply(
            waiter.client,
            ErrorReply(
              id: waiter.id, code: .syncFailed,
              message: "the server did not answer in time; the action may still happen"))
        } else {
          waiting.append(waiter)
        }
      } else if finished >= waiter.round {
        let status = Result { try hub.database.read { db in try sync.status(id: waiter.id, db) } }
        switch status {
        case .success(let status): reply(waiter.client, status)
        case .failure(let error):
          reply(waiter.client, ErrorReply(id: waiter.id, code: .internal, message: "\(error)"))
        }
      } else if now >= waiter.deadline {
        let last = (try? hub.database.read { db in try SyncStore.value("lastError", db) }) ?? nil
        reply(
          waiter.client,
          ErrorReply(
            id: waiter.id, code: .syncFailed,
            message: "no round of sync finished in time" + (last.map { ": \($0)" } ?? "")))
      } else {
        waiting.append(waiter)
      }
    }
    syncWaiters = waiting
  }
}

extension HubSession {
  /// The sharing action a `sync` request asks for; an `ErrorReply` when a field it needs is
  /// missing.
  static func shareAction(_ request: SyncRequest) throws -> ServerAction {
    func field(_ value: String?, _ name: String) throws -> String {
      guard let value, !value.isEmpty else {
        throw ErrorReply(
          id: request.id, code: .malformed,
          message: "sync action \(request.action.rawValue) needs \(name)")
      }
      return value
    }
    switch request.action {
    case .share:
      return .share(
        table: try field(request.table, "table"), key: try field(request.key, "key"),
        permission: request.permission ?? .read, title: request.title)
    case .acceptShare: return .accept(invitation: try field(request.invitation, "invitation"))
    case .verify: return .verify
    case .unshare:
      return .unshare(table: try field(request.table, "table"), key: try field(request.key, "key"))
    default:
      return .revoke(
        table: try field(request.table, "table"), key: try field(request.key, "key"),
        role: try field(request.role, "role"))
    }
  }

  /// Answers a sharing action: the sync state with the share and invitation, or why not.
  mutating func answer(_ waiter: SyncWaiter, with outcome: Result<ServerOutcome, any Error>) {
    let sync = hub.sync
    switch outcome {
    case .success(let outcome):
      let status = Result { try hub.database.read { db in try sync.status(id: waiter.id, db) } }
      switch status {
      case .success(var status):
        status.invitation = outcome.invitation
        status.share = outcome.share?.zone
        status.verification = outcome.verification
        reply(waiter.client, status)
      case .failure(let error):
        reply(waiter.client, ErrorReply(id: waiter.id, code: .internal, message: "\(error)"))
      }
    case .failure(let error as SyncPaused):
      reply(
        waiter.client, ErrorReply(id: waiter.id, code: .syncFailed, message: error.description))
    case .failure(let error as ShareError):
      reply(
        waiter.client, ErrorReply(id: waiter.id, code: .shareRefused, message: error.description))
    case .failure(let error):
      reply(waiter.client, ErrorReply(id: waiter.id, code: .syncFailed, message: "\(error)"))
    }
  }
}
