import Foundation
import HearthSQLite
import HearthWire

extension SyncService {
  /// Sends the files `records` name to the server before the records themselves, so that
  /// no hub pulls a row whose file the server lacks: a file the server has for this person
  /// is only linked to `zone`; one it has not is sent whole. A file not here (a row pulled
  /// and edited before its file came) is left to the hub that has it.
  func sendFiles(of records: [SyncRecord], to zone: String?, _ server: SyncServer) throws {
    let columns = try reader.read { db in try SyncFiles.columns(db) }
    guard !columns.isEmpty else { return }
    for (digest, plugin) in SyncFiles.named(in: records, columns: columns) {
      if try server.linkFile(digest, zone: zone) { continue }
      guard
        let data = SyncFiles.read(digest, plugin: plugin, databasePath: settings.databasePath)
      else {
        logger.notice("file \(digest) of \(plugin) is not on this hub: not sent")
        continue
      }
      try server.putFile(digest, bytes: data, zone: zone)
    }
  }

  /// Fetches the files pulled rows name and this hub lacks; one the server has not yet
  /// stays queued for the next round.
  func fetchFiles(_ server: SyncServer) throws {
    let queued = try reader.read { db in try SyncFiles.queued(db) }
    let path = settings.databasePath
    for (digest, plugin) in queued {
      if SyncFiles.read(digest, plugin: plugin, databasePath: path) == nil {
        guard let data = try server.file(digest) else { continue }
        try SyncFiles.write(data, digest: digest, plugin: plugin, databasePath: path)
      }
      try writer.write { db in try SyncFiles.fetched(digest, plugin: plugin, db) }
    }
  }

  /// Links the files of a shared tree's rows to its zone: the members fetch them there.
  func linkFiles(of rows: [(type: String, name: String)], to zone: String, _ server: SyncServer)
    throws
  {
    let records = try reader.read { db -> [SyncRecord] in
      let columns = try SyncFiles.columns(db)
      guard !columns.isEmpty else { return [] }
      let tables = Dictionary(
        try SyncStore.syncedTables(db).map { ($0.name.lowercased(), $0) }
      ) { first, _ in first }
      return try rows.compactMap { row -> SyncRecord? in
        guard let fileColumns = columns[row.type.lowercased()],
          let table = tables[row.type.lowercased()]
        else { return nil }
        var record = SyncRecord(type: row.type, name: row.name)
        for column in fileColumns {
          let value = try DatabaseValue.fetchOne(
            db,
            sql:
              "SELECT \(quoteIdentifier(column.column)) FROM main.\(quoteIdentifier(table.name)) "
              + "WHERE CAST(\(quoteIdentifier(table.primaryKey)) AS TEXT) = ?",
            arguments: [row.name])
          if let value { record.fields[column.column] = WireValue(value) }
        }
        return record
      }
    }
    try sendFiles(of: records, to: zone, server)
  }
}
