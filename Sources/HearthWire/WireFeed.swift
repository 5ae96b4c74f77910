import Foundation
import HearthSQLite

// The feed, cursors and sync: the requests that read and follow what was committed, and
// the events the bus carries.

/// `changes`: the committed changes after `since`, in order, from the durable feed.
public struct ChangesRequest: Codable, Hashable, Sendable {
  public var v = WireProtocol.version
  public var type = "changes"
  public var id: String
  public var since: Int64
  /// How many commits at most, 1 to 10,000; 1,000 when absent.
  public var limit: Int?

  /// What `limit` may be, and what it is when absent.
  public static let limits = 1...10_000
  public static let defaultLimit = 1_000

  public init(id: String, since: Int64, limit: Int? = nil) {
    self.id = id
    self.since = since
    self.limit = limit
  }
}

/// A plugin's cursor: the last sequence number it has processed. The hub keeps the feed
/// until every registered cursor has passed it (or it is older than the retention).
public struct CursorRequest: Codable, Hashable, Sendable {
  public var v = WireProtocol.version
  public var type = "cursor"
  public var id: String
  public var plugin: String
  public var seq: Int64

  public init(id: String, plugin: String, seq: Int64) {
    self.id = id
    self.plugin = plugin
    self.seq = seq
  }
}

/// `sync`: a plugin asks the hub to sync tables it owns (with the server, and every hub of
/// the account); any client asks for the sync state, a round of sync now (`action`
/// `now`: answered once a round begun after the request has pushed and pulled), a
/// `resync` (everything pushed and pulled again, nothing deleted), `acceptAccount` (after
/// the account changed: this hub's rows kept for the new one) or, as a plugin,
/// `deleteLocalData` (the synced tables emptied here, not on the server, and pulled again;
/// after an account change, from the new account). Sharing (see `WireSharing.swift`):
/// `share` a root record (`table`, `key`) with `permission` and an optional `title`,
/// answered with a new `invitation`; `acceptShare` an `invitation`; `unshare` a root
/// record; `revokeShare` from member `role`. Those are answered, as `now` is, once the
/// server has done it and a round begun after it has pushed and pulled. `verify` compares
/// this hub's rows with the server's records, zone by zone, after a round
/// (`SyncingReply.verification`); `pause` stops pushing and pulling (durably: across
/// restarts) until `resume`, while local writes go on.
public struct SyncRequest: Codable, Hashable, Sendable {
  public enum Action: String, Codable, Hashable, Sendable {
    case status, now, resync, deleteLocalData, acceptAccount
    case share, acceptShare, unshare, revokeShare
    case verify, pause, resume
  }

  public var v = WireProtocol.version
  public var type = "sync"
  public var id: String
  public var plugin: String?
  public var tables: [String]
  public var action: Action
  /// The root record of `share`, `unshare` and `revokeShare`: its table and primary key.
  public var table: String?
  public var key: String?
  /// `share`'s permission for every member; `read` when absent.
  public var permission: SharePermission?
  public var title: String?
  /// `acceptShare`'s invitation.
  public var invitation: String?
  /// `revokeShare`'s member.
  public var role: String?
  /// With `tables`: their file columns (`table.column`, see `SyncFiles`), whose files go
  /// with the rows.
  public var files: [String]
  /// With `tables`: columns of theirs that name another synced row without a foreign key
  /// (an attachment's owner): such a row goes to the zone of the row it names.
  public var references: [SyncReference]

  public init(
    id: String, plugin: String? = nil, tables: [String] = [], action: Action = .status,
    table: String? = nil, key: String? = nil, permission: SharePermission? = nil,
    title: String? = nil, invitation: String? = nil, role: String? = nil, files: [String] = [],
    references: [SyncReference] = []
  ) {
    self.files = files
    self.references = references
    self.id = id
    self.plugin = plugin
    self.tables = tables
    self.action = action
    self.table = table
    self.key = key
    self.permission = permission
    self.title = title
    self.invitation = invitation
    self.role = role
  }

