import Foundation
import HearthSQLite

/// The hub's clock for sync: a hybrid logical clock on the wall clock (plus `offset`, which
/// tests set to play a hub whose clock is wrong). Shared by the capture triggers, which
/// stamp each change, and the service, which takes in the times it pulls.
public final class SyncClock: Sendable {
  private let clock: Locked<HybridLogicalClock>
  /// When the clock was last reported behind the server's times (wall milliseconds).
  private let reportedBehind = Locked<Int64?>(nil)
  /// Milliseconds added to the wall clock.
  public let offset: Int64

  public init(hub: String, last: HybridTimestamp? = nil, offset: Int64 = 0) {
    clock = Locked(HybridLogicalClock(hub: hub, last: last))
    self.offset = offset
  }

  public var hub: String { clock.withLock { $0.hub } }
  public var last: HybridTimestamp { clock.withLock { $0.last } }

  /// The wall clock, in milliseconds since 1970.
  public var now: Int64 { Int64(Date().timeIntervalSince1970 * 1000) + offset }

  /// A new time for a local change.
  public func tick() -> HybridTimestamp { clock.withLock { [now] in $0.tick(now: now) } }

  /// Takes in a time seen from the server (see `HybridLogicalClock.receive`). A time more
  /// than the drift ahead of this hub's wall clock says the clock is behind: logged, at
  /// most once a minute. Edits keep their order all the same.
  public func receive(_ time: HybridTimestamp) {
    let wall = now
    guard let ahead = clock.withLock({ $0.receive(time, now: wall) }) else { return }
    let due = reportedBehind.withLock { last in
      guard last.map({ wall - $0 >= 60_000 }) ?? true else { return false }
      last = wall
      return true
    }
    if due {
      Logger(label: "hearthd.sync").warning(
        "this hub's clock is \(ahead / 1000) s behind a time pulled from the server; edits "
          + "keep their order, but set the clock right (timedatectl)")
    }
  }
}

/// Change capture on the hub's writer: temporary triggers on each synced table (on that
/// connection only, invisible to plugins) that record, in the same transaction as the
/// change, which columns of which row changed and when (`hearth_sync_rows`), so that a
/// commit and what sync owes the server are never apart — whatever wrote it and however
/// many rows. The sync service's own writes are muted row by row (`muting`), so that it
/// never pushes back what it pulled, while the rows a foreign key's CASCADE deletes because
/// of them are captured as any local change.
public final class SyncCapture: Sendable {
  public static let triggerPrefix = "hearth_sync_"
  public let clock: SyncClock
  /// The row whose capture is off (`*` for every row of every table).
  private let muted = Locked<(table: String, key: String)?>(nil)
  /// The tables the triggers are on (lowercased), as last installed.
  private let installed = Locked<Set<String>>([])
  /// Whether the sync service is applying what it pulled (the read-only guards let it).
  private let isApplying = Locked(false)

  public init(clock: SyncClock) { self.clock = clock }

  /// Runs `body` with the capture of row `key` of `table` off.
  public func muting<T>(_ table: String, _ key: String, _ body: () throws -> T) rethrows -> T {
    muted.withLock { $0 = (table.lowercased(), key) }
    defer { muted.withLock { $0 = nil } }
    return try body()
  }

  /// Runs `body` as the sync service's own writing of what the server says: the guards of
  /// read-only shares let it through.
  public func applying<T>(_ body: () throws -> T) rethrows -> T {
    isApplying.withLock { $0 = true }
    defer { isApplying.withLock { $0 = false } }
    return try body()
  }

  /// Runs `body` with the capture off altogether.
  public func mutingAll<T>(_ body: () throws -> T) rethrows -> T {
    try muting("*", "*", body)
  }

  /// Adds the capture's functions to `db` (once per connection).
  public func addFunctions(to db: Database) {
    let clock = clock
    db.add(
      function: DatabaseFunction("hearth_sync_now", argumentCount: 0) { _ in
        DatabaseValue(storage: .text(clock.tick().description))
      })
    db.add(
      function: DatabaseFunction("hearth_sync_muted", argumentCount: 2) { [muted] values in
        guard case .text(let table) = values[0].storage else { return false }
        let key = SyncCapture.keyText(values[1])
        let isMuted = muted.withLock {
          $0.map { ($0.table == table.lowercased() && $0.key == key) || $0.table == "*" }
        }
        return (isMuted ?? false) ? true : false
      })
    db.add(
      function: DatabaseFunction("hearth_sync_applying", argumentCount: 0) { [isApplying] _ in
        isApplying.withLock { $0 } ? true : false
      })
  }

