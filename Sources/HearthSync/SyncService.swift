import Foundation
import HearthPostgres
import HearthSQLite
import HearthTransport
import HearthWire

/// Runs `job` in a write transaction on the hub's writer, committed as a change of origin
/// `sync` (so the plugins' observers refresh as for any write); the hub implements it.
public protocol SyncWriter: Sendable {
  func write<T: Sendable>(_ job: @escaping @Sendable (Database) throws -> T) throws -> T
  /// Makes every commit so far durable: the hub acknowledges a commit only once it is,
  /// and the service sends nothing to the server that a power loss could still take back
  /// here.
  func makeDurable() throws
}

/// The sync service: on a thread of its own in hearthd, with one connection to the server.
/// It pushes what this hub owes (`SyncOutbox`), in batches that land whole or not at all,
/// then pulls what changed since its cursor (`SyncApplier`, through the hub's writer), then
/// waits for the server's doorbell, a local change or a second. When the server cannot be
/// reached, local writes go on (their changes wait in `hearth_sync_rows`), the error is
/// logged and kept for `hearth sync status`, and the service tries again, less often.
public final class SyncService: Sendable {
  public struct Settings: Sendable {
    /// The server: a libpq connection string or `postgresql://` URL.
    public var server: String
    public var zone = "default"
    public var pushBatch = 5_000
    public var pullPage = 1_000
    /// How long it waits for a doorbell before it looks anyway.
    public var pollInterval: Duration = .seconds(1)
    public var retryDelay: ClosedRange<Duration> = .milliseconds(100)...(.seconds(5))
    /// How often deleted records every hub has pulled past are collected on the server.
    public var collectInterval: Duration = .seconds(3600)
    /// The hub's database: its plugins' files (`SyncFiles`) are beside it.
    public var databasePath = ""
    /// The account as it is shown and remembered (`hearth_sync_state.account`): the server
    /// without its password, and the zone.
    public var account: String { Self.account(server: server, zone: zone) }

    public static func account(server: String, zone: String) -> String {
      "\(shown(server)) (zone \(zone))"
    }

    /// A connection string as it may be shown: its password left out.
    public static func shown(_ server: String) -> String {
      var shown = server
      if let range = shown.range(of: #"password\s*=\s*\S+"#, options: .regularExpression) {
        shown.replaceSubrange(range, with: "password=…")
      }
      if let range = shown.range(of: #"://[^:/@]+:[^@]+@"#, options: .regularExpression) {
        let user = shown[range].dropFirst(3).prefix { $0 != ":" }
        shown.replaceSubrange(range, with: "://\(user):…@")
      }
      return shown
    }

    public init(server: String) { self.server = server }
  }

  public let settings: Settings
  let writer: any SyncWriter
  let reader: any DatabaseReader
  let capture: SyncCapture
  let logger = Logger(label: "hearthd.sync")
  private let bell: Doorbell
  private let stopping = Locked(false)
  /// What stops the statement the server is running for this service: `stop()` uses it,
  /// so that no long statement (a zone's compaction, a large page) holds the hub's stop.
  private let canceller = Locked<PostgresCanceller?>(nil)
  /// Rounds begun and finished, and what the next round must do: push after a local
  /// commit, pull after the server's doorbell, both when asked (`requestRound`) and every
  /// `pollInterval` — so a hub busy with tables it does not sync asks nothing of the server.
  private let rounds = Locked((begun: 0, finished: 0, push: true, pull: true))
  /// Tombstones are collected once per `collectInterval`, the clock compared with the
  /// server's once a minute (and at each connection).
  private let collection: Cadence
  private let clockCheck = Cadence(every: .seconds(60))
  /// Sharing actions asked for (`perform`), and their outcomes until taken.
  let actions = Locked<
    (next: Int, queued: [(Int, ServerAction)], done: [Int: Result<ServerOutcome, any Error>])
  >((0, [], [:]))

