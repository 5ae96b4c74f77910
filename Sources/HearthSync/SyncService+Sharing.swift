import Foundation
import HearthPostgres
import HearthSQLite
import HearthWire

/// An action the service runs with the server, asked for by the hub's `sync` request:
/// sharing, and checking that this hub holds what the server does.
public enum ServerAction: Sendable, Hashable {
  /// Shares root record `key` of `table` (again: sets its permission) and makes an invitation.
  case share(table: String, key: String, permission: SharePermission, title: String?)
  case accept(invitation: String)
  /// Stops sharing root record `key` of `table`: every member loses it.
  case unshare(table: String, key: String)
  /// Takes the share of root record `key` of `table` from member `role`.
  case revoke(table: String, key: String, role: String)
  /// Pushes and pulls, then compares each zone's records here and on the server.
  case verify
}

extension ServerAction {
  /// The table whose root record the action is about (none for `accept`).
  public var table: String? {
    switch self {
    case .share(let table, _, _, _), .unshare(let table, _), .revoke(let table, _, _): table
    case .accept, .verify: nil
    }
  }
}

/// What an action came to: the share as it is now, `share`'s invitation, `verify`'s
/// comparison.
public struct ServerOutcome: Sendable, Hashable {
  public var share: SyncShare?
  public var invitation: String?
  public var verification: SyncVerification?
}

/// A sharing action refused, by this hub or by the server (whose refusals come as
/// SQLSTATE 42501, insufficient privilege: the outcome of an action carries them as this).
public struct ShareError: Error, Hashable, Sendable, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }

  /// `error` as a share error when it is the server's refusal; any other error as it is.
  static func fromServer(_ error: any Error) -> any Error {
    guard let refusal = error as? PostgresError, refusal.sqlState == "42501" else { return error }
    return ShareError(refusal.message)
  }
}

extension SyncService {
  /// Queues `action` for the service's next round; returns its ticket for `outcome(of:)`.
  public func perform(_ action: ServerAction) -> Int {
    let ticket = actions.withLock { actions in
      actions.next += 1
      actions.queued.append((actions.next, action))
      return actions.next
    }
    requestRound()
    return ticket
  }

  /// The outcome of ticket `ticket`, once its action ran and the round after it has pushed
  /// and pulled (so an accepted share's rows are here); taken once.
  public func outcome(of ticket: Int) -> Result<ServerOutcome, any Error>? {
    actions.withLock { $0.done.removeValue(forKey: ticket) }
  }

  /// Runs the queued actions; their outcomes wait in `finished` for the round's end.
  func runActions(_ server: SyncServer) -> [(Int, Result<ServerOutcome, any Error>)] {
    let queued = actions.withLock { actions in
      defer { actions.queued.removeAll() }
      return actions.queued
    }
    return queued.map { ticket, action in
      (ticket, Result { try run(action, server) }.mapError(ShareError.fromServer))
    }
  }

  /// Takes the queued actions, each failed with `error` (sync is paused).
  func refuseActions(_ error: any Error) -> [(Int, Result<ServerOutcome, any Error>)] {
    let queued = actions.withLock { actions in
      defer { actions.queued.removeAll() }
      return actions.queued
    }
    return queued.map { ticket, _ in (ticket, .failure(error)) }
  }

  /// Publishes outcomes (after the round, or at once when the round failed).
  func publish(_ outcomes: [(Int, Result<ServerOutcome, any Error>)]) {
    guard !outcomes.isEmpty else { return }
    actions.withLock { actions in
      for (ticket, outcome) in outcomes { actions.done[ticket] = outcome }
    }
  }