  /// The text a primary key is named by in records.
  public static func keyText(_ value: DatabaseValue) -> String {
    switch value.storage {
    case .text(let text): text
    case .integer(let integer): String(integer)
    case .double(let double): String(double)
    case .blob(let data): String(decoding: data, as: UTF8.self)
    case .null, .invalid: ""  // a key read from a database is never invalid
    }
  }

  /// Replaces the capture triggers with ones for `tables` as their schema is now, and the
  /// guards of read-only shares when this hub has one.
  public func install(_ tables: [SyncedTable], on db: Database) throws {
    let guarded = try SyncShares.hasReadOnly(db)
    let existing = try String.fetchAll(
      db,
      sql: "SELECT name FROM temp.sqlite_master WHERE type = 'trigger' AND name LIKE ?",
      arguments: [Self.triggerPrefix + "%"])
    for name in existing { try db.execute(sql: "DROP TRIGGER temp.\(quoteIdentifier(name))") }
    for table in tables {
      for sql in Self.triggers(for: table) { try db.execute(sql: sql) }
      if guarded {
        for sql in Self.guards(for: table) { try db.execute(sql: sql) }
      }
    }
    installed.withLock { $0 = Set(tables.map { $0.name.lowercased() }) }
  }

  /// Whether one of `tables` is captured: a commit that changed none of them owes the server
  /// nothing (the hub rings the service only for those that did).
  public func captures(any tables: some Sequence<String>) -> Bool {
    let installed = installed.withLock { $0 }
    return !installed.isEmpty && tables.contains { installed.contains($0.lowercased()) }
  }

  /// The four triggers of one table: insert, update (the key unchanged), a change of the
  /// key (a delete of the old row and an insert of the new), delete.
  static func triggers(for table: SyncedTable) -> [String] {
    let name = quoteIdentifier(table.name)
    let literal = sqlLiteral(table.name)
    let key = quoteIdentifier(table.primaryKey)
    let prefix = triggerPrefix + table.name.lowercased().filter { $0.isLetter || $0.isNumber }
    let columns = table.columns.map { (sqlLiteral($0), quoteIdentifier($0)) }
    let allTimes =
      columns.isEmpty
      ? "'{}'" : "json_object(" + columns.map { "\($0.0), t" }.joined(separator: ", ") + ")"
    func inserted(_ side: String) -> String {
      """
      INSERT INTO hearth_sync_rows (tbl, pk, times, pending, created)
        SELECT \(literal), CAST(\(side).\(key) AS TEXT), o, json_set(o, '$."$created"', t), t
        FROM (SELECT t, \(allTimes) AS o FROM (SELECT hearth_sync_now() AS t)) WHERE 1
        ON CONFLICT (tbl, pk) DO UPDATE SET times = excluded.times, created = excluded.created,
          pending = json_patch(hearth_sync_rows.pending, excluded.pending);
      """
    }
    func deleted(_ side: String) -> String {
      """
      INSERT INTO hearth_sync_rows (tbl, pk, deleted, pending)
        SELECT \(literal), CAST(\(side).\(key) AS TEXT), t, json_object('$deleted', t)
        FROM (SELECT hearth_sync_now() AS t) WHERE 1
        ON CONFLICT (tbl, pk) DO UPDATE SET deleted = excluded.deleted,
          pending = json_patch(hearth_sync_rows.pending, excluded.pending);
      """
    }
    let changed =
      columns.isEmpty
      ? "SELECT NULL AS k WHERE 0"
      : columns.map { "SELECT \($0.0) AS k WHERE OLD.\($0.1) IS NOT NEW.\($0.1)" }
        .joined(separator: " UNION ALL ")
    let updated = """
      INSERT INTO hearth_sync_rows (tbl, pk) VALUES (\(literal), CAST(NEW.\(key) AS TEXT))
        ON CONFLICT (tbl, pk) DO NOTHING;
      UPDATE hearth_sync_rows SET times = json_patch(times, c.o), pending = json_patch(pending, c.o)
        FROM (SELECT json_group_object(k, hearth_sync_now()) AS o
          FROM (\(changed))) AS c
        WHERE tbl = \(literal) AND pk = CAST(NEW.\(key) AS TEXT) AND c.o != '{}';
      """
    return [
      """
      CREATE TEMP TRIGGER \(prefix)_insert AFTER INSERT ON main.\(name)
      WHEN NOT hearth_sync_muted(\(literal), NEW.\(key)) BEGIN \(inserted("NEW")) END
      """,
      """
      CREATE TEMP TRIGGER \(prefix)_update AFTER UPDATE ON main.\(name)
      WHEN OLD.\(key) IS NEW.\(key) AND NOT hearth_sync_muted(\(literal), NEW.\(key))
      BEGIN \(updated) END
      """,
      """
      CREATE TEMP TRIGGER \(prefix)_rekey AFTER UPDATE OF \(key) ON main.\(name)
      WHEN OLD.\(key) IS NOT NEW.\(key) AND NOT hearth_sync_muted(\(literal), NEW.\(key))
      BEGIN \(deleted("OLD")) \(inserted("NEW")) END
      """,
      """
      CREATE TEMP TRIGGER \(prefix)_delete AFTER DELETE ON main.\(name)
      WHEN NOT hearth_sync_muted(\(literal), OLD.\(key)) BEGIN \(deleted("OLD")) END
      """,
    ]
  }

}

