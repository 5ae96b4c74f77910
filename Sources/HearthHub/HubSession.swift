import Foundation
import HearthWire
import HearthZMQ
import HearthSQLite

/// The state of one `Hub.run()`: the open transaction, the requests waiting for the writer,
/// the sockets. Lives on the hub's thread only.
struct HubSession {
  struct OpenTransaction {
    var id: String
    var plugin: String
    var client: Data
    var nextPart: Int
    var lastActivity: ContinuousClock.Instant
    var ownedTables: Set<String>
  }

  enum Work {
    case transaction(client: Data, request: TransactionRequest)
    case register(client: Data, request: RegisterRequest)
  }

  let hub: Hub
  let router: BusSocket
  let publisher: BusSocket
  var open: OpenTransaction?
  var queue: [Work] = []
  var lastHeartbeat = ContinuousClock.now
  var lastPrune = ContinuousClock.now
  /// What a pruning still has to go through, between two turns of the loop.
  var pruning: (feed: Bool, requests: Bool)?
  /// Cursors reported since they were last written: they are written with the next pruning
  /// (or at the stop), not each in its own transaction. A cursor lost in a crash only makes
  /// the next pruning keep more.
  var unsavedCursors: [String: Int64] = [:]
  /// Transactions the hub ended on its own (timeout, refusal), so that their late messages
  /// get the reason rather than `unknownTransaction`. Bounded.
  var abortedTransactions: [(id: String, reply: ErrorReply)] = []
  /// Each registered plugin's tables (lowercased), read from `hearth_tables` once and
  /// forgotten when the plugin registers again: every transaction needs them before it
  /// begins, and only a registration changes them.
  var ownership: [String: Set<String>] = [:]

  init(hub: Hub, router: BusSocket, publisher: BusSocket) {
    self.hub = hub
    self.router = router
    self.publisher = publisher
  }

  var configuration: HubConfiguration { hub.configuration }

  /// The tables `plugin` owns; nil when it has not registered.
  mutating func ownedTables(of plugin: String, _ db: Database) throws -> Set<String>? {
    if let known = ownership[plugin] { return known }
    guard try HubStore.isRegistered(plugin, db) else { return nil }
    let owned = try HubStore.ownedTables(of: plugin, db)
    ownership[plugin] = owned
    return owned
  }

  // MARK: - The loop

  mutating func serveOnce(waitingAtMost timeout: Duration) throws {
    if let first = try router.receive(timeout: timeout) {
      // Everything that has arrived meanwhile: one-message transactions among it share one
      // COMMIT (group commit), each in its own savepoint.
      var burst = [first]
      while burst.count < Self.maximumGroup, let more = try router.receive(timeout: .zero) {
        burst.append(more)
      }
      var group: [(client: Data, request: TransactionRequest)] = []
      for frames in burst {
        // Each frame is parsed once, here; a well-formed transaction that begins and commits
        // in this one message may join the group.
        let parsed = frames.count == 2 ? WireRequest.parse(frames[1], limits: limits) : nil
        if open == nil, queue.isEmpty, case .success(.transaction(let request))? = parsed,
          (request.part ?? 0) == 0, request.end == "commit",
          !group.contains(where: { $0.request.id == request.id })
        {
          group.append((frames[0], request))
          continue
        }
        commit(group)
        group.removeAll()
        dispatch(frames, parsed)
      }
      commit(group)
    }
    expireSilentTransaction()
    drainQueue()
    let now = ContinuousClock.now
    if open == nil, pruning != nil || now - lastPrune >= configuration.pruneInterval {
      do {
        if pruning == nil {
          lastPrune = now
          try saveCursors()
        }
        // One batch per turn of the loop: requests wait for one small commit at most.
        let more = try hub.prune(requests: pruning?.requests ?? true)
        pruning = more.feed || more.requests ? more : nil
      } catch {
        pruning = nil
        // A failed prune keeps entries longer; it is retried at the next interval. The <4>
        // prefix is journald's warning priority.
        FileHandle.standardError.write(Data("<4>hearthd: pruning the feed failed: \(error)\n".utf8))
      }
    }
    if now - lastHeartbeat >= configuration.heartbeatInterval {
      lastHeartbeat = now
      publish(
        topic: "heartbeat",
        HeartbeatEvent(hub: hub.instanceID, seq: hub.lastSequence, at: Self.millisecondsNow()))
    }
  }

