import Dispatch

/// One connection and the serial queue that is the only way to reach it.
final class SerializedConnection: @unchecked Sendable {
  // Safe to share: `database` is used only inside blocks run on `queue`, a serial queue,
  // so no two threads ever touch the connection at once.
  private let database: Database
  private let queue: DispatchQueue
  private static let owner = DispatchSpecificKey<ObjectIdentifier>()

  init(label: String, open: () throws -> Database) throws {
    database = try open()
    queue = DispatchQueue(label: label)
    queue.setSpecific(key: Self.owner, value: ObjectIdentifier(self))
  }

  /// Runs `block` with the connection, blocking the caller until it returns.
  func sync<T>(_ block: (Database) throws -> T) rethrows -> T {
    precondition(
      DispatchQueue.getSpecific(key: Self.owner) != ObjectIdentifier(self),
      "Database methods are not reentrant: this call was made inside a read or write closure "
        + "of the same connection; use the `db` argument of that closure instead.")
    return try queue.sync { try block(database) }
  }

  /// Runs `block` with the connection without blocking the caller's thread.
  func async<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      queue.async {
        continuation.resume(with: Result { try block(self.database) })
      }
    }
  }

  /// Schedules `block` and returns at once.
  func schedule(_ block: @escaping @Sendable (Database) -> Void) {
    queue.async { block(self.database) }
  }
}
