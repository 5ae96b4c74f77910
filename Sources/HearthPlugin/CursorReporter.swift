import Dispatch
import Foundation
import HearthSQLite
import HearthWire

/// Tells the hub how far this plugin has read the change feed, so that the hub keeps what the
/// plugin has not read yet and prunes what every plugin has. At most one report a second,
/// off the bus thread; a lost report is made up by the next.
final class CursorReporter: Sendable {
  private struct State {
    var reported: Int64 = -1
    var isSending = false
    var lastAttempt: ContinuousClock.Instant?
  }

  static let interval: Duration = .seconds(1)

  private let connection: HubConnection
  private let plugin: String
  private let queue = DispatchQueue(label: "hearth.plugin.cursor")
  private let state = Locked(State())

  init(connection: HubConnection, plugin: String) {
    self.connection = connection
    self.plugin = plugin
  }

  /// The sequence number the hub last confirmed for this plugin (-1 before the first).
  var reported: Int64 { state.withLock { $0.reported } }

  /// The plugin's observers have been told everything up to `seq`.
  func advanced(to seq: Int64) {
    let shouldSend = state.withLock { state -> Bool in
      guard seq > state.reported, !state.isSending else { return false }
      if let last = state.lastAttempt, ContinuousClock.now - last < Self.interval { return false }
      state.isSending = true
      state.lastAttempt = .now
      return true
    }
    guard shouldSend else { return }
    queue.async { [self] in
      let id = RequestID.make()
      let saved = try? connection.request(
        CursorRequest(id: id, plugin: plugin, seq: seq), id: id, as: CursorSavedReply.self)
      state.withLock { state in
        state.isSending = false
        if let saved { state.reported = max(state.reported, saved.seq) }
      }
    }
  }
}
