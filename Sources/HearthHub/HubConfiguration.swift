import Foundation
import HearthWire

/// How a hub runs: where its database and sockets are, and its limits.
public struct HubConfiguration: Sendable {
  /// The database file and the directory of the socket files (created with mode 0700).
  public var paths: HubPaths
  public var databasePath: String { paths.databasePath }
  public var runtimeDirectory: String { paths.runtimeDirectory }
  /// Extra endpoints (for example `tcp://0.0.0.0:5555`), served with CURVE to the keys the
  /// keyring has issued only.
  public var extraRequestEndpoints: [String] = []
  public var extraBusEndpoints: [String] = []
  /// The hub's CURVE keys (Z85), when not the keyring's `hub.key`.
  public var curveSecretKey: String?
  public var curvePublicKey: String?

  /// The largest request accepted; larger ones get `tooLarge`. Default 4 MiB.
  public var maximumMessageSize = 4 << 20
  /// The most statements in one `transaction` message. Default 10,000.
  public var maximumStatementsPerMessage = 10_000
  /// How long a client may stay silent inside its transaction before it is rolled back.
  public var transactionTimeout: Duration = .seconds(5)
  /// Requests waiting for the writer; beyond it, `busy`. Default 1,000.
  public var maximumQueuedRequests = 1_000
  /// Bytes of replies the hub holds for request-stream clients that have not read them, all
  /// together; past it, the connections with the most waiting are closed. Default 256 MiB.
  public var replyMemoryBudget = 256 << 20
  /// How often the bus says the hub is alive.
  public var heartbeatInterval: Duration = .seconds(1)
  /// How long the change feed and the exactly-once records are kept. Default 7 days.
  public var feedRetention: Duration = .seconds(7 * 24 * 3600)
  /// The newest feed entries kept even when every registered cursor has passed them (for
  /// readers that keep no cursor at the hub, such as `hearth subscribe --since`).
  public var feedKeepRecent: Int64 = 10_000
  /// How often the WAL is copied into the database file by PASSIVE checkpoints on a thread
  /// of their own (zero: never; the bound below still holds).
  public var checkpointInterval: Duration = .milliseconds(200)
  /// The bound on the write-ahead log: past it, after the next commit, the hub restarts
  /// the log (a RESTART checkpoint), and cuts the file back to this size. Default 32 MiB.
  public var walLimit = 32 << 20
  /// How long that checkpoint waits for readers still using the log before it gives up
  /// for now. Default 50 ms.
  public var checkpointWait: Duration = .milliseconds(50)
  /// After a checkpoint that readers held off, how long the writer goes on before trying
  /// again. Default 250 ms.
  public var checkpointRetryDelay: Duration = .milliseconds(250)
  /// The most changed rows of one table a commit's feed entry lists; past it the entry says
  /// the table changed with `unknownRows` (readers refetch). Default 10,000.
  public var maximumListedRowsPerTable = 10_000
  /// How often the feed is pruned (also at start-up).
  public var pruneInterval: Duration = .seconds(60)
  /// The most feed entries (and exactly-once records) one pruning commit deletes; the rest
  /// go in the next rounds of the loop, between other work. Default 2,000.
  public var pruneBatch = 2_000
  /// High-water mark of the bus: a subscriber further behind loses messages (and catches up
  /// from the feed).
  public var busHighWaterMark = 10_000

  /// Called once each commit is durable (its COMMIT returned and a sync of the log since
  /// has), before its reply is sent and its event published, with its sequence number: for
  /// instrumentation (the benchmarks time commit → event with it). It runs on the hub's
  /// thread or on its syncing thread, one call at a time, in order, and must return quickly.
  public var didCommit: (@Sendable (_ seq: Int64) -> Void)?

  /// The sync server (a libpq connection string or `postgresql://` URL); nil: no sync
  /// (the synced tables' changes are still recorded, for when one is set up).
  public var syncServer: String?
  /// The server's zone this hub syncs (one per account). Default `default`.
  public var syncZone = "default"
  /// Milliseconds added to the wall clock of the sync service's clock: for tests that play
  /// a hub whose clock is wrong. Default 0.
  public var syncClockOffset: Int64 = 0
  /// How long `sync` with action `now` waits for a round to finish before it answers
  /// `syncFailed`. Default 30 s.
  public var syncWait: Duration = .seconds(30)
  /// The most records one pull brings (one local commit applies them). Default 1,000.
  public var syncPageSize = 1_000

  public init(paths: HubPaths = .fromEnvironment()) {
    self.paths = paths
  }

  /// What a request may be (`WireRequest.parse` checks it; `welcome.limits` announces it).
  public var limits: WireRequest.Limits {
    WireRequest.Limits(
      maximumMessageSize: maximumMessageSize,
      maximumStatementsPerMessage: maximumStatementsPerMessage)
  }

  /// Requests (ROUTER).
  public var requestEndpoint: String { paths.requestEndpoint }
  /// Change events and heartbeats (PUB).
  public var busEndpoint: String { paths.busEndpoint }
}