  public init(
    _ settings: Settings, writer: any SyncWriter, reader: any DatabaseReader,
    capture: SyncCapture
  ) throws {
    self.settings = settings
    self.writer = writer
    self.reader = reader
    self.capture = capture
    collection = Cadence(every: settings.collectInterval)
    bell = try Doorbell()
  }

  public var hub: String { capture.clock.hub }

  /// Something was committed locally: look for changes to push now.
  public func localChange() {
    rounds.withLock { $0.push = true }
    bell.ring()
  }

  /// The next round pushes and pulls.
  private func wantWholeRound() { rounds.withLock { ($0.push, $0.pull) = (true, true) } }

  /// A whole round now, a push and a pull; returns its number: once `finishedRounds`
  /// reaches it, it has pushed and pulled.
  @discardableResult
  public func requestRound() -> Int {
    let round = rounds.withLock { rounds in
      (rounds.push, rounds.pull) = (true, true)
      return rounds.begun + 1
    }
    bell.ring()
    return round
  }

  public func stop() {
    stopping.withLock { $0 = true }
    bell.ring()
    // Beside the caller: libpq's cancel connects to the server and waits for its answer,
    // without a timeout, and a server that cannot be reached must not hold the stop.
    if let canceller = canceller.withLock({ $0 }) {
      DispatchQueue.global().async { canceller.cancel() }
    }
  }

  private var isStopping: Bool { stopping.withLock { $0 } }

  public var finishedRounds: Int { rounds.withLock { $0.finished } }

  /// Serves until `stop()`.
  public func run() {
    var server: SyncServer?
    var delay = settings.retryDelay.lowerBound
    var lastWholeRound = ContinuousClock.now
    while !isStopping {
      // A whole round every poll interval, however busy the doorbell keeps the pulls.
      if ContinuousClock.now - lastWholeRound >= settings.pollInterval { wantWholeRound() }
      // What this pass does, taken as it begins (a request after this waits for the next).
      let due = rounds.withLock { rounds in
        defer { (rounds.push, rounds.pull) = (false, false) }
        rounds.begun += 1
        return (push: rounds.push, pull: rounds.pull)
      }
      if due.push && due.pull { lastWholeRound = ContinuousClock.now }
      var outcomes: [(Int, Result<ServerOutcome, any Error>)] = []
      do {
        // Paused by the person: no connection, nothing pushed or pulled; local writes go on.
        if try reader.read({ db in try SyncStore.value(SyncStore.pausedKey, db) }) != nil {
          server = nil
          publish(refuseActions(SyncPaused()))
          rounds.withLock { $0.finished = $0.begun }
          wantWholeRound()
          bell.wait(timeout: settings.pollInterval)
          continue
        }
        let connected = try server ?? connect()
        server = connected
        if due.push && due.pull { try checkClock(connected) }
        if try isPaused(connected, checkingZone: due.push && due.pull) {
          wantWholeRound()
          bell.wait(timeout: settings.pollInterval)
          continue
        }
        outcomes = runActions(connected)
        // The shares change on other hubs' word (an invitation accepted, a share stopped).
        if due.push && due.pull || !outcomes.isEmpty { try refreshShares(connected) }
        if due.push { try pushAll(connected) }
        if due.pull { try pullAll(connected) }
        if due.push && due.pull, !isStopping { try collectIfDue(connected) }
        publish(outcomes)
        rounds.withLock { $0.finished = $0.begun }
        delay = settings.retryDelay.lowerBound
        switch try connected.wait(timeout: settings.pollInterval, orReadable: bell.descriptor) {
        case .doorbell: rounds.withLock { $0.pull = true }
        case .woken: bell.clear()
        case .timeout: wantWholeRound()
        }
      } catch {
        publish(outcomes)
        wantWholeRound()
        // Stopping: what failed is the hub's writer closing, not the server.
        if isStopping { break }
        server = nil
        logger.warning("sync with the server failed (retrying in \(delay)): \(error)")
        let message = "\(error)"
        _ = try? writer.write { db in try SyncStore.setValue(message, for: "lastError", db) }
        bell.wait(timeout: delay)
        delay = min(delay * 2, settings.retryDelay.upperBound)
      }
    }
  }