/// `text` as an SQL string literal (`DatabaseValue`'s own form of it).
func sqlLiteral(_ text: String) -> String { DatabaseValue(storage: .text(text)).description }

extension SyncCapture {
  /// The text of the error a write into a share this hub may only read fails with (as
  /// the reference's `SyncEngine.writePermissionError`, a `DatabaseError`'s message).
  public static let writePermissionError = "hearth.sync.write-permission-error"

  /// The guards of one table while this hub has a read-only share: an insert under a row
  /// of such a share, a change or delete of one of its rows, or a change that moves a row
  /// under one, fails with `writePermissionError` — unless the sync service is applying
  /// what the server says.
  static func guards(for table: SyncedTable) -> [String] {
    let name = quoteIdentifier(table.name)
    let literal = sqlLiteral(table.name)
    let key = quoteIdentifier(table.primaryKey)
    let prefix = triggerPrefix + table.name.lowercased().filter { $0.isLetter || $0.isNumber }
    func readOnly(_ tbl: String, _ pk: String) -> String {
      """
      EXISTS (SELECT 1 FROM hearth_sync_rows r JOIN hearth_sync_shares s ON s.zone = r.zone
        WHERE r.tbl = \(tbl) AND r.pk = CAST(\(pk) AS TEXT)
          AND json_extract(s.share, '$.isOwner') = 0
          AND json_extract(s.share, '$.permission') = 'read')
      """
    }
    let underParent = table.link.map { link in
      readOnly(link.tableExpression("NEW"), "NEW.\(quoteIdentifier(link.keyColumn))")
    }
    let refuse = "BEGIN SELECT RAISE(ABORT, \(sqlLiteral(writePermissionError))); END"
    var guards = [
      """
      CREATE TEMP TRIGGER \(prefix)_guard_update BEFORE UPDATE ON main.\(name)
      WHEN NOT hearth_sync_applying() AND (\(readOnly(literal, "OLD.\(key)"))\(
        underParent.map { " OR \($0)" } ?? "")) \(refuse)
      """,
      """
      CREATE TEMP TRIGGER \(prefix)_guard_delete BEFORE DELETE ON main.\(name)
      WHEN NOT hearth_sync_applying() AND \(readOnly(literal, "OLD.\(key)")) \(refuse)
      """,
    ]
    if let underParent {
      guards.append(
        """
        CREATE TEMP TRIGGER \(prefix)_guard_insert BEFORE INSERT ON main.\(name)
        WHEN NOT hearth_sync_applying() AND \(underParent) \(refuse)
        """)
    }
    return guards
  }
}
