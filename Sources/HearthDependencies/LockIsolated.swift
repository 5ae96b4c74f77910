import Foundation

/// A value shared between tasks and threads, read and changed under a lock: what a test
/// counts with from inside a `@Sendable` closure.
///
/// ```swift
/// let calls = LockIsolated(0)
/// let task = Task { calls.withValue { $0 += 1 } }
/// await task.value
/// #expect(calls.value == 1)
/// ```
@dynamicMemberLookup
public final class LockIsolated<Value>: @unchecked Sendable {
  // Safe: `storage` is read and written only while `lock` is held.
  private var storage: Value
  private let lock = NSRecursiveLock()

  public init(_ value: @autoclosure @Sendable () throws -> Value) rethrows {
    storage = try value()
  }

  /// The value now.
  public var value: Value {
    lock.lock()
    defer { lock.unlock() }
    return storage
  }

  public subscript<Subject: Sendable>(dynamicMember keyPath: KeyPath<Value, Subject>) -> Subject {
    lock.lock()
    defer { lock.unlock() }
    return storage[keyPath: keyPath]
  }

  /// Reads and changes the value in one hold of the lock.
  public func withValue<T: Sendable>(_ operation: @Sendable (inout Value) throws -> T) rethrows
    -> T
  {
    lock.lock()
    defer { lock.unlock() }
    var value = storage
    defer { storage = value }
    return try operation(&value)
  }

  /// Replaces the value.
  public func setValue(_ newValue: @autoclosure @Sendable () throws -> Value) rethrows {
    lock.lock()
    defer { lock.unlock() }
    storage = try newValue()
  }
}

extension LockIsolated where Value: Sendable {
  /// Changes the value, as `withValue` does, without requiring a `Sendable` result.
  public func withLock<T>(_ operation: (inout Value) throws -> T) rethrows -> T {
    lock.lock()
    defer { lock.unlock() }
    return try operation(&storage)
  }
}