  /// Whether the account changed since this hub last synced and nobody has said yet what
  /// becomes of its rows (`SyncStore.checkAccount`): nothing is pushed or pulled meanwhile.
  /// A zone this hub has pulled from that is gone from the server (someone deleted it) is
  /// the same: nothing of this hub is deleted, or pushed to make the zone again, unasked.
  /// (The zone is looked for in whole rounds only: a connection, a request, the poll.)
  private func isPaused(_ server: SyncServer, checkingZone: Bool) throws -> Bool {
    var account = settings.account
    let (stored, cursor) = try reader.read { db in
      (try SyncStore.value("account", db), try SyncStore.cursor(db))
    }
    if checkingZone, stored == account, cursor.seq > 0, try !server.zoneExists() {
      account = SyncStore.zoneDeleted(account)
    }
    guard stored != account else { return false }
    let (paused, message) = try writer.write { [account] db in
      try SyncStore.checkAccount(account, db)
    }
    if let message { logger.warning(message) }
    return paused
  }

  private func connect() throws -> SyncServer {
    let server = try SyncServer(settings.server, zone: settings.zone)
    canceller.withLock { $0 = server.connection.canceller() }
    // A stop that came before the canceller did not cancel.
    if isStopping { throw CancellationError() }
    try server.listen()
    logger.notice("connected to the sync server (zone \(settings.zone))")
    _ = try writer.write { db in try SyncStore.setValue(nil, for: "lastError", db) }
    clockCheck.restart()
    return server
  }

  /// How far this hub's wall clock is from the server's, measured when it connects and
  /// once a minute: kept for `hearth sync` and `hearth status`, and logged when it passes
  /// `clockSkewWarning`. Edits keep their order whatever it is (the clock moves past
  /// every time it pulls); a clock far off only makes "later" mean less to people.
  private func checkClock(_ server: SyncServer) throws {
    guard clockCheck.isDue() else { return }
    let clock = capture.clock
    let skew = try server.clockSkew { clock.now }
    let stored = try reader.read { db in
      try SyncStore.value(SyncStore.clockSkewKey, db).flatMap { Int64($0) }
    }
    if let stored, abs(stored - skew) < 1_000 { return }
    let warning = Self.clockSkewWarning
    if abs(skew) > warning, stored.map({ abs($0) <= warning }) ?? true {
      logger.warning(
        "this hub's clock is \(Self.shownSkew(skew)) the sync server's; edits keep their "
          + "order, but set the clock right (timedatectl)")
    }
    try writer.write { db in try SyncStore.setValue(String(skew), for: SyncStore.clockSkewKey, db) }
  }

  /// Past this (ms), a clock's distance from the server's is worth saying.
  public static let clockSkewWarning: Int64 = 5_000

  /// `skew` (ms, this clock minus the server's) in words: "42 s behind", "1 h 3 min ahead of".
  public static func shownSkew(_ skew: Int64) -> String {
    let seconds = abs(skew) / 1000
    let amount =
      seconds >= 86_400
      ? "\(seconds / 86_400) d \(seconds % 86_400 / 3600) h"
      : seconds >= 3600
        ? "\(seconds / 3600) h \(seconds % 3600 / 60) min"
        : seconds >= 60 ? "\(seconds / 60) min \(seconds % 60) s" : "\(seconds) s"
    return skew < 0 ? "\(amount) behind" : "\(amount) ahead of"
  }

