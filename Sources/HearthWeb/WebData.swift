import Foundation
import HearthPlugin
import HearthSQLite
import HearthSupport
import HearthSync
import HearthTransport
import HearthWire

/// Read-only connections to the hub's database, one per request at a time, each query
/// stopped past a time limit (`sqlite3_interrupt`).
public final class ReaderPool: @unchecked Sendable {
  // Safe: the idle connections are only touched under `idle`'s lock, and a connection is
  // used by one request's thread at a time.
  let path: String
  let timeLimit: Duration
  private let idle = Locked<[DatabaseQueue]>([])
  private let keep = 8

  public init(path: String, timeLimit: Duration) {
    self.path = path
    self.timeLimit = timeLimit
  }

  /// Runs `body` in one read transaction (one snapshot of the file).
  public func read<T>(_ body: (Database) throws -> T) throws -> T {
    let queue = try idle.withLock { $0.popLast() } ?? open()
    defer { idle.withLock { if $0.count < keep { $0.append(queue) } } }
    return try queue.read { db in
      let watchdog = Interrupter(db)
      let work = DispatchWorkItem { watchdog.fire() }
      DispatchQueue.global().asyncAfter(deadline: .now() + timeLimit.seconds, execute: work)
      defer { work.cancel() }
      return try body(db)
    }
  }

  /// A new read-only connection, for a caller that keeps it (a live stream's follower).
  public func open() throws -> DatabaseQueue {
    var configuration = Configuration()
    configuration.readonly = true
    return try DatabaseQueue(path: path, configuration: configuration)
  }
}

/// Stops the statement running on a connection, from another thread.
private struct Interrupter: @unchecked Sendable {
  // Safe: `Database.interrupt` is the one method SQLite lets another thread call; nothing
  // else of the connection is touched through this.
  let db: Database
  init(_ db: Database) { self.db = db }
  func fire() { db.interrupt() }
}

extension Duration {
  var seconds: Double {
    let (whole, fraction) = components
    return Double(whole) + Double(fraction) / 1e18
  }
}

/// The hub as the hub page shows it: what `hello` answers (instance, sequence, WAL,
/// connections, locks), the commit rate, the plugins with their keys and cursors, and sync.
public struct HubSnapshot {
  public var welcome: WelcomeReply?
  public var databasePath: String
  public var databaseBytes: Int
  public var walFileBytes: Int
  public var lastSequence: Int64
  public var commitsLast10s: Int
  public var commitsLastMinute: Int
  public var plugins: [PluginState]
  public var sync: SyncState?

  public struct PluginState {
    public var name: String
    public var version: String?
    public var tables: [String]
    public var cursor: Int64?
    public var key: String
  }

  public struct SyncState {
    public var account: String?
    public var zone: String?
    public var paused: Bool
    public var clockSkew: Int64?
    public var lastError: String?
    public var zones: [ZoneState]
  }

  public struct ZoneState {
    public var zone: String
    public var title: String?
    public var role: String?
    public var pending: Int
    /// When the oldest change not yet pushed was made, ms since 1970.
    public var oldestPending: Int64?
  }

  public var json: [String: Any] {
    var object: [String: Any] = [
      "up": welcome != nil, "database": databasePath, "databaseBytes": databaseBytes,
      "walFileBytes": walFileBytes, "seq": lastSequence,
      "commitsPerSecond": [
        "last10s": Double(commitsLast10s) / 10, "lastMinute": Double(commitsLastMinute) / 60,
      ],
      "plugins": plugins.map { plugin -> [String: Any] in
        [
          "name": plugin.name, "version": plugin.version ?? NSNull(), "tables": plugin.tables,
          "cursor": plugin.cursor.map { $0 as Any } ?? NSNull(), "key": plugin.key,
          "behind": plugin.cursor.map { max(0, lastSequence - $0) as Any } ?? NSNull(),
        ]
      },
    ]
    if let welcome {
      object["hub"] = welcome.hub
      if let wal = welcome.wal, let data = try? WireCoding.encode(wal) {
        object["wal"] = try? JSONSerialization.jsonObject(with: data)
      }
      if let connections = welcome.connections, let data = try? WireCoding.encode(connections) {
        object["connections"] = try? JSONSerialization.jsonObject(with: data)
      }
      if let data = try? WireCoding.encode(welcome.locks ?? []) {
        object["locks"] = try? JSONSerialization.jsonObject(with: data)
      }
    }
    if let sync {
      object["sync"] = [
        "account": sync.account.map { $0 as Any } ?? NSNull(),
        "zone": sync.zone.map { $0 as Any } ?? NSNull(), "paused": sync.paused,
        "clockSkewMilliseconds": sync.clockSkew.map { $0 as Any } ?? NSNull(),
        "lastError": sync.lastError.map { $0 as Any } ?? NSNull(),
        "zones": sync.zones.map { zone -> [String: Any] in
          [
            "zone": zone.zone, "title": zone.title ?? NSNull(), "role": zone.role ?? NSNull(),
            "pending": zone.pending,
            "oldestPendingAt": zone.oldestPending.map { $0 as Any } ?? NSNull(),
          ]
        },
      ]
    }
    return object
  }
}

