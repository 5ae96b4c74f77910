import Foundation
import HearthSQLite
import HearthSync
import HearthTransport
import HearthWire

/// The hub's side of the `sync` request, shaped like `TransactionExecutor`: it runs what a
/// request asks — declaring tables, pausing, resyncing…, each write a commit of origin
/// `sync` recorded in the feed — rings the sync service, and owns the requests that wait for
/// a round of it or for a sharing action's outcome. It sends nothing: the session announces
/// the commits and sends the answers (`HubSession.sync`, `answerSyncRequests`).
struct SyncRequests {
  /// A request waiting until `deadline` (the hub's clock) for the service: a round numbered
  /// `round` or later to finish, or the outcome of sharing action `ticket`.
  struct Waiter {
    let client: ReplyRoute
    let id: String
    let round: Int
    let deadline: Duration
    let ticket: Int?
  }

  /// What a request came to: whether it wrote (then its answer waits for the disk, even when
  /// no plugin's table changed), the events of its commits, in order (to announce), and its
  /// answer — nil while it waits.
  struct Outcome {
    var wrote = false
    var commits: [ChangeFeed.PublishedCommit] = []
    var answer: (any WireMessage)?
  }

  let sync: HubSync
  let database: DatabasePool
  /// How long a request waits for the service before it is answered with an error.
  let wait: Duration
  private(set) var waiters: [Waiter] = []

  init(sync: HubSync, database: DatabasePool, wait: Duration) {
    self.sync = sync
    self.database = database
    self.wait = wait
  }