  static let maximumGroup = 64

  /// Answers one request: `parsed` is its frame parsed, nil when it came as other than one
  /// frame.
  mutating func dispatch(_ frames: [Data], _ parsed: Result<WireRequest, ErrorReply>?) {
    if let parsed {
      handle(client: frames[0], parsed)
    } else if let client = frames.first {
      reply(
        client,
        ErrorReply(
          id: nil, code: .malformed,
          message: "a request is one frame of JSON (got \(frames.count - 1) frames)"))
    }
  }

  var limits: WireRequest.Limits {
    WireRequest.Limits(
      maximumMessageSize: configuration.maximumMessageSize,
      maximumStatementsPerMessage: configuration.maximumStatementsPerMessage)
  }

  /// Commits one-message transactions together: one BEGIN, a savepoint each (a failing one
  /// rolls back alone and gets its own error), each its own sequence number and feed entry,
  /// one COMMIT for all.
  mutating func commit(_ group: [(client: Data, request: TransactionRequest)]) {
    guard group.count > 1 else {
      if let only = group.first { transaction(client: only.client, request: only.request) }
      return
    }
    enum Outcome {
      case committed(CommittedReply, body: Data)
      case failed(ErrorReply)
    }
    let now = Self.millisecondsNow()
    var outcomes: [Outcome?] = Array(repeating: nil, count: group.count)
    var events: [PublishedCommit] = []
    do {
      try hub.database.inWriterDatabase { db in
        var lastSeq = hub.lastSequence
        var began = false
        for (index, member) in group.enumerated() {
          let request = member.request
          if let stored = try HubStore.storedReply(for: request.id, db),
            var first = try? WireCoding.decode(CommittedReply.self, from: Data(stored.utf8))
          {
            first.duplicate = true
            outcomes[index] = .committed(first, body: try WireCoding.encode(first))
            continue
          }
          guard let owned = try ownedTables(of: request.plugin, db) else {
            outcomes[index] = .failed(
              ErrorReply(
                id: request.id, code: .notRegistered,
                message: "plugin \(request.plugin) has not registered; send register first"))
            continue
          }
          if !began {
            try db.beginTransaction(.immediate)
            began = true
          }
          let savepoint = "hearth_group_\(index)"
          try db.execute(sql: "SAVEPOINT \(savepoint)")
          let policy = PluginPolicy(plugin: request.plugin, ownedTables: owned, mode: .transaction)
          switch Self.execute(request.statements, id: request.id, policy: policy, in: db) {
          case .success(let results):
            var seq = lastSeq
            let changes = db.pendingChanges(inSavepoint: savepoint)
            if let event = try recordFeedEntry(
              db, changes: changes, plugin: request.plugin, request: request.id, at: now,
              seq: lastSeq + 1)
            {
              lastSeq += 1
              seq = lastSeq
              events.append(event)
            }
            let reply = CommittedReply(id: request.id, seq: seq, results: results)
            let body = try recordReply(reply, plugin: request.plugin, at: now, db)
            try db.execute(sql: "RELEASE \(savepoint)")
            outcomes[index] = .committed(reply, body: body)
          case .failure(let failure):
            guard db.isInsideTransaction else {
              // SQLite abandoned the whole transaction (a full disk…): nobody's work stays.
              throw GroupAbandoned(error: failure.error)
            }
            try db.execute(sql: "ROLLBACK TO \(savepoint)")
            try db.execute(sql: "RELEASE \(savepoint)")
            outcomes[index] = .failed(failure.error)
          }
        }
        if began {
          try db.commit()
          hub.countGroupCommit()
        }
      }
    } catch {
      try? hub.database.inWriterDatabase { db in
        db.setAuthorizer(nil)
        try db.rollback()
      }
      events = []
      let message =
        (error as? GroupAbandoned)?.error.message ?? "the commit failed (\(error)); nothing stayed"
      for index in outcomes.indices {
        if case .committed(let reply, _) = outcomes[index], reply.duplicate == true { continue }
        if case .failed = outcomes[index] { continue }
        outcomes[index] = .failed(
          ErrorReply(
            id: group[index].request.id, code: .busy,
            message: "\(message); run the transaction again"))
      }
    }
    announce(events) {
      for (index, member) in group.enumerated() {
        switch outcomes[index] {
        case .committed(_, let body): send(member.client, body)
        case .failed(let error): reply(member.client, error)
        case nil:
          reply(
            member.client, ErrorReply(id: member.request.id, code: .internal, message: "no outcome")
          )
        }
      }
    }
  }