extension HubSnapshot {
  /// Reads it: `welcome` from the hub (nil when it does not answer), the rest from the file.
  static func read(
    welcome: WelcomeReply?, paths: HubPaths, pool: ReaderPool, now: Date = Date()
  ) throws -> HubSnapshot {
    let nowMs = Int64(now.timeIntervalSince1970 * 1000)
    let keyring = paths.keyring
    let issued = Set(keyring.issuedKeys().plugins.values)
    let revoked =
      ((try? FileManager.default.contentsOfDirectory(atPath: keyring.pluginsDirectory)) ?? [])
      .filter { $0.hasSuffix(".revoked") }.map { String($0.dropLast(".revoked".count)) }
    return try pool.read { db in
      let registered = try HubTables.registeredPlugins(db)
      let names = Set(registered.map(\.name)).union(issued).union(revoked).sorted()
      let plugins = names.map { name in
        let plugin = registered.first { $0.name == name }
        return PluginState(
          name: name, version: plugin?.version, tables: plugin?.tables ?? [],
          cursor: plugin?.cursor,
          key: issued.contains(name) ? "issued" : revoked.contains(name) ? "revoked" : "none")
      }
      let last = try HubTables.lastSequence(db)
      let rate = { (seconds: Int64) in
        try Int.fetchOne(
          db, sql: "SELECT count(*) FROM \(HubTables.commits) WHERE at >= ?",
          arguments: [nowMs - seconds * 1000]) ?? 0
      }
      return HubSnapshot(
        welcome: welcome, databasePath: paths.databasePath,
        databaseBytes: fileBytes(paths.databasePath),
        walFileBytes: fileBytes(paths.databasePath + "-wal"),
        lastSequence: max(welcome?.seq ?? 0, last), commitsLast10s: try rate(10),
        commitsLastMinute: try rate(60), plugins: plugins, sync: try syncState(db))
    }
  }

  static func syncState(_ db: Database) throws -> SyncState? {
    guard try db.tableExists(SyncStore.state) else { return nil }
    let account = try SyncStore.value("account", db)
    let zone = try SyncStore.value("zone", db)
    guard account != nil || zone != nil else { return nil }
    var titles: [String: (String?, String?)] = [:]
    if try db.tableExists("hearth_sync_shares") {
      for row in try Row.fetchAll(
        db,
        sql: """
          SELECT zone, json_extract(share, '$.title') AS title,
            json_extract(share, '$.role') AS role FROM hearth_sync_shares
          """)
      {
        titles[try row["zone"]] = (try row["title"], try row["role"])
      }
    }
    // Pending rows by zone, and the time of the oldest change not pushed (a clock value's
    // first 15 characters are its milliseconds).
    var zones: [ZoneState] = []
    for row in try Row.fetchAll(
      db,
      sql: """
        SELECT coalesce(zone, ?) AS zone, count(*) AS n,
          min((SELECT min(CAST(substr(value, 1, 15) AS INTEGER)) FROM json_each(pending)))
            AS oldest
        FROM \(SyncStore.rows) WHERE pending != '{}' GROUP BY 1 ORDER BY 1
        """, arguments: [zone ?? "default"])
    {
      let name: String = try row["zone"]
      zones.append(
        ZoneState(
          zone: name, title: titles[name]?.0, role: titles[name]?.1, pending: try row["n"],
          oldestPending: try row["oldest"]))
    }
    for (name, share) in titles where !zones.contains(where: { $0.zone == name }) {
      zones.append(ZoneState(zone: name, title: share.0, role: share.1, pending: 0))
    }
    if !zones.contains(where: { $0.zone == (zone ?? "default") }) {
      zones.insert(ZoneState(zone: zone ?? "default", pending: 0), at: 0)
    }
    return SyncState(
      account: account, zone: zone, paused: try SyncStore.value(SyncStore.pausedKey, db) != nil,
      clockSkew: try SyncStore.value(SyncStore.clockSkewKey, db).flatMap { Int64($0) },
      lastError: try SyncStore.value("lastError", db), zones: zones)
  }
}

func fileBytes(_ path: String) -> Int {
  (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
}

/// Asks the hub `hello` (with the locks) over one line kept open, as the web server's own
/// plugin key; reopened when it fails.
final class HubGreeter: @unchecked Sendable {
  // Safe: the line is only used under `line`'s lock; the context is ZeroMQ's, thread-safe.
  let transport: HubTransport
  private let line = Locked<RequestLine?>(nil)
  private let context = BusContext()

  init(transport: HubTransport) { self.transport = transport }

  func hello() -> WelcomeReply? {
    line.withLock { line in
      for _ in 0..<2 {
        do {
          if line == nil {
            line = try RequestLine.open(transport, context: context, timeout: .seconds(1))
          }
          let id = UUID().uuidString.lowercased()
          try line!.send(try WireCoding.encode(HelloRequest(id: id, locks: true)))
          let deadline = ContinuousClock.now + .seconds(1)
          while ContinuousClock.now < deadline {
            guard let frame = try line!.receive(timeout: deadline - ContinuousClock.now) else {
              break
            }
            if let welcome = try? WireCoding.decode(WelcomeReply.self, from: frame),
              welcome.id == id
            {
              return welcome
            }
          }
        } catch {}
        line?.close()
        line = nil
      }
      return nil
    }
  }
}