  /// Runs `request` from `client`: its commits take the sequence numbers from `seq` on, at
  /// `now` (ms since 1970); `clock` is the hub's clock, for the deadline of a wait.
  mutating func receive(
    _ request: SyncRequest, from client: ReplyRoute, feed: ChangeFeed, seq: Int64,
    at now: Int64, clock: Duration
  ) -> Outcome {
    var outcome = Outcome()
    let sync = sync
    func commit(_ body: (Database) throws -> Void) throws {
      let next = seq + Int64(outcome.commits.count)
      let event = try Self.commit(body, feed: feed, seq: next, at: now, database)
      outcome.wrote = true
      if let event { outcome.commits.append(event) }
    }
    do {
      // Declaring tables already synced (a plugin does at each start) writes nothing.
      var declared = false
      if let plugin = request.plugin, !request.tables.isEmpty,
        try !database.read({ db in
          try sync.isDeclared(
            request.tables, files: request.files, references: request.references, of: plugin,
            db)
        })
      {
        try commit { db in
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
        try commit { db in
          if try SyncStore.value(SyncStore.pausedKey, db) == nil {
            try SyncStore.setValue(String(now), for: SyncStore.pausedKey, db)
          }
        }
      case .resume:
        try commit { db in try SyncStore.setValue(nil, for: SyncStore.pausedKey, db) }
      case .share, .acceptShare, .unshare, .revokeShare, .verify:
        let service = try self.service(for: request)
        let action = try Self.shareAction(request)
        if let table = action.table, let plugin = request.plugin,
          try !database.read({ db in try HubStore.ownedTables(of: plugin, db) })
            .contains(table.lowercased())
        {
          throw ErrorReply(
            id: request.id, code: .unauthorized,
            message: "plugin \(plugin) does not own table \(table)")
        }
        let ticket = service.perform(action)
        waiters.append(
          Waiter(client: client, id: request.id, round: 0, deadline: clock + wait, ticket: ticket))
        return outcome
      case .resync: try commit { db in try SyncStore.resync(db) }
      case .deleteLocalData:
        try commit { db in
          try SyncStore.deleteLocalData(capture: sync.capture, db)
          if let account { try SyncStore.acceptAccount(account, db) }
        }
      case .acceptAccount:
        guard let account else {
          throw ErrorReply(
            id: request.id, code: .syncFailed, message: "no sync server is set up: no account")
        }
        // This hub's rows go to the new account, and its rows come here: nothing deleted.
        try commit { db in
          try SyncStore.acceptAccount(account, db)
          try SyncStore.resync(db)
        }
      }
      if request.action == .now {
        let service = try self.service(for: request)
        if try database.read({ db in try SyncStore.value(SyncStore.pausedKey, db) }) != nil {
          throw ErrorReply(id: request.id, code: .syncFailed, message: SyncPaused().description)
        }
        waiters.append(
          Waiter(
            client: client, id: request.id, round: service.requestRound(),
            deadline: clock + wait, ticket: nil))
      } else {
        if request.action != .status || declared { sync.service?.requestRound() }
        outcome.answer = try database.read { db in try sync.status(id: request.id, db) }
      }
    } catch let error as SyncSchemaError {
      outcome.answer = ErrorReply(id: request.id, code: .notSyncable, message: error.description)
    } catch var refusal as ErrorReply {
      refusal.id = request.id
      outcome.answer = refusal
    } catch {
      outcome.answer = ErrorReply(id: request.id, code: .internal, message: "\(error)")
    }
    return outcome
  }

  /// The answers due at `clock`: to the requests whose round has finished or whose sharing
  /// action has its outcome, and to those that waited too long (with the service's last
  /// error). The rest go on waiting.
  mutating func answersDue(clock: Duration) -> [(ReplyRoute, any WireMessage)] {
    guard !waiters.isEmpty, let service = sync.service else { return [] }
    let finished = service.finishedRounds
    var answers: [(ReplyRoute, any WireMessage)] = []
    var waiting: [Waiter] = []
    for waiter in waiters {
      if let ticket = waiter.ticket {
        if let outcome = service.outcome(of: ticket) {
          answers.append((waiter.client, answer(waiter, with: outcome)))
        } else if clock >= waiter.deadline {
          answers.append(
            (
              waiter.client,
              ErrorReply(
                id: waiter.id, code: .syncFailed,
                message: "the server did not answer in time; the action may still happen")
            ))
        } else {
          waiting.append(waiter)
        }
      } else if finished >= waiter.round {
        answers.append((waiter.client, status(of: waiter)))
      } else if clock >= waiter.deadline {
        let last = (try? database.read { db in try SyncStore.value("lastError", db) }) ?? nil
        answers.append(
          (
            waiter.client,
            ErrorReply(
              id: waiter.id, code: .syncFailed,
              message: "no round of sync finished in time" + (last.map { ": \($0)" } ?? ""))
          ))
      } else {
        waiting.append(waiter)
      }
    }
    waiters = waiting
    return answers
  }

  /// Refuses every waiting request (the hub is stopping); none waits after.
  mutating func refuseAll(_ message: String) -> [(ReplyRoute, any WireMessage)] {
    defer { waiters.removeAll() }
    return waiters.map { ($0.client, ErrorReply(id: $0.id, code: .busy, message: message)) }
  }

  /// Runs `body` in a transaction of its own on the writer, recorded in the feed at `seq` as
  /// a commit of origin `sync` when it changed a plugin's table: its event, to announce.
  static func commit(
    _ body: (Database) throws -> Void, feed: ChangeFeed, seq: Int64, at now: Int64,
    _ database: DatabasePool
  ) throws -> ChangeFeed.PublishedCommit? {
    try database.inWriterDatabase { db -> ChangeFeed.PublishedCommit? in
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
  }

  /// The service, or why there is none.
  private func service(for request: SyncRequest) throws -> SyncService {
    guard let service = sync.service else {
      throw ErrorReply(
        id: request.id, code: .syncFailed,
        message: "no sync server is set up (hearth sync setup URL, then restart hearthd)")
    }
    return service
  }

  /// The sync state as a waiter's answer (`change`d), or why it could not be read.
  private func status(
    of waiter: Waiter, _ change: (inout SyncingReply) -> Void = { _ in }
  ) -> any WireMessage {
    let sync = sync
    do {
      var status = try database.read { db in try sync.status(id: waiter.id, db) }
      change(&status)
      return status
    } catch {
      return ErrorReply(id: waiter.id, code: .internal, message: "\(error)")
    }
  }

  /// A sharing action's answer: the sync state with the share and invitation, or why not.
  private func answer(
    _ waiter: Waiter, with outcome: Result<ServerOutcome, any Error>
  ) -> any WireMessage {
    switch outcome {
    case .success(let outcome):
      return status(of: waiter) { status in
        status.invitation = outcome.invitation
        status.share = outcome.share?.zone
        status.verification = outcome.verification
      }
    case .failure(let error as SyncPaused):
      return ErrorReply(id: waiter.id, code: .syncFailed, message: error.description)
    case .failure(let error as ShareError):
      return ErrorReply(id: waiter.id, code: .shareRefused, message: error.description)
    case .failure(let error):
      return ErrorReply(id: waiter.id, code: .syncFailed, message: "\(error)")
    }
  }

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
}
