import Foundation
import HearthSQLite
import HearthWire

/// Applies pulled records to the hub's tables, in the writer's transaction: per column the
/// value of the later time, against the time this hub has for the column (`SyncRow.merge`);
/// the row inserted, updated or deleted as the merged times of its inserts and deletes say.
/// A record that cannot be applied yet (its table is not synced here, its parent has not
/// come) is held, merged with any held before it for the row, and tried again after each
/// page.
///
/// The rule for a delete and a concurrent edit: the delete wins, whatever the order they
/// arrive in — a row exists while its latest insert is later than its latest delete, and an
/// edit is no insert. Inserting the same key again after a delete brings the row back.
public struct SyncApplier {
  public let capture: SyncCapture
  /// The synced tables, by lowercased name, parents first in `order`.
  let tables: [String: SyncedTable]
  let order: [String: Int]
  /// Each table's statements, by lowercased name: written once per page, not per record.
  let statements: [String: SyncedTable.Statements]
  /// The zone the records come from (nil: the private zone), and the shares this hub syncs.
  private(set) var zone: String?
  let shares: [SyncShare]

  public init(
    capture: SyncCapture, tables: [SyncedTable], zone: String? = nil, shares: [SyncShare] = []
  ) {
    self.capture = capture
    self.tables = Dictionary(tables.map { ($0.name.lowercased(), $0) }) { first, _ in first }
    statements = self.tables.mapValues(SyncedTable.Statements.init)
    order = Dictionary(
      tables.enumerated().map { ($0.element.name.lowercased(), $0.offset) }
    ) { first, _ in first }
    self.zone = zone
    self.shares = shares
  }

  /// The same tables, for records of `zone`.
  func from(_ zone: String?) -> SyncApplier {
    var applier = self
    applier.zone = zone
    return applier
  }

  /// What applying a page came to.
  public struct Report: Hashable, Sendable {
    public var applied = 0
    /// Records held by this page (some may have been applied since, once their parent came).
    public var held = 0
    /// Why records were held (the first few), for the log.
    public var reasons: [String] = []
    /// The records applied (a held one too, once it could be): the files they name are
    /// fetched if they are not here (`SyncFiles.queueMissing`).
    public var appliedRecords: [SyncRecord] = []
    /// Whether records may be held (some were when the page began, or it held some): when
    /// none are, a record applied has none to release.
    var mayHaveHeld = true
    public init() {}
  }

  /// Applies `records` (parents before children); a record applied releases the held
  /// children that waited for it.
  public func apply(_ records: [SyncRecord], _ db: Database) throws -> Report {
    var report = Report()
    report.mayHaveHeld = try SyncStore.heldCount(db) > 0
    let sorted = records.enumerated().sorted { left, right in
      let (a, b) = (rank(left.element), rank(right.element))
      return a != b ? a < b : left.offset < right.offset
    }
    // The clock moves past the page's latest time (as past each of its times, one by one).
    let latest = records.reduce(nil as String?) { SyncRecord.later($0, $1.latestTime) }
    if let latest, let time = HybridTimestamp(latest) { capture.clock.receive(time) }
    for (_, record) in sorted { try apply(record, report: &report, db) }
    return report
  }

  /// Tries the held records again: every one after the schema changed, else those that
  /// wait for no particular parent (after a round of pulls).
  public func retryHeld(report: inout Report, all: Bool = true, _ db: Database) throws {
    let held = try Row.fetchAll(
      db,
      sql: "SELECT record, zone FROM \(SyncStore.held)" + (all ? "" : " WHERE waitsFor IS NULL"))
    try applyHeld(held, report: &report, db)
  }

  /// Applies held records (`record`, `zone` rows), each as a record of its zone.
  private func applyHeld(_ held: [Row], report: inout Report, _ db: Database) throws {
    guard !held.isEmpty else { return }
    let decoder = JSONDecoder()
    var records = try held.map { row in
      (
        record: try decoder.decode(SyncRecord.self, from: Data((try row["record"] as String).utf8)),
        zone: try row["zone"] as String?
      )
    }
    records.sort { rank($0.record) < rank($1.record) }
    var again = Report()
    for (record, zone) in records { try from(zone).apply(record, report: &again, db) }
    report.applied += again.applied
    report.appliedRecords += again.appliedRecords
  }

  private func rank(_ record: SyncRecord) -> Int {
    // Live rows parents first; deletions after them, children first.
    let depth = order[record.type.lowercased()] ?? Int.max / 4
    return record.isAlive ? depth : Int.max / 2 - depth
  }

