/// What `sync` with action `verify` found: for each zone this hub syncs, a digest of its
/// live rows here and of the server's live records, and the rows that differ.
public struct SyncVerification: Codable, Hashable, Sendable {
  public struct Zone: Codable, Hashable, Sendable {
    /// The zone's name on the server (`alice/default`, `alice/share-…`).
    public var zone: String
    /// Live rows here, and live records on the server.
    public var rows: Int
    public var serverRows: Int
    /// SHA-256 (hex) of the live rows, here and on the server, each row as its table, key
    /// and values in one canonical form: equal digests, equal data.
    public var digest: String
    public var serverDigest: String
    /// Rows with changes not pushed yet (written during the check).
    public var pending: Int
    /// The rows that differ (the first 50), and how many do.
    public var differences: [Difference]
    public var differing: Int

    public init(
      zone: String, rows: Int, serverRows: Int, digest: String, serverDigest: String,
      pending: Int, differences: [Difference], differing: Int
    ) {
      self.zone = zone
      self.rows = rows
      self.serverRows = serverRows
      self.digest = digest
      self.serverDigest = serverDigest
      self.pending = pending
      self.differences = differences
      self.differing = differing
    }

    public var isEqual: Bool { differing == 0 && digest == serverDigest }
  }

  /// One row that differs: its table and key, and how (`only here`, `only on the server`,
  /// `held here: …`, or the columns whose values differ).
  public struct Difference: Codable, Hashable, Sendable {
    public var table: String
    public var key: String
    public var what: String

    public init(table: String, key: String, what: String) {
      self.table = table
      self.key = key
      self.what = what
    }
  }

  public var zones: [Zone]

  public init(zones: [Zone]) { self.zones = zones }

  public var isEqual: Bool { zones.allSatisfy(\.isEqual) }
}
