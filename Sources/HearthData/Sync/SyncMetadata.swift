import Foundation

/// One synced row's sync state, as the hub keeps it: join it to a synced table the
/// reference's way,
///
/// ```swift
/// RemindersList
///   .leftJoin(SyncMetadata.all) { $0.syncMetadataID.eq($1.id) }
///   .select { ($0.title, $1.hasPendingChanges) }
/// ```
///
/// It reads the hub's view `hearth_sync_metadata` (over `hearth_sync_rows`), in the hub's
/// database file itself: nothing to attach. A row has metadata once it was synced or
/// changed while its table was synced; a deleted row keeps its metadata (`isDeleted`).
@Table("hearth_sync_metadata")
public struct SyncMetadata: Hashable, Identifiable, Sendable {
  /// A synced row's key and table.
  @Selection
  public struct ID: Hashable, Sendable {
    /// The row's primary key, as text.
    public let recordPrimaryKey: String
    /// Its table.
    public let recordType: String

    public init(recordPrimaryKey: String, recordType: String) {
      self.recordPrimaryKey = recordPrimaryKey
      self.recordType = recordType
    }
  }

  /// The row's key and table, to join on (`$0.syncMetadataID.eq($1.id)`).
  public let id: ID
  /// `primaryKey:tableName`: the metadata's own key (`SyncMetadata.find("l1:lists")`).
  @Column(primaryKey: true)
  public let recordName: String
  /// The server's zone the row is synced in: the account's own, or a share's.
  public let zoneName: String
  /// Whether the row has changes the server has not taken yet.
  public let hasPendingChanges: Bool
  /// Whether the row was deleted (its latest delete is later than its latest insert).
  public let isDeleted: Bool
  /// When the row's latest change was made, in milliseconds since 1970 (its hybrid
  /// clock's wall time).
  public let userModificationTime: Int64
  /// Whether the row is a shared root record (on its owner's devices and its members').
  public let isShared: Bool
  /// The share of a shared root record (`isShared`), nil for every other row.
  @Column(as: Share.JSONRepresentation?.self)
  public let share: Share?

  public var recordPrimaryKey: String { id.recordPrimaryKey }
  public var recordType: String { id.recordType }
}

extension PrimaryKeyedTable {
  /// The id of this row's `SyncMetadata`.
  public var syncMetadataID: SyncMetadata.ID {
    SyncMetadata.ID(
      recordPrimaryKey: Self.syncKeyText(Self.columns.primaryKey._key(for: self).queryOutput),
      recordType: Self.tableName)
  }

  static func syncKeyText(_ key: Any) -> String {
    if let uuid = key as? UUID { return uuid.uuidString.lowercased() }
    return "\(key)"
  }
}

extension PrimaryKeyedTableDefinition {
  /// The id of the row's `SyncMetadata`, to join on: `$0.syncMetadataID.eq($1.id)`.
  public var syncMetadataID: some QueryExpression<SyncMetadata.ID> {
    SQLQueryExpression<SyncMetadata.ID>(
      "(CAST(\(primaryKey) AS TEXT), \(bind: QueryValue.tableName))")
  }
}
