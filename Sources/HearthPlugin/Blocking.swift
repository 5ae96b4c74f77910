import Dispatch
import HearthSupport

/// Runs `body` to its end and returns its result, blocking the calling thread: for a
/// command-line command (synchronous) that calls the reference's `async` API, such as
/// `syncEngine.share(record:)`. Never call it on a thread a task of `body` needs.
public func waitFor<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
  let result = Locked<Result<T, any Error>?>(nil)
  let done = DispatchSemaphore(value: 0)
  Task {
    let outcome: Result<T, any Error>
    do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
    result.withLock { $0 = outcome }
    done.signal()
  }
  done.wait()
  return try result.withLock { $0! }.get()
}