  /// After a COMMIT: the sequence number moves past `events`, `answer` replies to the
  /// writers, then the events go out on the bus — the writers first, so that publishing
  /// never delays an acknowledgement.
  func announce(_ events: [PublishedCommit], answer: () -> Void) {
    for event in events {
      _ = hub.advanceSequence()
      configuration.didCommit?(event.event.seq)
    }
    answer()
    for event in events { publish(event) }
    // Between two commits: no client's transaction is split.
    if hub.walBound.restartIsDue {
      try? hub.database.inWriterDatabase { db in hub.walBound.checkpointIfNeeded(db) }
    }
  }

  struct GroupAbandoned: Error {
    var error: ErrorReply
  }

  /// Rolls back what is open; the clients retry against the next hub.
  mutating func finish() throws {
    if open != nil {
      try hub.database.inWriterDatabase { db in
        db.setAuthorizer(nil)
        try db.rollback()
      }
      self.open = nil
    }
    for work in queue {
      let (client, id) =
        switch work {
        case .transaction(let client, let request): (client, request.id)
        case .register(let client, let request): (client, request.id)
        }
      reply(client, ErrorReply(id: id, code: .busy, message: "the hub is stopping; retry"))
    }
    queue.removeAll()
    try saveCursors()
  }

  // MARK: - Requests

  mutating func handle(client: Data, _ parsed: Result<WireRequest, ErrorReply>) {
    switch parsed {
    case .failure(let refusal):
      reply(client, refusal)
    case .success(.hello(let request)):
      reply(
        client,
        WelcomeReply(
          id: request.id, hub: hub.instanceID, seq: hub.lastSequence, wal: hub.walStatus))
    case .success(.register(let request)):
      if open == nil {
        register(client: client, request: request)
      } else {
        enqueue(.register(client: client, request: request), client: client, id: request.id)
      }
    case .success(.transaction(let request)):
      transaction(client: client, request: request)
    case .success(.changes(let request)):
      changes(client: client, request: request)
    case .success(.cursor(let request)):
      cursor(client: client, request: request)
    }
  }

  mutating func enqueue(_ work: Work, client: Data, id: String) {
    guard queue.count < configuration.maximumQueuedRequests else {
      reply(
        client,
        ErrorReply(id: id, code: .busy, message: "too many requests wait for the writer; retry"))
      return
    }
    queue.append(work)
  }

  mutating func drainQueue() {
    while open == nil, !queue.isEmpty {
      switch queue.removeFirst() {
      case .transaction(let client, let request): transaction(client: client, request: request)
      case .register(let client, let request): register(client: client, request: request)
      }
    }
  }

  mutating func expireSilentTransaction() {
    guard let transaction = open,
      ContinuousClock.now - transaction.lastActivity > configuration.transactionTimeout
    else { return }
    try? hub.database.inWriterDatabase { db in
      db.setAuthorizer(nil)
      try db.rollback()
    }
    open = nil
    remember(
      ErrorReply(
        id: transaction.id, code: .timeout,
        message: "the transaction was silent for more than \(configuration.transactionTimeout) "
          + "and was rolled back; run it again"))
  }

  mutating func remember(_ error: ErrorReply) {
    guard let id = error.id else { return }
    abortedTransactions.append((id, error))
    if abortedTransactions.count > 1_000 { abortedTransactions.removeFirst(500) }
  }

  // MARK: - Transactions

