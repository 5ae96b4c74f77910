import Foundation
import HearthSQLite
import HearthTransport
import HearthWire

/// Runs the plugins' transactions on the writer. A transaction in one message goes through
/// `apply`, alone or as one member of a group commit; one in several messages is begun,
/// continued and ended by `receive`, and holds the writer meanwhile (`open`). Decides and
/// returns what to answer; the loop sends it. Lives on the hub's thread.
struct TransactionExecutor {
  struct OpenTransaction {
    var id: String
    var plugin: String
    var client: ReplyRoute
    var nextPart: Int
    /// When its last message came, on the hub's clock.
    var lastActivity: Duration
    var policy: PluginPolicy
  }

  /// What one transaction came to.
  enum Outcome {
    case committed(ChangeFeed.Committed)
    case failed(ErrorReply)
  }

  /// What to do with a message of a transaction in several messages.
  enum Step {
    /// Another transaction holds the writer: the message waits its turn.
    case wait
    case answer(any WireMessage)
    /// The transaction committed: announce it.
    case committed(ChangeFeed.Committed)
  }

  let database: DatabasePool
  /// The transaction in several messages that holds the writer.
  private(set) var open: OpenTransaction?
  /// Transactions the hub ended on its own (timeout, refusal), so that their late messages
  /// get the reason rather than `unknownTransaction`. Bounded.
  private var abortedTransactions: [(id: String, reply: ErrorReply)] = []
  /// Each registered plugin's transaction policy (its tables, lowercased, read from
  /// `hearth_tables` once), forgotten when the plugin registers again: every transaction
  /// needs it before it begins, and only a registration changes it.
  private var policies: [String: PluginPolicy] = [:]

  init(database: DatabasePool) {
    self.database = database
  }

  /// Forgets what `plugin` owns (it registered again).
  mutating func forgetOwnership(of plugin: String) { policies[plugin] = nil }

  /// The policy of `plugin`'s transactions; nil when it has not registered.
  private mutating func policy(of plugin: String, _ db: Database) throws -> PluginPolicy? {
    if let known = policies[plugin] { return known }
    guard try HubTables.isRegistered(plugin, db) else { return nil }
    let policy = PluginPolicy(
      plugin: plugin, ownedTables: try HubStore.ownedTables(of: plugin, db), mode: .transaction)
    policies[plugin] = policy
    return policy
  }

  // MARK: - One message, one transaction: alone or in a group commit

  /// Commits one-message transactions together: one BEGIN, a savepoint each (a failing one
  /// rolls back alone and gets its own error), each its own sequence number from `seq` on,
  /// one COMMIT for all. A lone transaction is a group of one.
  mutating func commit(
    _ group: [TransactionRequest], feed: ChangeFeed, seq first: Int64, at now: Int64
  ) -> [Outcome] {
    var outcomes: [Outcome] = []
    do {
      try database.inWriterDatabase { db in
        var next = first
        for (index, request) in group.enumerated() {
          // A lone transaction needs no savepoint: its failure rolls back the whole.
          let outcome = try apply(
            request, savepoint: group.count == 1 ? nil : "hearth_group_\(index)", feed: feed,
            seq: next, at: now, db)
          if case .committed(let committed) = outcome, committed.event != nil { next += 1 }
          outcomes.append(outcome)
        }
        if db.isInsideTransaction { try db.commit() }
      }
    } catch {
      try? database.inWriterDatabase { db in try db.rollback() }
      // A duplicate's answer and a member's own failure stand; nothing else committed.
      return group.indices.map { index in
        switch index < outcomes.count ? outcomes[index] : nil {
        case .committed(let done)? where done.reply.duplicate == true: outcomes[index]
        case .failed?: outcomes[index]
        default: .failed(Self.refusal(of: group[index].id, after: error))
        }
      }
    }
    return outcomes
  }

  /// Applies one transaction of one message in savepoint `savepoint` of the writer's
  /// transaction (begun here if none is open), or in the whole transaction when `savepoint`
  /// is nil: answered from the exactly-once record if its id committed before; else its
  /// statements under the plugin's policy and, when they all succeed, its feed entry `seq`
  /// and reply record. A failure undoes only this savepoint (or the whole transaction),
  /// unless SQLite abandoned the whole transaction (`GroupAbandoned` is thrown).
  mutating func apply(
    _ request: TransactionRequest, savepoint: String?, feed: ChangeFeed, seq: Int64,
    at now: Int64, _ db: Database
  ) throws -> Outcome {
    // Begun before the look-up, which then reads in the writer's transaction rather than in
    // one of its own (a lone transaction takes SQLite's locks once, not twice).
    if !db.isInsideTransaction { try db.beginTransaction(.immediate) }
    if let first = try feed.storedReply(for: request.id, db) {
      return .committed(.init(reply: first, body: try WireCoding.encode(first), event: nil))
    }
    guard let policy = try policy(of: request.plugin, db) else {
      return .failed(.notRegistered(request.plugin, id: request.id))
    }
    if let savepoint { try db.execute(sql: "SAVEPOINT \(savepoint)") }
    switch Self.execute(request, policy: policy, in: db) {
    case .success(let results):
      let changes = savepoint.map { db.pendingChanges(inSavepoint: $0) } ?? db.pendingChanges
      let committed = try feed.record(
        results, changes: changes, plugin: request.plugin, request: request.id, seq: seq,
        at: now, db)
      if let savepoint { try db.execute(sql: "RELEASE \(savepoint)") }
      return .committed(committed)
    case .failure(let error):
      // SQLite abandoned the whole transaction (a full disk…): nobody's work stays.
      guard db.isInsideTransaction else { throw GroupAbandoned(error: error) }
      if let savepoint {
        try db.execute(sql: "ROLLBACK TO \(savepoint)")
        try db.execute(sql: "RELEASE \(savepoint)")
      } else {
        try db.rollback()
      }
      return .failed(error)
    }
  }

