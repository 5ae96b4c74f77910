#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A value behind a lock: what Hearth uses instead of the standard library's `Mutex`, with
/// the same `withLock`.
///
/// Why not `Mutex`: on Linux it takes its lock with raw futex calls inside the Swift
/// runtime, which ThreadSanitizer cannot see, so every access it protects is reported as a
/// race and `scripts/sanitize thread` could find nothing real. A `pthread_mutex_t` is
/// understood by ThreadSanitizer and costs the same when uncontended.
public final class Locked<Value: ~Copyable>: @unchecked Sendable {
  // Safe: `value` is only read or written between `pthread_mutex_lock` and
  // `pthread_mutex_unlock` of `mutex`, so one thread at a time; it comes in as `sending`
  // and results leave as `sending`, as with `Mutex`.
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private var value: Value

  public init(_ initialValue: consuming sending Value) {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
    value = initialValue
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  /// Runs `body` with the value, holding the lock.
  public func withLock<Result: ~Copyable, E: Error>(
    _ body: (inout sending Value) throws(E) -> sending Result
  ) throws(E) -> sending Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value)
  }
}