  /// Pushes every pending change, a batch at a time, each row to its zone. The server
  /// takes one push while this hub reads and writes the next, and the hub's writer
  /// acknowledges the one before it meanwhile (`Beside`: one at a time, in order).
  func pushAll(_ server: SyncServer) throws {
    var after: (table: String, key: String)?
    var sent: Push?
    let acknowledging = Beside(label: "hearthd.sync.acknowledge")
    // Whatever ends the pushes, the acknowledgement under way ends first.
    defer { _ = try? acknowledging.finish() }
    while !isStopping {
      let limit = settings.pushBatch
      let entries = try reader.read { [after] db in
        try SyncOutbox.batch(limit: limit, after: after, db)
      }
      if let last = entries.last { after = (last.record.type, last.record.name) }
      if !entries.isEmpty { try writer.makeDurable() }
      let zones = Dictionary(grouping: entries, by: \.zone)
      for (zone, entries) in zones.sorted(by: { ($0.key ?? "") < ($1.key ?? "") }) {
        let push = try Push(entries: entries, zone: zone)
        let previous = try sent.map { ($0, try receive($0, server)) }
        sent = nil
        try sendFiles(of: entries.map(\.record), to: zone, server)
        try server.sendPush(encoded: push.batch, zone: zone, hub: hub)
        sent = push
        if let (previous, pushed) = previous {
          try acknowledging.start { try self.acknowledge(previous, as: pushed) }
        }
      }
      if entries.count < limit { break }
    }
    try acknowledging.finish()
    if let sent { try acknowledge(sent, as: try receive(sent, server)) }
  }

  /// One zone's entries (nil: the private zone), as the batch `hearth.push` takes.
  private struct Push: Sendable {
    let entries: [SyncOutbox.Entry]
    let zone: String?
    let batch: String

    init(entries: [SyncOutbox.Entry], zone: String?) throws {
      self.entries = entries
      self.zone = zone
      batch = try JSONText.records(entries.map(\.record))
    }
  }

  /// What `push`, sent, came to; nil when the server refused it for good: a share the
  /// server will not let this person write (read-only, or taken from them). Its changes
  /// are then dropped and the share pulled again from its start, so the server's state
  /// comes back over them.
  private func receive(_ push: Push, _ server: SyncServer) throws -> SyncServer.Pushed? {
    do {
      return try server.receivePush()
    } catch let error as PostgresError where error.sqlState == "42501" && push.zone != nil {
      logger.warning(
        "the server refused \(push.entries.count) changes to share \(push.zone ?? ""): "
          + "\(error.message); they are dropped, and the share pulled again")
      return nil
    }
  }

  /// Clears what the server took of `push` (nil: refused, see `receive`), its times past
  /// the push's bound read as the bound here too, as every other hub reads them.
  private func acknowledge(_ push: Push, as pushed: SyncServer.Pushed?) throws {
    let clock = capture.clock
    try writer.write { db in
      try SyncOutbox.acknowledge(push.entries, bound: pushed?.bound, db)
      if let seq = pushed?.seq {
        try SyncStore.setValue(String(seq), for: SyncStore.lastPushKey, db)
        try SyncStore.setValue(clock.last.description, for: "clock", db)
      } else if let zone = push.zone {
        try SyncShares.setCursor(.start, of: zone, db)
      }
    }
  }

  /// Pulls and applies every page past the cursor of each zone: the private one, then each
  /// share's.
  func pullAll(_ server: SyncServer) throws {
    let shares = try reader.read { db in try SyncShares.all(db) }
    try pull(nil, shares: shares, server)
    for share in shares { try pull(share.zone, shares: shares, server) }
    try fetchFiles(server)
  }