  struct GroupAbandoned: Error {
    var error: ErrorReply
  }

  /// What a member of a group commit that failed as a whole is told. Nobody's work stays.
  /// The member whose statement made SQLite abandon the transaction gets its error; when the
  /// COMMIT itself failed (a full disk…), everyone gets SQLite's error, as a lone transaction
  /// would; the others of an abandoned group did nothing wrong: `busy`, run it again.
  static func refusal(of id: String, after error: any Error) -> ErrorReply {
    switch error {
    case let abandoned as GroupAbandoned where abandoned.error.id == id:
      return abandoned.error
    case let abandoned as GroupAbandoned:
      return ErrorReply(
        id: id, code: .busy,
        message: "another transaction of the same commit failed (\(abandoned.error.message)) "
          + "and nothing stayed; run the transaction again")
    case let error as DatabaseError:
      return ErrorReply(id: id, databaseError: error, statement: nil)
    default:
      return ErrorReply(
        id: id, code: .internal, message: "the commit failed (\(error)); nothing stayed")
    }
  }

  /// Runs the statements of `request` under `policy`; the first failure is the result, with
  /// its index. Their results, unless the request asks for none.
  static func execute(
    _ request: TransactionRequest, policy: PluginPolicy, in db: Database
  ) -> Result<[WireResult], ErrorReply> {
    let (id, keepsResults) = (request.id, !request.wantsNoResults)
    var index = 0
    do {
      return .success(
        try policy.enforce(on: db) {
          var results: [WireResult] = []
          if keepsResults { results.reserveCapacity(request.statements.count) }
          for (position, statement) in request.statements.enumerated() {
            index = position
            let result = try run(statement, db)
            if keepsResults { results.append(result) }
          }
          return results
        })
    } catch let failure as PluginPolicy.Failure where failure.isRefused {
      return .failure(
        ErrorReply(
          id: id, code: .unauthorized, message: failure.reason, statement: index,
          sqlite: .init(failure.error)))
    } catch let failure as PluginPolicy.Failure {
      return .failure(ErrorReply(id: id, databaseError: failure.error, statement: index))
    } catch {
      return .failure(ErrorReply(id: id, code: .internal, message: "\(error)", statement: index))
    }
  }

  private static func run(_ statement: WireStatement, _ db: Database) throws -> WireResult {
    let arguments = StatementArguments((statement.args ?? []).map(\.value))
    guard statement.rows == true else {
      try db.execute(sql: statement.sql, arguments: arguments)
      return WireResult(
        columns: [], rows: [], changes: db.changesCount, lastRowID: db.lastInsertedRowID)
    }
    let cursor = try Row.fetchCursor(db, sql: statement.sql, arguments: arguments)
    var rows: [[WireValue]] = []
    while let row = try cursor.next() { rows.append(row.databaseValues.map(WireValue.init)) }
    return WireResult(
      columns: cursor.columnNames, rows: rows, changes: db.changesCount,
      lastRowID: db.lastInsertedRowID)
  }

  // MARK: - A transaction in several messages

  /// Takes one message of a transaction that is not a lone one-message commit (checked by
  /// `WireRequest.parse`). `seq` is the number a commit now would take.
  mutating func receive(
    _ request: TransactionRequest, from client: ReplyRoute, feed: ChangeFeed, seq: Int64,
    at now: Int64, clock: Duration
  ) -> Step {
    let part = request.part ?? 0
    guard let current = open else {
      guard part == 0 else {
        return .answer(
          abortedTransactions.last(where: { $0.id == request.id })?.reply
            ?? ErrorReply(
              id: request.id, code: .unknownTransaction,
              message: "no open transaction \(request.id) (the hub restarted?); run it again"))
      }
      return begin(request, from: client, feed: feed, seq: seq, at: now, clock: clock)
    }
    guard current.id == request.id else { return .wait }
    guard current.client == client, current.plugin == request.plugin else {
      return .answer(
        ErrorReply(
          id: request.id, code: .malformed,
          message: "transaction \(request.id) belongs to another client"))
    }
    // A part again (its reply was lost) or out of order would run its statements twice or
    // in the wrong place: refused, and the transaction stays as it was. A rollback is taken
    // at any part: dropping the transaction is never wrong.
    guard part == current.nextPart || request.end == "rollback" else {
      return .answer(
        ErrorReply(
          id: request.id, code: .malformed,
          message: "transaction \(request.id) is at part \(current.nextPart), not \(part); "
            + "roll it back (end: rollback, part \(current.nextPart)) and run it again"))
    }
    return run(request, feed: feed, seq: seq, at: now, clock: clock)
  }