  private enum CodingKeys: String, CodingKey {
    case v, type, id, plugin, tables, action, table, key, permission, title, invitation, role
    case files, references
  }

  /// `tables` may be left out (none).
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    v = try container.decode(Int.self, forKey: .v)
    type = try container.decode(String.self, forKey: .type)
    id = try container.decode(String.self, forKey: .id)
    plugin = try container.decodeIfPresent(String.self, forKey: .plugin)
    tables = try container.decodeIfPresent([String].self, forKey: .tables) ?? []
    action = try container.decodeIfPresent(Action.self, forKey: .action) ?? .status
    table = try container.decodeIfPresent(String.self, forKey: .table)
    key = try container.decodeIfPresent(String.self, forKey: .key)
    permission = try container.decodeIfPresent(SharePermission.self, forKey: .permission)
    title = try container.decodeIfPresent(String.self, forKey: .title)
    invitation = try container.decodeIfPresent(String.self, forKey: .invitation)
    role = try container.decodeIfPresent(String.self, forKey: .role)
    files = try container.decodeIfPresent([String].self, forKey: .files) ?? []
    references = try container.decodeIfPresent([SyncReference].self, forKey: .references) ?? []
  }
}

/// A column of a synced table that holds the primary key of another synced row without a
/// foreign key to say so: of table `parent`, or of the table named by the same row's column
/// `parentTableColumn` (an attachment's `ownerTable`). The row it names is its parent for
/// sharing: the row goes to that row's zone, as a child by foreign key does.
public struct SyncReference: Codable, Hashable, Sendable {
  public var table: String
  public var column: String
  public var parent: String?
  public var parentTableColumn: String?

  public init(
    table: String, column: String, parent: String? = nil, parentTableColumn: String? = nil
  ) {
    self.table = table
    self.column = column
    self.parent = parent
    self.parentTableColumn = parentTableColumn
  }
}

/// The reply to `sync`: what the hub syncs, and how far it has come.
public struct SyncingReply: Codable, Hashable, Sendable {
  public var v = WireProtocol.version
  public var type = "syncing"
  public var id: String
  /// Every synced table, sorted.
  public var tables: [String]
  /// The server, without its password; nil when none is set up (changes are kept for it).
  public var server: String?
  public var zone: String
  /// This hub's id in the times it stamps.
  public var hub: String
  /// Rows with changes the server has not taken yet.
  public var pending: Int
  /// Pulled records waiting to be applied (a parent not here yet, a table not synced).
  public var held: Int
  /// The server's sequence number pulled up to, and the last one pushed.
  public var pulled: Int64
  public var pushed: Int64?
  public var lastError: String?
  /// `old → new` when the account changed since this hub last synced, or
  /// `zone deleted on the server: <account>` (`zoneDeletedPrefix`): nothing is pushed or
  /// pulled until `acceptAccount` or `deleteLocalData`.
  public var accountChange: String?
  public static let zoneDeletedPrefix = "zone deleted on the server: "
  /// The shares this hub syncs: those its person owns and those they were invited to.
  public var shares: [SyncShare]?
  /// `share`'s new invitation, for the person to accept (`acceptShare`).
  public var invitation: String?
  /// The zone of the share a sharing action concerned (in `shares`, unless it ended).
  public var share: String?
  /// Whether the person paused sync (`pause`; nothing is pushed or pulled until `resume`).
  public var paused: Bool?
  /// This hub's wall clock minus the sync server's, in ms, as last measured (at each
  /// connection and once a minute); nil before the first.
  public var clockSkew: Int64?
  /// `pending` by table, for the tables that have any.
  public var pendingByTable: [String: Int]?
  /// `verify`'s comparison.
  public var verification: SyncVerification?

  public init(
    id: String, tables: [String], server: String?, zone: String, hub: String, pending: Int,
    held: Int, pulled: Int64, pushed: Int64?, lastError: String?, accountChange: String? = nil,
    shares: [SyncShare] = []
  ) {
    self.shares = shares.isEmpty ? nil : shares
    self.id = id
    self.tables = tables
    self.server = server
    self.zone = zone
    self.hub = hub
    self.pending = pending
    self.held = held
    self.pulled = pulled
    self.pushed = pushed
    self.lastError = lastError
    self.accountChange = accountChange
  }
}