  /// Runs one message of a transaction (checked by `WireRequest.parse`).
  mutating func transaction(client: Data, request: TransactionRequest) {
    if let current = open {
      guard current.id == request.id else {
        enqueue(.transaction(client: client, request: request), client: client, id: request.id)
        return
      }
      guard current.client == client, current.plugin == request.plugin else {
        reply(
          client,
          ErrorReply(
            id: request.id, code: .malformed,
            message: "transaction \(request.id) belongs to another client"))
        return
      }
      // A part again (its reply was lost) or out of order would run its statements twice or
      // in the wrong place: refused, and the transaction stays as it was. A rollback is
      // taken at any part: dropping the transaction is never wrong.
      guard (request.part ?? 0) == current.nextPart || request.end == "rollback" else {
        reply(
          client,
          ErrorReply(
            id: request.id, code: .malformed,
            message: "transaction \(request.id) is at part \(current.nextPart), not "
              + "\(request.part ?? 0); roll it back (end: rollback, part \(current.nextPart)) "
              + "and run it again"))
        return
      }
      run(client: client, request: request)
      return
    }
    if (request.part ?? 0) > 0 {
      if let aborted = abortedTransactions.last(where: { $0.id == request.id }) {
        reply(client, aborted.reply)
      } else {
        reply(
          client,
          ErrorReply(
            id: request.id, code: .unknownTransaction,
            message: "no open transaction \(request.id) (the hub restarted?); run it again"))
      }
      return
    }
    enum Beginning {
      case begun(owned: Set<String>)
      case duplicate(CommittedReply)
      case refused(ErrorReply)
    }
    do {
      let beginning = try hub.database.inWriterDatabase { db -> Beginning in
        if let stored = try HubStore.storedReply(for: request.id, db),
          var first = try? WireCoding.decode(CommittedReply.self, from: Data(stored.utf8))
        {
          first.duplicate = true
          return .duplicate(first)
        }
        guard let owned = try ownedTables(of: request.plugin, db) else {
          return .refused(
            ErrorReply(
              id: request.id, code: .notRegistered,
              message: "plugin \(request.plugin) has not registered; send register first"))
        }
        try db.beginTransaction(.immediate)
        return .begun(owned: owned)
      }
      switch beginning {
      case .begun(let owned):
        open = OpenTransaction(
          id: request.id, plugin: request.plugin, client: client, nextPart: 0,
          lastActivity: .now, ownedTables: owned)
        run(client: client, request: request)
      case .duplicate(let first):
        reply(client, first)
      case .refused(let refusal):
        reply(client, refusal)
      }
    } catch {
      reply(client, ErrorReply(id: request.id, code: .internal, message: "\(error)"))
    }
  }

  /// Runs the statements of one message of the open transaction, and ends it if asked.
  mutating func run(client: Data, request: TransactionRequest) {
    guard var transaction = open else { return }
    transaction.lastActivity = .now
    transaction.nextPart += 1
    open = transaction
    let policy = PluginPolicy(
      plugin: transaction.plugin, ownedTables: transaction.ownedTables, mode: .transaction)
    let outcome = hub.database.inWriterDatabaseOrFailure { db in
      Self.execute(request.statements, id: request.id, policy: policy, in: db)
    }
    switch outcome {
    case .success(let results):
      switch request.end {
      case "commit":
        commit(client: client, request: request, results: results)
      case "rollback":
        endTransaction(rollback: true)
        reply(
          client,
          CommittedReply(
            id: request.id, seq: hub.lastSequence, results: results, rolledBack: true))
      default:
        reply(client, ResultsReply(id: request.id, results: results))
      }
    case .failure(let failure):
      let transactionIsGone = !hub.database.writerIsInsideTransaction
      if failure.error.code == .unauthorized || request.end != nil || transactionIsGone {
        // Nothing of the transaction stays.
        endTransaction(rollback: true)
        remember(failure.error)
      }
      reply(client, failure.error)
    }
  }

  struct StatementFailure: Error {
    var error: ErrorReply
  }