  private mutating func begin(
    _ request: TransactionRequest, from client: ReplyRoute, feed: ChangeFeed, seq: Int64,
    at now: Int64, clock: Duration
  ) -> Step {
    enum Beginning {
      case begun(PluginPolicy)
      case answered(any WireMessage)
    }
    do {
      let beginning = try database.inWriterDatabase { db -> Beginning in
        if let first = try feed.storedReply(for: request.id, db) { return .answered(first) }
        guard let policy = try policy(of: request.plugin, db) else {
          return .answered(ErrorReply.notRegistered(request.plugin, id: request.id))
        }
        try db.beginTransaction(.immediate)
        return .begun(policy)
      }
      switch beginning {
      case .begun(let policy):
        open = OpenTransaction(
          id: request.id, plugin: request.plugin, client: client, nextPart: 0,
          lastActivity: clock, policy: policy)
        return run(request, feed: feed, seq: seq, at: now, clock: clock)
      case .answered(let answer):
        return .answer(answer)
      }
    } catch {
      return .answer(ErrorReply(id: request.id, code: .internal, message: "\(error)"))
    }
  }

  /// Runs the statements of one message of the open transaction, and ends it if asked.
  private mutating func run(
    _ request: TransactionRequest, feed: ChangeFeed, seq: Int64, at now: Int64,
    clock: Duration
  ) -> Step {
    guard var transaction = open else { return .wait }
    transaction.lastActivity = clock
    transaction.nextPart += 1
    open = transaction
    let policy = transaction.policy
    let outcome: Result<[WireResult], ErrorReply>
    do {
      outcome = try database.inWriterDatabase { db in
        Self.execute(request, policy: policy, in: db)
      }
    } catch {
      outcome = .failure(ErrorReply(id: request.id, code: .internal, message: "\(error)"))
    }
    switch (outcome, request.end) {
    case (.success(let results), "commit"):
      return commitOpen(results, feed: feed, seq: seq, at: now)
    case (.success(let results), "rollback"):
      rollbackOpen()
      return .answer(
        CommittedReply(id: request.id, seq: seq - 1, results: results, rolledBack: true))
    case (.success(let results), _):
      return .answer(ResultsReply(id: request.id, results: results))
    case (.failure(let error), _):
      let isGone = !((try? database.inWriterDatabase { $0.isInsideTransaction }) ?? false)
      if error.code == .unauthorized || request.end != nil || isGone {
        // Nothing of the transaction stays.
        rollbackOpen()
        remember(error)
      }
      return .answer(error)
    }
  }

  /// Records the open transaction's commit in the feed and the exactly-once table, and
  /// commits.
  private mutating func commitOpen(
    _ results: [WireResult], feed: ChangeFeed, seq: Int64, at now: Int64
  ) -> Step {
    guard let transaction = open else { return .wait }
    defer { open = nil }
    do {
      return .committed(
        try database.inWriterDatabase { db in
          do {
            let committed = try feed.record(
              results, changes: db.pendingChanges, plugin: transaction.plugin,
              request: transaction.id, seq: seq, at: now, db)
            try db.commit()
            return committed
          } catch {
            try? db.rollback()
            throw error
          }
        })
    } catch let error as DatabaseError {
      return .answer(ErrorReply(id: transaction.id, databaseError: error, statement: nil))
    } catch {
      return .answer(ErrorReply(id: transaction.id, code: .internal, message: "\(error)"))
    }
  }

  /// Rolls back the open transaction, if any.
  mutating func rollbackOpen() {
    guard open != nil else { return }
    try? database.inWriterDatabase { db in
      db.setAuthorizer(nil)
      try db.rollback()
    }
    open = nil
  }

  /// Rolls back the open transaction when its client has been silent for longer than
  /// `timeout`; its next message gets `timeout`.
  mutating func expire(after timeout: Duration, now clock: Duration) {
    guard let transaction = open, clock - transaction.lastActivity > timeout else { return }
    rollbackOpen()
    remember(
      ErrorReply(
        id: transaction.id, code: .timeout,
        message: "the transaction was silent for more than \(timeout) and was rolled back; "
          + "run it again"))
  }

  private mutating func remember(_ error: ErrorReply) {
    guard let id = error.id else { return }
    abortedTransactions.append((id, error))
    if abortedTransactions.count > 1_000 { abortedTransactions.removeFirst(500) }
  }
}
