import Foundation

/// A share of one root record (and the rows under it) with other people: the reference's
/// `CKShare`, as the hub keeps it. Each person is a login of the sync server; the share's
/// members read it, and write it when its permission is `.readWrite`.
public struct Share: Codable, Hashable, Sendable {
  /// What the members may do (the reference's `CKShare.ParticipantPermission`).
  public enum Permission: String, Codable, Hashable, Sendable {
    case readOnly = "read"
    case readWrite
  }

  /// One person the share is shared with.
  public struct Participant: Codable, Hashable, Sendable {
    /// Their login on the sync server.
    public let role: String
    public let permission: Permission

    public init(role: String, permission: Permission) {
      self.role = role
      self.permission = permission
    }
  }

  /// The share's zone on the server.
  public let zone: String
  /// Who shared it (their login).
  public let owner: String
  /// The shared record's table and primary key.
  public let rootType: String
  public let rootName: String
  public let title: String?
  /// The members' permission (for a member, their own).
  public let publicPermission: Permission
  /// Whether the person of this hub shared it.
  public let isOwner: Bool
  public let participants: [Participant]

  enum CodingKeys: String, CodingKey {
    case zone, owner, rootType, rootName, title, isOwner
    case publicPermission = "permission"
    case participants = "members"
  }

  /// Whether this hub may change the shared rows.
  public var isWritable: Bool { isOwner || publicPermission == .readWrite }

  /// The keys of `ShareConfiguration`'s subscript (the reference's
  /// `CKShare.SystemFieldKey`).
  public enum SystemFieldKey {
    public static let title = "title"
  }
}

/// What `share(record:configure:)`'s closure sets: the share's title and permission.
public final class ShareConfiguration: Sendable {
  private let state: Locked<(title: String?, permission: Share.Permission)>

  init(title: String?, permission: Share.Permission) {
    state = Locked((title, permission))
  }

  public var title: String? {
    get { state.withLock { $0.title } }
    set { state.withLock { $0.title = newValue } }
  }

  /// What every member may do; `.readOnly` unless set (or as the share had it).
  public var publicPermission: Share.Permission {
    get { state.withLock { $0.permission } }
    set { state.withLock { $0.permission = newValue } }
  }

  /// `share[Share.SystemFieldKey.title] = "Join 'Groceries'!"`, the reference's way.
  public subscript(key: String) -> String? {
    get { key == Share.SystemFieldKey.title ? title : nil }
    set { if key == Share.SystemFieldKey.title { title = newValue } }
  }
}

/// A record shared: its share, and the invitation that lets one more person in (the
/// reference's share URL) — give it to them; `acceptShare` on their device takes it.
public struct SharedRecord: Hashable, Identifiable, Sendable {
  public let share: Share
  /// Accepted once, within seven days.
  public let invitation: String?

  public var id: String { share.zone }
}

/// An invitation to a share, as the other person's device receives it (the reference's
/// `CKShare.Metadata`).
public struct ShareMetadata: Hashable, Sendable {
  public let invitation: String
  public init(invitation: String) { self.invitation = invitation }
}

extension SyncEngine {
  /// What the hub answered to a `ShareRequest`.
  public struct ShareReply: Hashable, Sendable {
    public var share: Share?
    public var invitation: String?
    public init(share: Share?, invitation: String?) {
      self.share = share
      self.invitation = invitation
    }
  }

  /// What an engine asks its hub to do with a share.
  public enum ShareRequest: Hashable, Sendable {
    case share(table: String, key: String, title: String?, permission: Share.Permission)
    case accept(invitation: String)
    case unshare(table: String, key: String)
    case revoke(table: String, key: String, role: String)
  }

  /// Shares `record` — a root record (of a synced table without foreign keys) — and the rows
  /// under it with another person: returns the share and a new invitation for them. Sharing
  /// a shared record again makes another invitation, and sets the permission `configure`
  /// gives (`.readOnly` unless it says otherwise) for every member. Throws a
  /// `DatabaseError` (hub code `shareRefused`) for a record that is not a root, not synced,
  /// or someone else's share.
  public func share<T: PrimaryKeyedTable>(
    record: T, configure: @Sendable (ShareConfiguration) -> Void = { _ in }
  ) async throws -> SharedRecord {
    let key = T.syncKeyText(T.columns.primaryKey._key(for: record).queryOutput)
    let existing = try await currentShare(T.tableName, key)
    let configuration = ShareConfiguration(
      title: existing?.title, permission: existing?.publicPermission ?? .readOnly)
    configure(configuration)
    let outcome = try await ask(
      .share(
        table: T.tableName, key: key, title: configuration.title,
        permission: configuration.publicPermission))
    guard let share = outcome.share else { throw SyncEngineError.notRunning }
    return SharedRecord(share: share, invitation: outcome.invitation)
  }

  /// Accepts an invitation on this device: the share's rows come here (they are here when
  /// this returns), and keep coming, on every device of this person.
  public func acceptShare(metadata: ShareMetadata) async throws {
    _ = try await ask(.accept(invitation: metadata.invitation))
  }

  /// Stops sharing `record`: every member loses it; the owner keeps it, private again.
  public func unshare<T: PrimaryKeyedTable>(record: T) async throws {
    let key = T.syncKeyText(T.columns.primaryKey._key(for: record).queryOutput)
    _ = try await ask(.unshare(table: T.tableName, key: key))
  }

  /// Takes the share of `record` from one member (their devices drop it).
  public func revoke<T: PrimaryKeyedTable>(record: T, from role: String) async throws {
    let key = T.syncKeyText(T.columns.primaryKey._key(for: record).queryOutput)
    _ = try await ask(.revoke(table: T.tableName, key: key, role: role))
  }

  /// The text of the error a write into a share this device may only read fails with: a
  /// `DatabaseError` whose `message` is this.
  public static let writePermissionError = "hearth.sync.write-permission-error"

  private func currentShare(_ table: String, _ key: String) async throws -> Share? {
    try await database.read { db in
      try Share?.fetchShare(table: table, key: key, db)
    }
  }
}

extension Optional where Wrapped == Share {
  /// The share of root record `key` of `table`, from the hub's metadata.
  static func fetchShare(table: String, key: String, _ db: Database) throws -> Share? {
    guard try db.tableExists("hearth_sync_metadata") else { return nil }
    let text = try String.fetchOne(
      db,
      sql: "SELECT share FROM hearth_sync_metadata WHERE recordType = ? COLLATE NOCASE "
        + "AND recordPrimaryKey = ? AND share IS NOT NULL", arguments: [table, key])
    return try text.map { try JSONDecoder().decode(Share.self, from: Data($0.utf8)) }
  }
}