  static func execute(
    _ statements: [WireStatement], id: String, policy: PluginPolicy, in db: Database
  ) -> Result<[WireResult], StatementFailure> {
    var refusal: String?
    db.setAuthorizer(
      { action in
        if let reason = policy.refusal(of: action) {
          refusal = reason
          return false
        }
        return true
      }, scope: policy.scope)
    defer { db.setAuthorizer(nil) }
    var results: [WireResult] = []
    for (index, statement) in statements.enumerated() {
      let arguments = StatementArguments((statement.args ?? []).map(\.value))
      do {
        if statement.rows == true {
          let cursor = try Row.fetchCursor(db, sql: statement.sql, arguments: arguments)
          var rows: [[WireValue]] = []
          while let row = try cursor.next() { rows.append(row.databaseValues.map(WireValue.init)) }
          results.append(
            WireResult(
              columns: cursor.columnNames, rows: rows, changes: db.changesCount,
              lastRowID: db.lastInsertedRowID))
        } else {
          try db.execute(sql: statement.sql, arguments: arguments)
          results.append(
            WireResult(
              columns: [], rows: [], changes: db.changesCount, lastRowID: db.lastInsertedRowID))
        }
      } catch let error as DatabaseError where error.resultCode == .SQLITE_AUTH || refusal != nil {
        // (A refused function surfaces as a plain SQLITE_ERROR, "not authorized to use…".)
        return .failure(
          StatementFailure(
            error: ErrorReply(
              id: id, code: .unauthorized, message: refusal ?? error.message ?? "not authorized",
              statement: index,
              sqlite: .init(
                code: error.resultCode.rawValue, extended: error.extendedResultCode.rawValue))))
      } catch let error as DatabaseError {
        return .failure(
          StatementFailure(error: ErrorReply(id: id, databaseError: error, statement: index)))
      } catch {
        return .failure(
          StatementFailure(
            error: ErrorReply(id: id, code: .internal, message: "\(error)", statement: index)))
      }
    }
    return .success(results)
  }

  mutating func endTransaction(rollback: Bool) {
    try? hub.database.inWriterDatabase { db in
      db.setAuthorizer(nil)
      if rollback { try db.rollback() }
    }
    open = nil
  }

  /// Records the commit in the feed and the exactly-once table, commits, publishes, replies.
  mutating func commit(client: Data, request: TransactionRequest, results: [WireResult]) {
    guard let transaction = open else { return }
    let now = Self.millisecondsNow()
    let outcome = hub.database.inWriterDatabaseOrFailure {
      db -> Result<(body: Data, PublishedCommit?), StatementFailure> in
      do {
        let (seq, event) = try recordFeedEntry(
          db, plugin: transaction.plugin, request: request.id, at: now)
        let reply = CommittedReply(id: request.id, seq: seq, results: results)
        let body = try recordReply(reply, plugin: transaction.plugin, at: now, db)
        try db.commit()
        return .success((body, event))
      } catch let error as DatabaseError {
        try? db.rollback()
        return .failure(
          StatementFailure(error: ErrorReply(id: request.id, databaseError: error, statement: nil)))
      } catch {
        try? db.rollback()
        return .failure(
          StatementFailure(error: ErrorReply(id: request.id, code: .internal, message: "\(error)")))
      }
    }
    open = nil
    switch outcome {
    case .success(let (body, event)):
      announce([event].compactMap { $0 }) { send(client, body) }
    case .failure(let failure):
      reply(client, failure.error)
    }
  }

  // MARK: - Registration