  private func pull(_ zone: String?, shares: [SyncShare], _ server: SyncServer) throws {
    // Durable: a hub stopped in the middle of pulling a zone again sweeps it once through.
    let sweepKey = "sweep:\(zone ?? "")"
    var sweeping = try reader.read { db in try SyncStore.value(sweepKey, db) } != nil
    // Whether the next page was asked for already (while the last one was applied), and
    // the last push this hub had acknowledged when it asked.
    var asked = false
    var lastPush: Int64 = 0
    // A page is applied beside this thread, which meanwhile receives and reads the next.
    let applying = Beside(label: "hearthd.sync.apply")
    defer { _ = try? applying.finish() }
    while !isStopping {
      if !asked {
        let (cursor, pushed) = try reader.read { db in
          (
            try zone.map { try SyncShares.cursor(of: $0, db) } ?? SyncStore.cursor(db),
            try SyncStore.lastPush(db)
          )
        }
        try server.sendPull(
          zone, after: cursor, limit: settings.pullPage, hub: hub, pushed: pushed)
        lastPush = pushed
      }
      asked = false
      let page: SyncPage
      do {
        page = try server.receivePage()
      } catch let error as PostgresError where error.sqlState == SyncServer.collectedState {
        // Away longer than the zone keeps deleted records: pulled again from the start, then
        // the rows the server no longer has are dropped here.
        logger.notice(
          "this hub was away longer than the server keeps deleted records for: pulling zone "
            + "\(zone ?? server.zone) again from the start")
        try applying.finish()
        try writer.write { db in
          if let zone {
            try SyncShares.setCursor(.start, of: zone, db)
          } else {
            try SyncStore.setCursor(.start, db)
          }
          try SyncStore.setValue("1", for: sweepKey, db)
        }
        sweeping = true
        continue
      }
      // The page ends the pull: the one applied beside comes first.
      if page.complete || page.last == nil { try applying.finish() }
      if sweeping, page.complete {
        defer { sweeping = false }
        if let last = page.last { try apply(page.records, last: last, zone, shares) }
        try sweep(zone, server, clearing: sweepKey)
        return
      }
      guard let last = page.last else { return }
      if !page.complete {
        // The server reads the next page, and this thread receives it, while this one is
        // applied.
        try server.sendPull(
          zone, after: last, limit: settings.pullPage, hub: hub, pushed: lastPush)
        asked = true
        let records = page.records
        try applying.start { try self.apply(records, last: last, zone, shares) }
        continue
      }
      try apply(page.records, last: last, zone, shares)
      // The round is over: what waits for no parent in particular is tried again.
      let (capture, databasePath) = (capture, settings.databasePath)
      _ = try writer.write { db in
        var report = SyncApplier.Report()
        guard try SyncStore.heldCount(db) > 0 else { return report }
        let applier = SyncApplier(
          capture: capture, tables: try SyncStore.syncedTables(db), shares: shares)
        try capture.applying { try applier.retryHeld(report: &report, all: false, db) }
        try SyncFiles.queueMissing(report.appliedRecords, databasePath: databasePath, db)
        return report
      }
      return
    }
  }
}

extension SyncService {
  /// Applies a pulled page of `zone` and moves its cursor to `last`, in one commit.
  private func apply(
    _ page: [SyncRecord], last: SyncCursor, _ zone: String?, _ shares: [SyncShare]
  ) throws {
    let (capture, databasePath) = (capture, settings.databasePath)
    let report = try writer.write { db in
      let applier = SyncApplier(
        capture: capture, tables: try SyncStore.syncedTables(db), zone: zone, shares: shares)
      let report = try capture.applying { try applier.apply(page, db) }
      try SyncFiles.queueMissing(report.appliedRecords, databasePath: databasePath, db)
      if let zone {
        try SyncShares.setCursor(last, of: zone, db)
      } else {
        try SyncStore.setCursor(last, db)
      }
      try SyncStore.setValue(capture.clock.last.description, for: "clock", db)
      return report
    }
    if report.held > 0 {
      logger.notice(
        "\(report.held) pulled records held until they can be applied: "
          + report.reasons.joined(separator: "; "))
    }
  }

