import Foundation
import HearthHTTP
import HearthSQLite
import HearthSupport
import HearthTransport
import HearthWire

/// One page's Server-Sent Events: the feed's commits after a sequence number, in order,
/// none twice, each with `id:` = its sequence number, so that a browser reconnecting with
/// `Last-Event-ID` resumes where it was. A table's page gets, with each commit that touches
/// its table, the rows inserted or changed, as the page shows them.
///
/// When the page is too far behind to be sent every commit (more than `maximumBacklog`, or
/// commits pruned from the feed before it read them), it is sent `reload` with the sequence
/// number to reload from, and the stream goes on from there.
final class EventStream: StreamProducer, @unchecked Sendable {
  // Safe: libmicrohttpd calls `next` and `finish` from the connection's one thread; the
  // follower (with its reader) and the buffer are touched by that thread alone.
  static let maximumBacklog: Int64 = 5_000
  static let keepAlive = Duration.seconds(15)
  /// Rows listed per table in a feed event; more are counted.
  static let listedRows = 50

  let app: WebApp
  let table: BrowsedTable?
  var position: Int64
  private var follower: FeedFollower?
  private var buffer = Data()
  private var lastWrite = ContinuousClock.now
  private var ended = false

  init(app: WebApp, after position: Int64, table: BrowsedTable?) {
    self.app = app
    self.position = position
    self.table = table
    buffer = Data("retry: 1000\n\n".utf8)
  }

  func next(limit: Int) -> Data? {
    if !buffer.isEmpty { return take(limit) }
    if ended || app.isStopping { return nil }
    do {
      try fill()
    } catch {
      app.log.warning("a live stream ended: \(error)")
      return nil
    }
    if buffer.isEmpty, ContinuousClock.now - lastWrite >= Self.keepAlive {
      buffer = Data(": still here\n\n".utf8)
    }
    return take(limit)
  }

  func finish() {
    ended = true
  }

  private func take(_ limit: Int) -> Data {
    let chunk = buffer.prefix(limit)
    buffer.removeFirst(chunk.count)
    lastWrite = ContinuousClock.now
    return Data(chunk)
  }

  /// Waits up to half a second for commits and writes them into the buffer.
  private func fill() throws {
    guard let follower else {
      let reader = try app.pool.open()
      var start = position
      let current = try reader.read { db in
        _ = try app.tables(db)  // the schema, for isShown
        return try HubTables.lastSequence(db)
      }
      if current - start > Self.maximumBacklog {
        write(reload: current)
        start = current
      }
      let made = try FeedFollower(
        context: app.busContext, endpoint: app.paths.busEndpoint, reader: reader,
        from: .after(start))
      self.follower = made
      try send(made.catchUp())
      return
    }
    try send(follower.poll(timeout: .milliseconds(500)))
  }

  private func send(_ deliveries: [FeedFollower.Delivery]) throws {
    for delivery in deliveries {
      switch delivery {
      case .missed(_, let through):
        write(reload: through)
      case .commit(let event):
        guard event.seq > position else { continue }
        position = event.seq
        if let table {
          guard
            let changes = event.tables.first(where: {
              $0.key.caseInsensitiveCompare(table.name) == .orderedSame
            })?.value
          else { continue }
          write(id: event.seq, event: "commit", data: try tableEvent(event, changes, table))
        } else {
          write(id: event.seq, event: "commit", data: Self.summary(event, shown: app.isShown))
        }
      }
    }
  }

  private func write(reload sequence: Int64) {
    position = sequence
    write(id: sequence, event: "reload", data: ["seq": sequence])
  }

  private func write(id: Int64, event: String, data: [String: Any]) {
    guard let json = try? JSONSerialization.data(withJSONObject: data, options: [.sortedKeys])
    else { return }
    buffer += Data("id: \(id)\nevent: \(event)\ndata: ".utf8)
    buffer += json
    buffer += Data("\n\n".utf8)
  }

  /// A commit for the feed and the hub page: its tables, with the rows and columns it
  /// changed (up to `listedRows` a list).
  static func summary(_ event: CommitEvent, shown: (String) -> Bool) -> [String: Any] {
    var tables: [String: Any] = [:]
    for (name, changes) in event.tables where shown(name) {
      var entry: [String: Any] = [
        "inserted": changes.insertedRowIDs.count, "updated": changes.updatedRowIDs.count,
        "deleted": changes.deletedRowIDs.count, "rowsKnown": changes.rowIDsAreKnown,
      ]
      entry["rows"] = [
        "inserted": Array(changes.insertedRowIDs.prefix(listedRows)),
        "updated": Array(changes.updatedRowIDs.prefix(listedRows)),
        "deleted": Array(changes.deletedRowIDs.prefix(listedRows)),
      ]
      if let columns = changes.updatedColumns { entry["columns"] = columns }
      tables[name] = entry
    }
    return [
      "seq": event.seq, "at": event.at, "plugin": event.plugin, "tables": tables,
      "schemaChanged": event.schemaChanged == true,
    ]
  }

  /// A commit for a table's page: the rows it inserted or changed as the page shows them,
  /// the keys of those it deleted, or `refetch` when the rows are not listed.
  private func tableEvent(_ event: CommitEvent, _ changes: TableChanges, _ table: BrowsedTable)
    throws -> [String: Any]
  {
    var data = Self.summary(event) { $0.caseInsensitiveCompare(table.name) == .orderedSame }
    guard changes.rowIDsAreKnown, table.hasRowid,
      changes.insertedRowIDs.count + changes.updatedRowIDs.count <= TableBrowser.rowCap
    else {
      data["refetch"] = true
      return data
    }
    let wanted = changes.insertedRowIDs + changes.updatedRowIDs
    let rows = try app.pool.read { db in try TableBrowser.rows(withRowids: wanted, of: table, db) }
    let inserted = Set(changes.insertedRowIDs)
    data["rows"] = rows.map { row -> [String: Any] in
      let rowid: Int64 = if case .rowid(let id) = row.key { id } else { 0 }
      return [
        "key": row.key.pathComponent, "inserted": inserted.contains(rowid),
        "values": row.values.map(WebApp.jsonValue),
      ]
    }
    data["deleted"] = changes.deletedRowIDs.map { String($0) }
    return data
  }
}
