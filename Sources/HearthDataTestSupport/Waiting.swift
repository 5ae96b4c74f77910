import Foundation
import Testing

/// Waits until `condition` holds, checking every few milliseconds, or records a failure after
/// `timeout`: for what another thread or process makes true (a live query refreshed, a hub
/// process caught up), never to wait out a duration.
///
/// ```swift
/// try database.write { … }
/// eventually { notes.count == 3 }
/// ```
public func eventually(
  timeout: Duration = .seconds(10), sourceLocation: SourceLocation = #_sourceLocation,
  _ condition: () throws -> Bool
) rethrows {
  let deadline = ContinuousClock.now + timeout
  while try !condition() {
    if ContinuousClock.now > deadline {
      Issue.record("condition not met within \(timeout)", sourceLocation: sourceLocation)
      return
    }
    Thread.sleep(forTimeInterval: 0.002)
  }
}

/// The `async` form of `eventually`: it yields between checks instead of blocking a thread.
public func eventually(
  timeout: Duration = .seconds(10), sourceLocation: SourceLocation = #_sourceLocation,
  isolation: isolated (any Actor)? = #isolation, _ condition: () -> Bool
) async throws {
  let deadline = ContinuousClock.now + timeout
  while !condition() {
    if ContinuousClock.now > deadline {
      Issue.record("condition not met within \(timeout)", sourceLocation: sourceLocation)
      return
    }
    try await Task.sleep(for: .milliseconds(2))
  }
}

/// A directory under the system's temporary folder, removed when the value goes.
///
/// ```swift
/// let directory = try TemporaryDirectory()
/// let database = try DatabasePool(path: directory.path("db.sqlite"))
/// ```
public final class TemporaryDirectory: Sendable {
  public let url: URL

  public init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("hearth-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: url) }

  /// The path of `name` inside the directory.
  public func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}