  private func apply(_ record: SyncRecord, report: inout Report, _ db: Database) throws {
    if let movedTo = record.movedTo {
      // A stub of the private zone: the record was shared, and comes from its share now.
      if zone == nil {
        try db.execute(
          sql: "UPDATE \(SyncStore.rows) SET zone = ? WHERE tbl = ? AND pk = ?",
          arguments: [movedTo, tables[record.type.lowercased()]?.name ?? record.type, record.name])
      }
      return
    }
    guard let table = tables[record.type.lowercased()] else {
      return try hold(record, "table \(record.type) is not synced on this hub", nil, &report, db)
    }
    if let zone, let refusal = try refusal(of: record, table, in: zone, db) {
      return try hold(record, refusal.reason, refusal.waitsFor, &report, db)
    }
    let sql = statements[record.type.lowercased()]!
    var row = try SyncRow.fetch(table.name, record.name, db)
    let merged = row.merge(record, columns: sql.columnSet)
    let exists = try Int.fetchOne(db, sql: sql.exists, arguments: [record.name]) != nil
    do {
      try capture.muting(table.name, record.name) {
        if row.isAlive, !exists {
          let values = table.columns.compactMap { column in
            record.fields[column].map { (column, $0.value) }
          }
          try insert(sql, record.name, values, db)
        } else if row.isAlive, !merged.isEmpty {
          try update(table, record.name, merged, db)
        } else if !row.isAlive, exists {
          try db.execute(sql: sql.delete, arguments: [record.name])
        }
      }
    } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
      let parent =
        error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY ? waited(record, table) : nil
      return try hold(record, error.message ?? "\(error)", parent, &report, db)
    }
    row.zone = zone
    try row.save(db)
    if report.mayHaveHeld {
      try db.execute(
        sql: "DELETE FROM \(SyncStore.held) WHERE tbl = ? AND pk = ?",
        arguments: [record.type, record.name])
    }
    report.applied += 1
    report.appliedRecords.append(record)
    if row.isAlive, report.mayHaveHeld {
      let waiting = try Row.fetchAll(
        db, sql: "SELECT record, zone FROM \(SyncStore.held) WHERE waitsFor = ?",
        arguments: ["\(table.name.lowercased()):\(record.name)"])
      try applyHeld(waiting, report: &report, db)
    }
  }

  /// The parent (`table:key`) a record whose foreign key failed waits for, when its table
  /// has one foreign key.
  private func waited(_ record: SyncRecord, _ table: SyncedTable) -> String? {
    guard let parent = table.parent, let column = table.parentColumn,
      case .text(let key)? = record.fields[column]?.value.storage
    else { return nil }
    return "\(parent.lowercased()):\(key)"
  }

  private func insert(
    _ sql: SyncedTable.Statements, _ key: String, _ values: [(String, DatabaseValue)],
    _ db: Database
  ) throws {
    try db.execute(
      sql: sql.insert(values.map(\.0)),
      arguments: StatementArguments([DatabaseValue(storage: .text(key))] + values.map(\.1)))
  }

  func update(
    _ table: SyncedTable, _ key: String, _ values: [(String, DatabaseValue)], _ db: Database
  ) throws {
    let assignments = values.map { "\(quoteIdentifier($0.0)) = ?" }.joined(separator: ", ")
    try db.execute(
      sql: "UPDATE main.\(quoteIdentifier(table.name)) SET \(assignments) "
        + "WHERE \(quoteIdentifier(table.primaryKey)) = ?",
      arguments: StatementArguments(values.map(\.1) + [DatabaseValue(storage: .text(key))]))
  }

  private func hold(
    _ record: SyncRecord, _ reason: String, _ parent: String?, _ report: inout Report,
    _ db: Database
  ) throws {
    // A record is what one push changed: one held already for the row is merged with it,
    // so that applying the held one later applies both.
    var record = record
    if let held = try String.fetchOne(
      db, sql: "SELECT record FROM \(SyncStore.held) WHERE tbl = ? AND pk = ?",
      arguments: [record.type, record.name])
    {
      record = try JSONDecoder().decode(SyncRecord.self, from: Data(held.utf8)).merged(with: record)
    }
    let text = String(decoding: try JSONEncoder().encode(record), as: UTF8.self)
    try db.execute(
      sql: "INSERT OR REPLACE INTO \(SyncStore.held) (tbl, pk, record, reason, waitsFor, zone) "
        + "VALUES (?, ?, ?, ?, ?, ?)",
      arguments: [record.type, record.name, text, reason, parent, zone])
    report.held += 1
    report.mayHaveHeld = true
    if report.reasons.count < 5 {
      report.reasons.append("\(record.type) \(record.name): \(reason)")
    }
  }
}

