// Sharing: a root record and its single-parent descendants, shared by the person who owns
// them with other people (PostgreSQL roles) through a zone of their own on the server.

/// What a share's members may do: read it, or read and write it.
public enum SharePermission: String, Codable, Hashable, Sendable, CaseIterable {
  case read, readWrite
}

/// One share as the hub knows it (from the server's `hearth.shares()`).
public struct SyncShare: Codable, Hashable, Sendable {
  /// The share's zone on the server (`owner/share-<uuid>`).
  public var zone: String
  /// The person (role) who shared it.
  public var owner: String
  /// The shared root record: its table and primary key.
  public var rootType: String
  public var rootName: String
  public var title: String?
  /// The members' permission (the person's own, when a member).
  public var permission: SharePermission
  /// Whether this hub's person owns it.
  public var isOwner: Bool
  /// Who it is shared with.
  public var members: [Member]

  public struct Member: Codable, Hashable, Sendable {
    public var role: String
    public var permission: SharePermission

    public init(role: String, permission: SharePermission) {
      self.role = role
      self.permission = permission
    }
  }

  public init(
    zone: String, owner: String, rootType: String, rootName: String, title: String? = nil,
    permission: SharePermission, isOwner: Bool, members: [Member] = []
  ) {
    self.zone = zone
    self.owner = owner
    self.rootType = rootType
    self.rootName = rootName
    self.title = title
    self.permission = permission
    self.isOwner = isOwner
    self.members = members
  }

  /// Whether row `key` of `table` is the shared root record (table names compare as
  /// SQLite's do, without case).
  public func isRoot(_ table: String, _ key: String) -> Bool {
    rootType.lowercased() == table.lowercased() && rootName == key
  }

  /// Whether this hub may change the shared records (the owner always may).
  public var isWritable: Bool { isOwner || permission == .readWrite }
}