  /// Registers a plugin (checked by `WireRequest.parse`).
  mutating func register(client: Data, request: RegisterRequest) {
    let declared = request.tables.map { $0.lowercased() }
    let now = Self.millisecondsNow()
    let outcome = hub.database.inWriterDatabaseOrFailure {
      db -> Result<(RegisteredReply, PublishedCommit?), StatementFailure> in
      do {
        let conflicts = try Row.fetchAll(
          db,
          sql:
            "SELECT name, plugin FROM hearth_tables WHERE plugin <> ? AND lower(name) IN (SELECT value FROM json_each(?))",
          arguments: [
            request.plugin, String(decoding: try WireCoding.encode(declared), as: UTF8.self),
          ])
        if let conflict = conflicts.first {
          let table: String = try conflict["name"]
          let owner: String = try conflict["plugin"]
          return .failure(
            StatementFailure(
              error: ErrorReply(
                id: request.id, code: .unauthorized,
                message: "table \(table) belongs to plugin \(owner)")))
        }
        try db.beginTransaction(.immediate)
        try db.execute(
          sql: """
            INSERT INTO hearth_plugins (name, version, registeredAt) VALUES (?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET version = excluded.version
            """, arguments: [request.plugin, request.version, now])
        for table in request.tables {
          try db.execute(
            sql: "INSERT OR IGNORE INTO hearth_tables (name, plugin) VALUES (?, ?)",
            arguments: [table, request.plugin])
        }
        let owned = try HubStore.ownedTables(of: request.plugin, db)
        let done = try String.fetchSet(
          db, sql: "SELECT identifier FROM hearth_plugin_migrations WHERE plugin = ?",
          arguments: [request.plugin])
        var applied: [String] = []
        let policy = PluginPolicy(plugin: request.plugin, ownedTables: owned, mode: .migration)
        for migration in request.migrations where !done.contains(migration.id) {
          var refusal: String?
          db.setAuthorizer { action in
            if let reason = policy.refusal(of: action) {
              refusal = reason
              return false
            }
            return true
          }
          do {
            try db.execute(sql: migration.sql)
            db.setAuthorizer(nil)
          } catch let error as DatabaseError {
            db.setAuthorizer(nil)
            try? db.rollback()
            let code: ErrorReply.Code =
              error.resultCode == .SQLITE_AUTH || refusal != nil ? .unauthorized : .migrationFailed
            return .failure(
              StatementFailure(
                error: ErrorReply(
                  id: request.id, code: code,
                  message: "migration \(migration.id) of \(request.plugin) failed: "
                    + (refusal ?? error.message ?? "\(error)"),
                  sqlite: .init(
                    code: error.resultCode.rawValue, extended: error.extendedResultCode.rawValue))))
          }
          try db.execute(
            sql:
              "INSERT INTO hearth_plugin_migrations (plugin, identifier, appliedAt) VALUES (?, ?, ?)",
            arguments: [request.plugin, migration.id, now])
          applied.append(migration.id)
        }
        try db.checkForeignKeys()
        let (seq, event) = try recordFeedEntry(
          db, plugin: request.plugin, request: request.id, at: now)
        try db.commit()
        return .success(
          (
            RegisteredReply(id: request.id, plugin: request.plugin, applied: applied, seq: seq),
            event
          ))
      } catch let error as DatabaseError {
        db.setAuthorizer(nil)
        try? db.rollback()
        return .failure(
          StatementFailure(
            error: ErrorReply(
              id: request.id, code: .migrationFailed,
              message: "registration of \(request.plugin) failed: \(error.message ?? "\(error)")")))
      } catch {
        try? db.rollback()
        return .failure(
          StatementFailure(error: ErrorReply(id: request.id, code: .internal, message: "\(error)")))
      }
    }
    switch outcome {
    case .success(let (registered, event)):
      ownership[request.plugin] = nil
      announce([event].compactMap { $0 }) { reply(client, registered) }
    case .failure(let failure):
      reply(client, failure.error)
    }
  }

  // MARK: - The feed

  /// Records what the open transaction changed as the next entry of the change feed, in the
  /// same transaction; returns its sequence number and the event to publish after COMMIT
  /// (nil, and the current sequence number, when it changed nothing).
  func recordFeedEntry(_ db: Database, plugin: String, request: String, at now: Int64) throws
    -> (seq: Int64, event: PublishedCommit?)
  {
    guard
      let event = try recordFeedEntry(
        db, changes: db.pendingChanges, plugin: plugin, request: request, at: now,
        seq: hub.lastSequence + 1)
    else { return (hub.lastSequence, nil) }
    return (event.event.seq, event)
  }

  /// Records `changes` as feed entry `seq`; nil (and nothing recorded) when they are empty.
  func recordFeedEntry(
    _ db: Database, changes: DatabaseChanges, plugin: String, request: String, at now: Int64,
    seq: Int64
  ) throws -> PublishedCommit? {
    let tables = changes.publishedTables
    guard !tables.isEmpty || changes.isSchemaChanged else { return nil }
    let event = CommitEvent(
      hub: hub.instanceID, seq: seq, plugin: plugin, request: request, at: now, tables: tables,
      schemaChanged: changes.isSchemaChanged ? true : nil)
    let body = try WireCoding.encode(event)
    try db.execute(
      sql: "INSERT INTO hearth_commits (seq, at, plugin, request, event) VALUES (?, ?, ?, ?, ?)",
      arguments: [seq, now, plugin, request, String(decoding: body, as: UTF8.self)])
    return PublishedCommit(event: event, body: body)
  }

  /// Records the reply of a committed transaction, for a retry of its request id; returns
  /// it encoded, as it is sent.
  func recordReply(_ reply: CommittedReply, plugin: String, at now: Int64, _ db: Database) throws
    -> Data
  {
    let body = try WireCoding.encode(reply)
    try db.execute(
      sql: "INSERT INTO hearth_requests (id, plugin, seq, reply, at) VALUES (?, ?, ?, ?, ?)",
      arguments: [reply.id, plugin, reply.seq, String(decoding: body, as: UTF8.self), now])
    return body
  }