/// The reply to `cursor`: the cursor as stored and the feed's horizon.
public struct CursorSavedReply: Codable, Hashable, Sendable {
  public var v = WireProtocol.version
  public var type = "cursorSaved"
  public var id: String
  public var plugin: String
  public var seq: Int64
  /// The oldest sequence number the feed still holds.
  public var horizon: Int64

  public init(id: String, plugin: String, seq: Int64, horizon: Int64) {
    self.id = id
    self.plugin = plugin
    self.seq = seq
    self.horizon = horizon
  }
}

/// One commit of the feed: published on the bus (topic `commit`) and returned by `changes`.
public struct CommitEvent: Codable, Hashable, Sendable {
  public var v = WireProtocol.version
  public var type = "commit"
  public var hub: String
  public var seq: Int64
  public var plugin: String
  public var request: String
  /// Milliseconds since 1970.
  public var at: Int64
  /// Each changed table's rows, in the form the SQLite layer reports them (`TableChanges`
  /// is the one change record: the hub records it, the bus carries it, a plugin's observers
  /// receive it).
  public var tables: [String: TableChanges]
  public var schemaChanged: Bool?

  public init(
    hub: String, seq: Int64, plugin: String, request: String, at: Int64,
    changes: DatabaseChanges
  ) {
    self.hub = hub
    self.seq = seq
    self.plugin = plugin
    self.request = request
    self.at = at
    self.tables = changes.tables
    self.schemaChanged = changes.isSchemaChanged ? true : nil
  }

  /// The commit as the observers of a local database see it.
  public var changes: DatabaseChanges {
    DatabaseChanges(tables: tables, isSchemaChanged: schemaChanged == true)
  }
}

public struct ChangesReply: Codable, Hashable, Sendable {
  public var v = WireProtocol.version
  public var type = "changes"
  public var id: String
  public var commits: [CommitEvent]
  /// The last committed sequence number now.
  public var seq: Int64
  /// The oldest sequence number the feed still holds; a subscriber whose cursor is older
  /// must re-read what it observes.
  public var horizon: Int64

  public init(id: String, commits: [CommitEvent], seq: Int64, horizon: Int64) {
    self.id = id
    self.commits = commits
    self.seq = seq
    self.horizon = horizon
  }
}

/// On the bus every second (topic `heartbeat`): a quiet hub from a dead or restarted one.
public struct HeartbeatEvent: Codable, Hashable, Sendable {
  public var v = WireProtocol.version
  public var type = "heartbeat"
  public var hub: String
  public var seq: Int64
  public var at: Int64

  public init(hub: String, seq: Int64, at: Int64) {
    self.hub = hub
    self.seq = seq
    self.at = at
  }
}

extension CommitEvent: WireMessage {
  /// What every commit writes (on the bus and in the feed), without `JSONEncoder`.
  public func encodedJSON() throws -> Data {
    var json = JSONWriter(capacity: 192 + tables.count * 96)
    try json.object { json in
      json.key("at")
      json.integer(at)
      json.key("hub")
      json.string(hub)
      json.key("plugin")
      json.string(plugin)
      json.key("request")
      json.string(request)
      if let schemaChanged {
        json.key("schemaChanged")
        json.bool(schemaChanged)
      }
      json.key("seq")
      json.integer(seq)
      json.key("tables")
      try json.sortedObject(tables) { json, changes in try changes.write(to: &json) }
      json.envelopeEnd(type: type, v: v)
    }
    return json.data
  }
}

extension HeartbeatEvent: WireMessage {}
extension ChangesRequest: WireMessage {}
extension CursorRequest: WireMessage {}
extension SyncRequest: WireMessage {}
extension SyncingReply: WireMessage {}
extension CursorSavedReply: WireMessage {}
extension ChangesReply: WireMessage {}