extension SyncApplier {
  /// Why a record pulled from share `zone` may not be applied here, if it may not: a share
  /// holds its root record and the rows under it, nothing else — so a member who crafts
  /// a record naming a row of another zone, a second root, or a child of a row outside the
  /// share changes nothing here (it is held, with the reason).
  func refusal(
    of record: SyncRecord, _ table: SyncedTable, in zone: String, _ db: Database
  ) throws -> (reason: String, waitsFor: String?)? {
    try refusalReason(of: record, table, in: zone, db).map { reason in
      guard case .waiting(let parent) = reason else { return (reason.text, nil) }
      return ("its parent \(parent) has not come yet", parent)
    }
  }

  /// Why a share's record is not applied: a rule it breaks, or a parent (`table:key`, by a
  /// declared reference: no foreign key fails to hold it) that has not come yet.
  private enum Refusal: ExpressibleByStringInterpolation {
    case rule(String)
    case waiting(String)
    init(stringLiteral text: String) { self = .rule(text) }
    var text: String {
      switch self {
      case .rule(let text): text
      case .waiting(let parent): parent
      }
    }
  }

  private func refusalReason(
    of record: SyncRecord, _ table: SyncedTable, in zone: String, _ db: Database
  ) throws -> Refusal? {
    guard let share = shares.first(where: { $0.zone == zone }) else {
      return "zone \(zone) is not a share this hub syncs"
    }
    let stored = try Row.fetchOne(
      db, sql: "SELECT zone, created FROM \(SyncStore.rows) WHERE tbl = ? AND pk = ?",
      arguments: [table.name, record.name])
    if let stored, try stored["created"] as String? != nil, try stored["zone"] as String? != zone {
      return .rule("the row is not one of the share's")
    }
    guard let link = table.link else {
      if table.references.isEmpty {
        return share.isRoot(table.name, record.name) ? nil : "a share has one root record"
      }
      return "a row of a table with more than one foreign key is not shared"
    }
    func value(_ column: String) throws -> DatabaseValue? {
      if let field = record.fields[column] { return field.value }
      return try DatabaseValue.fetchOne(
        db,
        sql: "SELECT \(quoteIdentifier(column)) FROM main.\(quoteIdentifier(table.name)) "
          + "WHERE \(quoteIdentifier(table.primaryKey)) = ?", arguments: [record.name])
    }
    let named: String? =
      if let column = link.tableColumn, case .text(let name)? = try value(column)?.storage {
        name
      } else { nil }
    guard let parentValue = try value(link.keyColumn), !parentValue.isNull,
      let parent = link.parentTable(named: named)
    else { return "the row has no parent in the share" }
    let parentKey = SyncCapture.keyText(parentValue)
    let parentName = tables[parent.lowercased()]?.name ?? parent
    if share.isRoot(parentName, parentKey) { return nil }
    guard
      let parentRow = try Row.fetchOne(
        db, sql: "SELECT zone, created FROM \(SyncStore.rows) WHERE tbl = ? AND pk = ?",
        arguments: [parentName, parentKey]), try parentRow["created"] as String? != nil
    else {
      // A parent by foreign key not here yet holds the record by that key, and is checked
      // when it comes; a declared reference has no key to fail, so it waits here.
      return !table.isLinkedByForeignKey ? .waiting("\(parentName.lowercased()):\(parentKey)") : nil
    }
    return try parentRow["zone"] as String? == zone ? nil : "its parent is not in the share"
  }
}

extension SyncApplier {
  /// Writes the values kept aside for columns that now exist (a migration added them).
  public func replayExtras(_ db: Database) throws {
    let keys = try Row.fetchAll(
      db, sql: "SELECT tbl, pk FROM \(SyncStore.rows) WHERE extra IS NOT NULL")
    for key in keys {
      let (name, pk): (String, String) = (try key["tbl"], try key["pk"])
      guard let table = tables[name.lowercased()] else { continue }
      var row = try SyncRow.fetch(table.name, pk, db)
      let known = row.extraTimes.keys.filter { table.columns.contains($0) }
      guard !known.isEmpty else { continue }
      let record = SyncRecord(
        type: table.name, name: pk,
        fields: row.extraFields.filter { known.contains($0.key) },
        times: row.extraTimes.filter { known.contains($0.key) })
      for column in known {
        row.extraFields[column] = nil
        row.extraTimes[column] = nil
      }
      let values = row.merge(record, columns: Set(table.columns))
      if row.isAlive, !values.isEmpty {
        try capture.muting(table.name, pk) { try update(table, pk, values, db) }
      }
      try row.save(db)
    }
  }
}
