import Foundation

/// Where a hub keeps its database and its sockets; the hub and its plugins derive them the
/// same way.
///
/// - database: `$HEARTH_DATABASE`, else `$XDG_DATA_HOME/hearth/hearth.sqlite`
///   (`~/.local/share/hearth/hearth.sqlite`);
/// - sockets: `$HEARTH_RUNTIME_DIR`, else `$XDG_RUNTIME_DIR/hearth`, else
///   `/tmp/hearth-<uid>` — a directory of mode 0700.
public struct HubPaths: Hashable, Sendable {
  public var databasePath: String
  public var runtimeDirectory: String

  public init(databasePath: String, runtimeDirectory: String) {
    self.databasePath = databasePath
    self.runtimeDirectory = runtimeDirectory
  }

  /// The paths from the environment.
  public static func fromEnvironment(
    _ environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> HubPaths {
    let dataHome =
      environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (NSHomeDirectory() + "/.local/share")
    let database =
      environment["HEARTH_DATABASE"].flatMap { $0.isEmpty ? nil : $0 }
      ?? dataHome + "/hearth/hearth.sqlite"
    let runtime: String
    if let explicit = environment["HEARTH_RUNTIME_DIR"], !explicit.isEmpty {
      runtime = explicit
    } else if let xdg = environment["XDG_RUNTIME_DIR"], !xdg.isEmpty {
      runtime = xdg + "/hearth"
    } else {
      runtime = "/tmp/hearth-\(getuid())"
    }
    return HubPaths(databasePath: database, runtimeDirectory: runtime)
  }

  /// `ipc://<runtime>/hub.sock`: requests (the hub's ROUTER).
  public var requestEndpoint: String { "ipc://\(runtimeDirectory)/hub.sock" }
  /// `ipc://<runtime>/bus.sock`: change events and heartbeats (the hub's PUB).
  public var busEndpoint: String { "ipc://\(runtimeDirectory)/bus.sock" }
}
