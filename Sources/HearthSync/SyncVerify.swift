import Foundation
import HearthSQLite
import HearthWire

/// `hearth sync verify`: whether this hub holds what the server does. After a round (so
/// that nothing is owed either way), each zone's live rows here and the server's live
/// records there are put in one canonical form — table, key, and each column's value — and
/// compared: a SHA-256 digest of each side, and the rows that differ. The server's records
/// are read as the person may read them (`hearth.merged`, which checks it);
/// both digests are computed here, in the same code, so equal digests mean equal values.
/// Deleted rows are not compared: a row deleted here and a record the server deleted (or
/// collected) are the same absence.
extension SyncService {
  func verify(_ server: SyncServer) throws -> SyncVerification {
    let shares = try reader.read { db in try SyncShares.all(db) }
    let zones: [String?] = [nil] + shares.map(\.zone)
    return SyncVerification(zones: try zones.map { try verify($0, server) })
  }

  private func verify(_ zone: String?, _ server: SyncServer) throws -> SyncVerification.Zone {
    let here = try reader.read { db in try SyncCheck.localRows(zone: zone, db) }
    let there = try SyncCheck.serverRows(zone ?? server.zone, tables: here.tables, server)
    var differences: [SyncVerification.Difference] = []
    var differing = 0
    func differ(_ key: SyncCheck.Key, _ what: String) {
      differing += 1
      if differences.count < 50 {
        differences.append(.init(table: key.table, key: key.name, what: what))
      }
    }
    for key in Set(here.rows.keys).union(there.keys).sorted() {
      if here.pending.contains(key) { continue }
      switch (here.rows[key], there[key]) {
      case (let mine?, let theirs?):
        let columns = Set(mine.keys).union(theirs.keys).sorted()
        let changed = columns.filter { mine[$0] != theirs[$0] }
        if !changed.isEmpty {
          differ(
            key,
            changed.map { column in
              "\(column): here \(SyncCheck.shown(mine[column])), on the server "
                + SyncCheck.shown(theirs[column])
            }.joined(separator: "; "))
        }
      case (_?, nil): differ(key, "only here")
      case (nil, _?):
        differ(key, here.held[key].map { "held here: \($0)" } ?? "only on the server")
      case (nil, nil): break
      }
    }
    return SyncVerification.Zone(
      zone: zone ?? server.zone, rows: here.rows.count, serverRows: there.count,
      digest: SyncCheck.digest(here.rows), serverDigest: SyncCheck.digest(there),
      pending: here.pending.count, differences: differences, differing: differing)
  }
}

/// The two sides of `verify`, in one form: rows by (table, key), each its columns' values.
enum SyncCheck {
  struct Key: Hashable, Comparable {
    var table: String
    var name: String
    static func < (a: Key, b: Key) -> Bool { (a.table, a.name) < (b.table, b.name) }
  }

  /// A row: column to its value in canonical text (`canonical`).
  typealias Values = [String: String]

  /// The live rows of `zone` (nil: the private one) here, the rows with pending changes,
  /// the held records (by key, with the reason), and the synced tables' columns.
  static func localRows(zone: String?, _ db: Database) throws -> (
    rows: [Key: Values], pending: Set<Key>, held: [Key: String], tables: [String: [String]]
  ) {
    var rows: [Key: Values] = [:]
    var pending = Set<Key>()
    var columns: [String: [String]] = [:]
    for table in try SyncStore.syncedTables(db) {
      columns[table.name.lowercased()] = table.columns
      let selected = table.columns.map { "t.\(quoteIdentifier($0))" }.joined(separator: ", ")
      let found = try Row.fetchAll(
        db,
        sql: """
          SELECT r.pk, r.pending != '{}' AS isPending,
            t.\(quoteIdentifier(table.primaryKey)) IS NOT NULL AS isHere\(selected.isEmpty ? "" : ", " + selected)
          FROM \(SyncStore.rows) r
          LEFT JOIN main.\(quoteIdentifier(table.name)) t
            ON t.\(quoteIdentifier(table.primaryKey)) = r.pk
          WHERE r.tbl = ? AND r.zone IS ?
          """, arguments: [table.name, zone])
      for row in found {
        let key = Key(table: table.name.lowercased(), name: try row["pk"])
        if try row["isPending"] as Bool { pending.insert(key) }
        guard try row["isHere"] as Bool else { continue }
        var values: Values = [:]
        for (index, column) in table.columns.enumerated() {
          values[column] = canonical(try row[index + 3] as DatabaseValue)
        }
        rows[key] = values
      }
    }
    var held: [Key: String] = [:]
    for row in try Row.fetchAll(
      db, sql: "SELECT tbl, pk, reason FROM \(SyncStore.held) WHERE zone IS ?", arguments: [zone])
    {
      held[Key(table: (try row["tbl"] as String).lowercased(), name: try row["pk"])] =
        try row["reason"]
    }
    return (rows, pending, held, columns)
  }

  /// The live records of `zone` on the server, each with the columns this hub's table has
  /// (all of a table this hub does not sync).
  static func serverRows(_ zone: String, tables: [String: [String]], _ server: SyncServer)
    throws -> [Key: Values]
  {
    var rows: [Key: Values] = [:]
    let decoder = JSONDecoder()
    // The zone merged once, as its hubs merge it (`hearth.merged`, read as the person may).
    let merged = try server.connection.execute(
      """
      SELECT record_type, record_name, fields::text
      FROM hearth.merged($1)
      WHERE created IS NOT NULL AND (deleted IS NULL OR created COLLATE "C" > deleted COLLATE "C")
      """, [zone]
    ).rows
    for row in merged {
      guard let type = row[0] ?? nil, let name = row[1] ?? nil, let text = row[2] ?? nil else {
        continue
      }
      let fields = try decoder.decode([String: WireValue].self, from: Data(text.utf8))
      let columns = tables[type.lowercased()] ?? fields.keys.sorted()
      var values: Values = [:]
      for column in columns {
        values[column] = canonical(fields[column]?.value ?? .null)
      }
      rows[Key(table: type.lowercased(), name: name)] = values
    }
    return rows
  }

  /// A value as text that differs whenever the values do (its type first).
  static func canonical(_ value: DatabaseValue) -> String {
    switch value.storage {
    case .null, .invalid: "n"  // a value read from a database is never invalid
    case .integer(let integer): "i\(integer)"
    case .double(let double): "r\(double)"
    case .text(let text): "t" + text
    case .blob(let data): "b" + data.base64EncodedString()
    }
  }

  /// A canonical value as a person reads it (at most 40 characters).
  static func shown(_ canonical: String?) -> String {
    guard let canonical, let kind = canonical.first else { return "nothing" }
    let body = canonical.dropFirst()
    let text: String =
      switch kind {
      case "n": "NULL"
      case "t": "\"\(body)\""
      case "b": "a blob of \(Data(base64Encoded: String(body))?.count ?? 0) bytes"
      default: String(body)
      }
    return text.count > 40 ? text.prefix(39) + "…" : text
  }

  /// SHA-256 (hex) of rows in key order, each its table, key and sorted columns' values.
  static func digest(_ rows: [Key: Values]) -> String {
    var text = ""
    for key in rows.keys.sorted() {
      text += key.table + "\u{1F}" + key.name
      for (column, value) in rows[key]!.sorted(by: { $0.key < $1.key }) {
        text += "\u{1F}" + column + "=" + value
      }
      text += "\n"
    }
    return SHA256.hex(Data(text.utf8))
  }
}
