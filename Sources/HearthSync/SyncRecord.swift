import Foundation
import HearthSQLite
import HearthWire

/// One row as the server keeps it: a record of type `type` (the table) named `name` (the
/// primary key), the value and time of each column it has heard of, and the times of the
/// row's latest insert and delete — it exists while `created` is later than `deleted`.
/// Pushed with only what changed, and pulled as it was pushed: each hub merges them.
public struct SyncRecord: Codable, Hashable, Sendable {
  public var type: String
  public var name: String
  public var fields: [String: WireValue]
  /// Per column, the time (`HybridTimestamp` text) of its value.
  public var times: [String: String]
  public var created: String?
  public var deleted: String?
  /// The number of the chunk it was pulled from (pulled records only).
  public var seq: Int64?
  /// Set on a pulled stub: the record moved to this zone (it was shared) and is pulled from
  /// there.
  public var movedTo: String?

  public init(
    type: String, name: String, fields: [String: WireValue] = [:], times: [String: String] = [:],
    created: String? = nil, deleted: String? = nil, seq: Int64? = nil
  ) {
    self.type = type
    self.name = name
    self.fields = fields
    self.times = times
    self.created = created
    self.deleted = deleted
    self.seq = seq
  }

  /// Whether the row exists: inserted later than it was deleted.
  public var isAlive: Bool { Self.isAlive(created: created, deleted: deleted) }

  static func isAlive(created: String?, deleted: String?) -> Bool {
    guard let created else { return false }
    guard let deleted else { return true }
    return Self.isLater(created, than: deleted)
  }

  /// Times compare as their text does, byte by byte (the server compares them `COLLATE "C"`).
  public static func isLater(_ time: String, than other: String?) -> Bool {
    guard let other else { return true }
    return other.utf8.lexicographicallyPrecedes(time.utf8)
  }

  /// The later of two times.
  static func later(_ a: String?, _ b: String?) -> String? {
    guard let a else { return b }
    return isLater(a, than: b) ? a : b
  }

  /// The greatest time the record carries.
  var latestTime: String? {
    (Array(times.values) + [created, deleted].compactMap { $0 }).reduce(nil) { Self.later($0, $1) }
  }
}

/// Where pulling has come to on the server: past every record of sequence number below
/// `seq`, and those of `seq` up to (`type`, `name`) (a push's records share its number).
public struct SyncCursor: Codable, Hashable, Sendable {
  public var seq: Int64
  public var type: String
  public var name: String

  public init(seq: Int64 = 0, type: String = "", name: String = "") {
    self.seq = seq
    self.type = type
    self.name = name
  }

  public static let start = SyncCursor()

  /// The chunk to pull after: `seq`, or the one before it when the cursor stops within it
  /// (a cursor kept from before the server kept chunks, which stopped within a push).
  var chunk: Int64 { type.isEmpty && name.isEmpty ? seq : max(seq - 1, 0) }
}

/// A page pulled from the server: its records, the cursor past it (nil for an empty page),
/// and whether it reached the end of the zone.
public struct SyncPage: Codable, Hashable, Sendable {
  public var records: [SyncRecord]
  public var last: SyncCursor?
  public var complete: Bool

  public init(records: [SyncRecord], last: SyncCursor?, complete: Bool) {
    self.records = records
    self.last = last
    self.complete = complete
  }
}

extension SyncRecord {
  /// This record and `other`, a later-pulled record of the same row, as one: per column the
  /// value of the later time, the later insert and delete — what applying both leaves.
  public func merged(with other: SyncRecord) -> SyncRecord {
    var merged = self
    for (column, time) in other.times where Self.isLater(time, than: times[column]) {
      merged.times[column] = time
      merged.fields[column] = other.fields[column] ?? WireValue(.null)
    }
    merged.created = Self.later(created, other.created)
    merged.deleted = Self.later(deleted, other.deleted)
    merged.seq = other.seq ?? seq
    return merged
  }

  /// The record with each time past `bound` (wall ms) read as the bound, its counter and
  /// hub kept: how every hub reads a chunk's times (the server's bound when it came).
  public func clamped(to bound: Int64) -> SyncRecord {
    // Times sort as their text does: most are within the bound, told by their first 15
    // digits without being parsed.
    let limit = HybridTimestamp(milliseconds: bound, hub: "").description.utf8.prefix(15)
    func isPast(_ text: String?) -> Bool {
      guard let text else { return false }
      return limit.lexicographicallyPrecedes(text.utf8.prefix(15))
    }
    guard isPast(created) || isPast(deleted) || times.values.contains(where: isPast) else {
      return self
    }
    func clamp(_ text: String?) -> String? {
      guard let text, var time = HybridTimestamp(text), time.milliseconds > bound else {
        return text
      }
      time.milliseconds = bound
      return time.description
    }
    var record = self
    record.times = times.mapValues { clamp($0) ?? $0 }
    record.created = clamp(created)
    record.deleted = clamp(deleted)
    return record
  }
}