  /// After `zone` was pulled again from the start: this hub's rows of it that the server no
  /// longer has (deleted elsewhere, and their records collected meanwhile) are deleted here,
  /// without a word to the server. A row made here and not pushed yet stays, and goes.
  private func sweep(_ zone: String?, _ server: SyncServer, clearing key: String) throws {
    let names = try server.recordNames(zone)
    let capture = capture
    let dropped = try writer.write { db in
      let tables = Dictionary(
        try SyncStore.syncedTables(db).map { ($0.name.lowercased(), $0) }
      ) { first, _ in first }
      var dropped = 0
      let rows = try Row.fetchAll(
        db, sql: "SELECT tbl, pk, pending FROM \(SyncStore.rows) WHERE zone IS ?",
        arguments: [zone])
      try capture.applying {
        try capture.mutingAll {
          for row in rows {
            let (type, key): (String, String) = (try row["tbl"], try row["pk"])
            guard !names.contains(SyncCheck.Key(table: type.lowercased(), name: key)),
              try JSONText.strings(try row["pending"])[SyncRow.createdKey] == nil
            else { continue }
            if let table = tables[type.lowercased()] {
              try db.execute(
                sql: "DELETE FROM main.\(quoteIdentifier(table.name)) "
                  + "WHERE \(quoteIdentifier(table.primaryKey)) = ?", arguments: [key])
              dropped += db.changesCount
            }
            // Its sync state too (a row deleted here already keeps only that).
            try db.execute(
              sql: "DELETE FROM \(SyncStore.rows) WHERE tbl = ? AND pk = ?",
              arguments: [type, key])
          }
        }
      }
      try SyncStore.setValue(nil, for: key, db)
      return dropped
    }
    if dropped > 0 {
      logger.notice(
        "dropped \(dropped) rows of zone \(zone ?? server.zone) that were deleted elsewhere "
          + "while this hub was away")
    }
  }

  /// Once an hour (and in the first whole round): collects the tombstones of the zones this
  /// hub's person may write that every hub has pulled past (`hearth.collect`).
  func collectIfDue(_ server: SyncServer) throws {
    guard collection.isDue() else { return }
    let shares = try reader.read { db in try SyncShares.all(db) }
    for zone in [nil] + shares.filter(\.isWritable).map(\.zone) {
      let collected = try server.collectTombstones(zone)
      if collected > 0 {
        logger.info("collected \(collected) deleted records of zone \(zone ?? server.zone)")
      }
    }
  }
}

extension SyncStore {
  /// Where pulling has come to.
  public static func cursor(_ db: Database) throws -> SyncCursor {
    guard let text = try value("cursor", db) else { return .start }
    return try JSONDecoder().decode(SyncCursor.self, from: Data(text.utf8))
  }

  public static func setCursor(_ cursor: SyncCursor, _ db: Database) throws {
    try setValue(
      String(decoding: try JSONEncoder().encode(cursor), as: UTF8.self), for: "cursor", db)
  }
}

extension Duration {
  /// Whole milliseconds.
  var milliseconds: Int64 {
    components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
  }
}

/// Jobs run one at a time beside the caller, in order: `start` waits for the one before
/// (and throws its error), `finish` for the last.
final class Beside: Sendable {
  private let queue: DispatchQueue
  private let failure = Locked<(any Error)?>(nil)

  init(label: String) { queue = DispatchQueue(label: label) }

  func start(_ job: @escaping @Sendable () throws -> Void) throws {
    try finish()
    queue.async { [failure] in
      do { try job() } catch { failure.withLock { $0 = error } }
    }
  }

  func finish() throws {
    queue.sync {}
    let error = failure.withLock { failure in
      defer { failure = nil }
      return failure
    }
    if let error { throw error }
  }
}

/// Something done at most once per `interval`: the first time it is asked, then once the
/// interval has passed since it was last done.
final class Cadence: Sendable {
  let interval: Duration
  private let last = Locked<ContinuousClock.Instant?>(nil)

  init(every interval: Duration) { self.interval = interval }

  /// Whether it is time; if it is, it counts as done now.
  func isDue() -> Bool {
    last.withLock { last in
      let now = ContinuousClock.now
      guard last.map({ now - $0 >= interval }) ?? true else { return false }
      last = now
      return true
    }
  }

  /// The next `isDue()` is true.
  func restart() { last.withLock { $0 = nil } }
}