  private func run(_ action: ServerAction, _ server: SyncServer) throws -> ServerOutcome {
    switch action {
    case .share(let table, let key, let permission, let title):
      // What is owed goes first: the server shares the rows it has.
      try writer.makeDurable()
      try pushAll(server)
      let (root, rows) = try reader.read { db in try Self.shareable(table, key, db) }
      let invitation = SyncServer.newInvitation()
      let zone = try server.share(
        type: root, name: key, records: rows, permission: permission, invitation: invitation,
        title: title)
      try linkFiles(of: rows, to: zone, server)
      let shares = try refreshShares(server, assigning: (rows, zone))
      return ServerOutcome(share: shares.first { $0.zone == zone }, invitation: invitation)
    case .accept(let invitation):
      let share = try server.accept(invitation)
      try refreshShares(server)
      return ServerOutcome(share: share)
    case .unshare(let table, let key):
      let share = try ownShare(table, key)
      try writer.makeDurable()
      try pushAll(server)
      try server.unshare(share.zone)
      try refreshShares(server)
      return ServerOutcome()
    case .revoke(let table, let key, let role):
      let share = try ownShare(table, key)
      try server.revoke(share.zone, from: role)
      return ServerOutcome(share: try refreshShares(server).first { $0.zone == share.zone })
    case .verify:
      try writer.makeDurable()
      try pushAll(server)
      try pullAll(server)
      return ServerOutcome(verification: try verify(server))
    }
  }

  /// The root table's name and the rows sharing `key` of `table` shares; throws
  /// `ShareError` for a record that cannot be shared.
  static func shareable(_ table: String, _ key: String, _ db: Database) throws -> (
    String, [(type: String, name: String)]
  ) {
    let tables = try SyncStore.syncedTables(db)
    guard let root = tables.first(where: { $0.name.lowercased() == table.lowercased() }) else {
      throw ShareError("table \(table) is not synced: only a synced table's rows can be shared")
    }
    if let link = root.link, root.references.isEmpty {
      throw ShareError(
        "only a root record can be shared; a row of \(root.name) goes with the row its "
          + "\(link.keyColumn) names")
    }
    guard root.references.isEmpty else {
      throw ShareError(
        "only a root record can be shared (a row of a table without foreign keys); "
          + "\(root.name) has foreign keys to \(root.references.sorted().joined(separator: ", "))")
    }
    let exists = try Int.fetchOne(
      db,
      sql: "SELECT 1 FROM main.\(quoteIdentifier(root.name)) "
        + "WHERE CAST(\(quoteIdentifier(root.primaryKey)) AS TEXT) = ?", arguments: [key])
    guard exists != nil else { throw ShareError("\(root.name) has no row \(key)") }
    if let share = try SyncShares.all(db).first(where: { $0.isRoot(root.name, key) }),
      !share.isOwner
    {
      throw ShareError("this record is \(share.owner)'s share: only its owner shares it")
    }
    return (root.name, try SyncShares.tree(type: root.name, key: key, tables: tables, db))
  }

  private func ownShare(_ table: String, _ key: String) throws -> SyncShare {
    let shares = try reader.read { db in try SyncShares.all(db) }
    guard let share = shares.first(where: { $0.isRoot(table, key) }) else {
      throw ShareError("\(table) \(key) is not shared")
    }
    guard share.isOwner else {
      throw ShareError("\(table) \(key) is \(share.owner)'s share: only its owner changes it")
    }
    return share
  }

  /// Takes the server's list of shares when it differs from this hub's (rows of a share
  /// that went away are released or dropped, see `SyncShares.refresh`), and `assigning`'s
  /// rows to their new zone; the guards follow. Returns the list.
  @discardableResult
  func refreshShares(
    _ server: SyncServer, assigning: ([(type: String, name: String)], String)? = nil
  ) throws -> [SyncShare] {
    let shares = try server.shares()
    let known = try reader.read { db in try SyncShares.all(db) }
    guard known != shares || assigning != nil else { return shares }
    let capture = capture
    let assigned = assigning.map { (rows: $0.0, zone: $0.1) }
    let gone = try writer.write { db in
      let gone = try SyncShares.refresh(with: shares, capture: capture, db)
      if let assigned { try SyncShares.assign(assigned.rows, to: assigned.zone, db) }
      try capture.install(SyncStore.syncedTables(db), on: db)
      return gone
    }
    if !gone.isEmpty {
      logger.notice("shares no longer synced here: \(gone.joined(separator: ", "))")
    }
    return shares
  }
}

/// Sync is paused (`hearth sync pause`): nothing goes to or comes from the server.
public struct SyncPaused: Error, Hashable, Sendable, CustomStringConvertible {
  public init() {}
  public var description: String {
    "sync is paused: nothing is pushed or pulled until `hearth sync resume`"
  }
}