  func changes(client: Data, request: ChangesRequest) {
    let limit = request.limit ?? ChangesRequest.defaultLimit
    do {
      let (events, horizon) = try hub.database.read { db in
        let events = try HubStore.commits(after: request.since, limit: limit, db)
        return (events, try HubStore.horizon(db, last: hub.lastSequence))
      }
      let commits = try events.map { try WireCoding.decode(CommitEvent.self, from: Data($0.utf8)) }
      reply(
        client,
        ChangesReply(id: request.id, commits: commits, seq: hub.lastSequence, horizon: horizon))
    } catch {
      reply(client, ErrorReply(id: request.id, code: .internal, message: "\(error)"))
    }
  }

  /// Takes a plugin's cursor; it is written to `hearth_cursors` before the next pruning.
  mutating func cursor(client: Data, request: CursorRequest) {
    guard (0...hub.lastSequence).contains(request.seq) else {
      reply(
        client,
        ErrorReply(
          id: request.id, code: .malformed,
          message:
            "cursor \(request.seq) is not a committed sequence number (0...\(hub.lastSequence))"
        ))
      return
    }
    do {
      let horizon = try hub.database.read { db -> Int64? in
        guard try HubStore.isRegistered(request.plugin, db) else { return nil }
        return try HubStore.horizon(db, last: hub.lastSequence)
      }
      guard let horizon else {
        reply(
          client,
          ErrorReply(
            id: request.id, code: .notRegistered,
            message: "plugin \(request.plugin) has not registered; send register first"))
        return
      }
      unsavedCursors[request.plugin] = request.seq
      reply(
        client,
        CursorSavedReply(
          id: request.id, plugin: request.plugin, seq: request.seq, horizon: horizon))
    } catch {
      reply(client, ErrorReply(id: request.id, code: .internal, message: "\(error)"))
    }
  }

  /// Writes the cursors reported since the last time, in one transaction.
  mutating func saveCursors() throws {
    guard !unsavedCursors.isEmpty else { return }
    let cursors = unsavedCursors
    try hub.database.inWriterDatabase { db in
      try db.inTransaction(.immediate) {
        for (plugin, seq) in cursors { try HubStore.saveCursor(seq, of: plugin, db) }
        return .commit
      }
    }
    unsavedCursors.removeAll()
  }

  // MARK: - Output

  func reply(_ client: Data, _ message: some Encodable) {
    guard let body = try? WireCoding.encode(message) else { return }
    send(client, body)
  }

  /// Sends an encoded reply.
  func send(_ client: Data, _ body: Data) {
    // A client that went away is not an error of the hub: its reply is dropped.
    try? router.send([client, body], dontWait: true)
  }

  /// A commit event and its JSON, encoded once for the feed and the bus.
  struct PublishedCommit {
    var event: CommitEvent
    var body: Data
  }

  /// Publishes a commit under `commit` and under each table's topic (the same bytes when it
  /// changed one table).
  func publish(_ commit: PublishedCommit) {
    try? publisher.send([Data("commit".utf8), commit.body], dontWait: true)
    for (table, summary) in commit.event.tables {
      var single = commit.event
      single.tables = [table: summary]
      let body = commit.event.tables.count == 1 ? commit.body : try? WireCoding.encode(single)
      if let body { try? publisher.send([Data("table:\(table)".utf8), body], dontWait: true) }
    }
  }

  func publish(topic: String, _ message: some Encodable) {
    guard let body = try? WireCoding.encode(message) else { return }
    // PUB never blocks: a subscriber past its high-water mark misses messages and catches
    // up from the feed.
    try? publisher.send([Data(topic.utf8), body], dontWait: true)
  }

  static func millisecondsNow() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

}

extension DatabasePool {
  /// Runs `body` on the writer; a thrown error becomes an internal failure reply.
  func inWriterDatabaseOrFailure<T>(
    _ body: (Database) -> Result<T, HubSession.StatementFailure>
  ) -> Result<T, HubSession.StatementFailure> {
    do {
      return try inWriterDatabase(body)
    } catch {
      return .failure(.init(error: ErrorReply(id: nil, code: .internal, message: "\(error)")))
    }
  }

  var writerIsInsideTransaction: Bool {
    (try? inWriterDatabase { $0.isInsideTransaction }) ?? false
  }
}
