import Dispatch
import Foundation
import HearthService
import HearthSupport
import HearthTransport
import HearthWire

/// Who a request comes from. Every connection to the hub's request socket authenticates
/// with CURVE; the hub's ZAP handler admits it under its public key, and a request may act
/// as plugin NAME (register, write, save a cursor) only when that key is the one issued to
/// NAME in the keyring (`plugins/NAME.key`). The `plugin` field of a request is checked
/// against it, never believed.
///
/// A key issued to no plugin is anonymous: on ipc it may read (`hello`, `changes`); over
/// tcp it is refused at the handshake.
struct Identities {
  let keyring: Keyring
  /// Public key → plugin name, as of `stamp`.
  private var plugins: [String: String] = [:]
  private var stamp: timespec?
  /// The key files as last read: only those that changed are read again.
  private var keyFiles = IssuedKeyCache()
  /// Whether the keys must be read again whatever the stamp says, and when they were read
  /// (the monotonic clock, in nanoseconds).
  private var stale = true
  private var readAt: UInt64 = 0
  /// Reports each change of the plugins directory; while it watches, the keys are read
  /// again only when it says so (nil: the directory is looked at by `stat`).
  private var watch: DirectoryWatch?
  private var watchTriedAt: UInt64 = 0

  init(keyring: Keyring) {
    self.keyring = keyring
    watchTriedAt = DispatchTime.now().uptimeNanoseconds
    watch = DirectoryWatch(path: keyring.pluginsDirectory)
    reload(stamp: keyring.stamp())
  }

  /// What to poll for the keys' changes, beside the hub's sockets (nil: nothing to poll;
  /// `refresh` looks at the directory itself).
  var descriptor: Int32? { watch?.isWatching == true ? watch?.descriptor : nil }

  /// Rereads the issued keys when they may have changed: when the directory watch reported
  /// a change (`watchFired`, its descriptor readable), or, with no watch, when the keyring's
  /// plugins directory has (one `stat`). A directory's time moves in clock ticks of a few
  /// milliseconds, so a change in the tick of the last reading would not move it: without a
  /// watch, while the last change is under two seconds old, the keys are read again every
  /// 20 ms (and before any refusal, see `refusal`).
  mutating func refresh(watchFired: Bool) {
    if let watch, watch.isWatching {
      guard watchFired else { return }
      // Drained before the keys are read: a change after this is reported again.
      watch.drain()
      return reload(stamp: watch.isWatching ? nil : keyring.stamp())
    }
    // No watch (the directory did not exist, or went away): watching is tried again once
    // a second, and its first turn reads the keys.
    let clockNow = DispatchTime.now().uptimeNanoseconds
    if clockNow - watchTriedAt > 1_000_000_000 {
      watchTriedAt = clockNow
      watch = DirectoryWatch(path: keyring.pluginsDirectory)
    } else {
      watch = nil
    }
    let now = keyring.stamp()
    let changed = now?.tv_sec != stamp?.tv_sec || now?.tv_nsec != stamp?.tv_nsec
    let elapsed = clockNow - readAt
    guard watch != nil || changed || (stale && elapsed > 20_000_000) else { return }
    reload(stamp: now)
  }

  private mutating func reload(stamp now: timespec?) {
    readAt = DispatchTime.now().uptimeNanoseconds
    plugins = keyring.issuedKeys(cache: &keyFiles).plugins
    stamp = now
    var clock = timespec()
    clock_gettime(CLOCK_REALTIME, &clock)
    stale = now.map { clock.tv_sec - $0.tv_sec < 2 } ?? false
  }

  /// The plugin whose key a connection admitted as `userID` (its public key) holds.
  func plugin(_ userID: String?) -> String? { userID.flatMap { plugins[$0] } }

  /// The refusal of `request` when it acts as a plugin other than the one its connection
  /// authenticated as (the keys read again first, so a key issued a moment ago is known);
  /// nil when it may go on.
  mutating func refusal(of request: WireRequest, from userID: String?) -> ErrorReply? {
    let acting: (plugin: String, id: String)
    switch request {
    case .hello, .changes: return nil
    case .register(let request): acting = (request.plugin, request.id)
    case .transaction(let request): acting = (request.plugin, request.id)
    case .cursor(let request): acting = (request.plugin, request.id)
    case .sync(let request):
      // Asking for the state, a round, a resync or a check changes no data, nor do pausing,
      // resuming and accepting an invitation (the person's word, as keeping an account
      // is); declaring tables, deleting local data and sharing a table's rows (or stopping
      // it) are its plugin's.
      let isSharing = [.share, .unshare, .revokeShare].contains(request.action)
      if isSharing, request.plugin == nil {
        return ErrorReply(
          id: request.id, code: .unauthorized,
          message: "sharing a record is for the plugin that owns its table (plugin is missing)")
      }
      guard let plugin = request.plugin,
        !request.tables.isEmpty || request.action == .deleteLocalData || isSharing
      else { return nil }
      acting = (plugin, request.id)
    }
    var identity = plugin(userID)
    if identity == acting.plugin { return nil }
    reload(stamp: keyring.stamp())
    identity = plugin(userID)
    if identity == acting.plugin { return nil }
    let message =
      if let identity {
        "this connection is plugin \(identity)'s (by its key); it may not act as plugin "
          + "\(acting.plugin)"
      } else {
        "this connection's key is not the key issued to plugin \(acting.plugin) (hearth plugins "
          + "add \(acting.plugin) issues it); without one a client may only read (hello, changes, sync)"
      }
    return ErrorReply(id: acting.id, code: .unauthorized, message: message)
  }

  /// The ZAP handler's answer to a handshake: CURVE only; over tcp (domain `tcp`), only keys
  /// issued to a plugin.
  static func admit(_ request: ZAPHandler.Request, keyring: Keyring) -> ZAPHandler.Decision {
    guard request.mechanism == "CURVE", let key = request.publicKey else {
      return .refuse(reason: "the hub takes CURVE connections only")
    }
    if request.domain == Self.tcpDomain, keyring.issuedKeys().plugins[key] == nil {
      return .refuse(reason: "this key is not issued to a plugin of this hub")
    }
    return .admit(userID: key)
  }

  static let ipcDomain = "ipc"
  static let tcpDomain = "tcp"
}

/// The hub's ZAP handler (`Identities.admit` for each handshake) on a thread of its own,
/// until `stop()` rings its bell. `waitUntilBound` returns once it listens (throws when it
/// could not), so that no socket it guards is bound before it.
final class ZAPService: Service {
  let name = "hearthd.zap"
  private let context: BusContext
  private let keyring: Keyring
  private let stopBell: Doorbell
  private let bound = DispatchSemaphore(value: 0)
  private let failure = Locked<String?>(nil)

  init(_ context: BusContext, keyring: Keyring) throws {
    self.context = context
    self.keyring = keyring
    stopBell = try Doorbell()
  }

  func run() throws {
    let handler: ZAPHandler
    do {
      handler = try ZAPHandler(context)
    } catch {
      failure.withLock { $0 = "\(error)" }
      bound.signal()
      throw error
    }
    bound.signal()
    try handler.serve(until: stopBell) { Identities.admit($0, keyring: keyring) }
  }

  func stop() { stopBell.ring() }

  /// Waits until the handler listens; throws when it could not.
  func waitUntilBound() throws {
    bound.wait()
    bound.signal()
    if let message = failure.withLock({ $0 }) {
      throw HubError("the hub's authentication handler did not start: \(message)")
    }
  }
}
