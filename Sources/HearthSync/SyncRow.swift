import Foundation
import HearthSQLite
import HearthWire

/// A synced row's entry in `hearth_sync_rows` (see `SyncStore`), read, merged with a pulled
/// record, and written back.
struct SyncRow {
  var table: String
  var key: String
  var times: [String: String] = [:]
  var pending: [String: String] = [:]
  var created: String?
  var deleted: String?
  /// Columns this hub's schema does not have: their values and times.
  var extraFields: [String: WireValue] = [:]
  var extraTimes: [String: String] = [:]
  /// The zone it was last pushed to or pulled from (nil: the private zone).
  var zone: String?

  static let createdKey = "$created"
  static let deletedKey = "$deleted"

  /// The entry of row `key` of `table`, or an empty one.
  static func fetch(_ table: String, _ key: String, _ db: Database) throws -> SyncRow {
    var row = SyncRow(table: table, key: key)
    guard
      let stored = try Row.fetchOne(
        db,
        sql: "SELECT times, pending, created, deleted, extra, zone FROM \(SyncStore.rows) "
          + "WHERE tbl = ? AND pk = ?", arguments: [table, key])
    else { return row }
    row.times = try JSONText.strings(try stored["times"])
    row.pending = try JSONText.strings(try stored["pending"])
    row.created = try stored["created"]
    row.deleted = try stored["deleted"]
    row.zone = try stored["zone"]
    if let extra = try stored["extra"] as String? {
      let decoded = try JSONDecoder().decode(Extra.self, from: Data(extra.utf8))
      row.extraFields = decoded.fields
      row.extraTimes = decoded.times
    }
    return row
  }

  struct Extra: Codable {
    var fields: [String: WireValue]
    var times: [String: String]
  }

  /// Whether the row exists, as the merged times say.
  var isAlive: Bool { SyncRecord.isAlive(created: created, deleted: deleted) }

  /// Takes in a pulled `record` (as some hub pushed it): each column's value whose time is
  /// later than the one this hub has for it, whether this hub's own (pushed or not) or
  /// pulled before; columns not in `columns` are kept aside. Returns the columns whose
  /// values to write. Every hub merging every record so arrives at the same rows, whatever
  /// the order they come in.
  mutating func merge(_ record: SyncRecord, columns: Set<String>) -> [(String, DatabaseValue)] {
    var write: [(String, DatabaseValue)] = []
    for (column, time) in record.times.sorted(by: { $0.key < $1.key }) {
      let value = record.fields[column] ?? WireValue(.null)
      guard columns.contains(column) else {
        if SyncRecord.isLater(time, than: extraTimes[column]) {
          extraFields[column] = value
          extraTimes[column] = time
        }
        continue
      }
      guard SyncRecord.isLater(time, than: times[column]) else { continue }
      pending[column] = nil
      times[column] = time
      write.append((column, value.value))
    }
    created = SyncRecord.later(created, record.created)
    deleted = SyncRecord.later(deleted, record.deleted)
    // An insert or delete of this hub's that a later one overtook is no longer owed.
    for (key, time) in [(Self.createdKey, record.created), (Self.deletedKey, record.deleted)] {
      if let time, let local = pending[key], !SyncRecord.isLater(local, than: time) {
        pending[key] = nil
      }
    }
    return write
  }

  func save(_ db: Database) throws {
    // Foundation's coder only for the rare row with columns kept aside.
    let extra =
      extraTimes.isEmpty
      ? nil : try JSONText.encode(Extra(fields: extraFields, times: extraTimes))
    try db.execute(
      sql: """
        INSERT INTO \(SyncStore.rows) (tbl, pk, times, pending, created, deleted, extra, zone)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (tbl, pk) DO UPDATE SET times = excluded.times, pending = excluded.pending,
          created = excluded.created, deleted = excluded.deleted, extra = excluded.extra,
          zone = excluded.zone
        """,
      arguments: [
        table, key, JSONText.object(times), JSONText.object(pending), created, deleted, extra,
        zone,
      ])
  }
}
