import Foundation
import HearthData
import HearthSQLite
import HearthWire

extension HubDatabase {
  /// Asks the hub to sync `tables` (this plugin's own) with the sync server, and runs
  /// `action`; returns the hub's sync state. With no tables and `.status`, only asks. A
  /// table that breaks a rule of synced tables is refused with the rule
  /// (`DatabaseError.hubCode == .notSyncable`); `.now` waits until a round begun after the
  /// request has pushed and pulled (`.syncFailed` when none could).
  @discardableResult
  public func sync(
    tables: [String] = [], files: [String] = [], references: [SyncReference] = [],
    action: SyncRequest.Action = .status
  ) throws
    -> SyncingReply
  {
    try prepare()
    let id = RequestID.make()
    do {
      return try connection.request(
        SyncRequest(
          id: id, plugin: registration.name, tables: tables, action: action, files: files,
          references: references),
        id: id,
        as: SyncingReply.self, timeout: action == .now ? .seconds(35) : nil)
    } catch let error as ErrorReply {
      throw DatabaseError(error)
    }
  }
}

extension HubDatabase: SyncingDatabase {
  /// Declares `tables` synced, unless the hub's file shows they are already (what a plugin
  /// does at each start, so a command that only reads works while the hub is down).
  public func declareSynced(_ tables: [String]) throws {
    try declareSynced(tables, files: [], references: [])
  }

  public func declareSynced(
    _ tables: [String], files: [String], references: [SyncEngine.Reference]
  ) throws {
    let wire = references.map {
      SyncReference(
        table: $0.table, column: $0.column, parent: $0.parent, parentTableColumn: $0.tableColumn)
    }
    let (synced, declaredFiles, declaredReferences) = try read { db in
      func names(_ table: String, _ expression: String) throws -> Set<String> {
        try db.tableExists(table)
          ? Set(try String.fetchAll(db, sql: "SELECT lower(\(expression)) FROM \(table)")) : []
      }
      return (
        try names(HubTables.syncedTables, "name"),
        try names("hearth_sync_files", "tbl || '.' || col"),
        try names(
          "hearth_sync_references",
          "tbl || '.' || col || '>' || coalesce(parent, '') || '>' || coalesce(parentTableColumn, '')"
        )
      )
    }
    let references = wire.map {
      "\($0.table).\($0.column)>\($0.parent ?? "")>\($0.parentTableColumn ?? "")".lowercased()
    }
    guard
      !tables.allSatisfy({ synced.contains($0.lowercased()) })
        || !files.allSatisfy({ declaredFiles.contains($0.lowercased()) })
        || !references.allSatisfy(declaredReferences.contains)
    else { return }
    try sync(tables: tables, files: files, references: wire)
  }

  public func sync(tables: [String], action: SyncEngine.Action) throws -> SyncEngine.State {
    let state = try sync(tables: tables, action: SyncRequest.Action(rawValue: action.rawValue)!)
    var engineState = SyncEngine.State(
      tables: state.tables, server: state.server, zone: state.zone, pending: state.pending,
      held: state.held, pulled: state.pulled, lastError: state.lastError,
      accountChange: state.accountChange.map { change in
        change.hasPrefix(SyncingReply.zoneDeletedPrefix)
          ? .zoneDeleted(String(change.dropFirst(SyncingReply.zoneDeletedPrefix.count)))
          : .switchAccounts(change)
      })
    engineState.pendingByTable = state.pendingByTable ?? [:]
    engineState.isPaused = state.paused == true
    engineState.clockSkew = state.clockSkew.map { .milliseconds($0) }
    return engineState
  }
}

extension HubDatabase {
  public func share(_ request: SyncEngine.ShareRequest) throws -> SyncEngine.ShareReply {
    try prepare()
    let id = RequestID.make()
    var message = SyncRequest(id: id, plugin: registration.name)
    switch request {
    case .share(let table, let key, let title, let permission):
      (message.action, message.table, message.key, message.title) = (.share, table, key, title)
      message.permission = permission == .readWrite ? .readWrite : .read
    case .accept(let invitation): (message.action, message.invitation) = (.acceptShare, invitation)
    case .unshare(let table, let key):
      (message.action, message.table, message.key) = (.unshare, table, key)
    case .revoke(let table, let key, let role):
      (message.action, message.table, message.key, message.role) = (.revokeShare, table, key, role)
    }
    let reply: SyncingReply
    do {
      reply = try connection.request(message, id: id, as: SyncingReply.self, timeout: .seconds(35))
    } catch let error as ErrorReply {
      throw DatabaseError(error)
    }
    let share = try reply.shares?.first { $0.zone == reply.share }.map { share in
      try JSONDecoder().decode(Share.self, from: JSONEncoder().encode(share))
    }
    return SyncEngine.ShareReply(share: share, invitation: reply.invitation)
  }
}
