import Foundation
import HearthSupport

/// The dependencies of the current task: values set with `withDependencies` (for this task
/// and its children), else with `prepareDependencies` (for the process), else the key's
/// value for the current context, created once and shared.
///
/// ```swift
/// @Dependency(\.defaultDatabase) var database
/// @Dependency(\.date.now) var now
/// ```
public struct DependencyValues: Sendable {
  /// The values set on top of the defaults, by key.
  private var storage: [ObjectIdentifier: any Sendable] = [:]
  /// Set by `@Dependency` as it reads: only a read by the code under test reports a live
  /// value reached from a test (setting one through a key path reads it too).
  var isReadByDependency = false

  public init() {}

  /// The dependencies the current task sees.
  public static var current: DependencyValues {
    var values = prepared.withLock { $0 }
    values.merge(taskLocal)
    return values
  }

  @TaskLocal static var taskLocal = DependencyValues()
  static let prepared = Locked(DependencyValues())
  /// Default values already created, per context, so that a key's default (a database, a
  /// client) is one shared instance.
  static let defaults = Locked([DependencyContext: [ObjectIdentifier: any Sendable]]())

  mutating func merge(_ other: DependencyValues) {
    storage.merge(other.storage) { $1 }
  }

  func storedValue<Key: DependencyKey>(for key: Key.Type) -> Key.Value? {
    storage[ObjectIdentifier(key)] as? Key.Value
  }

  public subscript<Key: DependencyKey>(key: Key.Type) -> Key.Value {
    get {
      if let value = storedValue(for: key) { return value }
      let context = context
      let value = Self.defaultValue(for: key, in: context)
      if isReadByDependency, context == .test,
        Self.liveInTests.withLock({ $0.contains(ObjectIdentifier(key)) })
      {
        errorReporter(
          UnimplementedDependency(key: "\(Key.self)"),
          message: nil, file: "HearthDependencies/DependencyValues.swift", line: #line)
      }
      return value
    }
    set { storage[ObjectIdentifier(key)] = newValue }
    // A change through the value (`$0.date.now = …`) reads it without reporting it: the test
    // sets it.
    _modify {
      var value = storedValue(for: key) ?? Self.defaultValue(for: key, in: context)
      yield &value
      storage[ObjectIdentifier(key)] = value
    }
  }

  /// Keys whose default in tests is their live value (they have no `testValue`).
  static let liveInTests = Locked(Set<ObjectIdentifier>())

  /// Set while a key's default is made: a default `testValue` marks it.
  @TaskLocal static var resolution: Resolution?

  final class Resolution: Sendable {
    private let used = Locked(false)
    func usedLiveValue() { used.withLock { $0 = true } }
    var usedLive: Bool { used.withLock { $0 } }
  }

  static func defaultValue<Key: DependencyKey>(for key: Key.Type, in context: DependencyContext)
    -> Key.Value
  {
    if let value = defaults.withLock({ $0[context]?[ObjectIdentifier(key)] }) as? Key.Value {
      return value
    }
    // Built outside the lock: a value may read other dependencies while it is created.
    let value: Key.Value
    switch context {
    case .live: value = Key.liveValue
    case .test:
      let resolution = Resolution()
      value = $resolution.withValue(resolution) { Key.testValue }
      if resolution.usedLive { liveInTests.withLock { _ = $0.insert(ObjectIdentifier(key)) } }
    case .preview: value = Key.previewValue
    }
    return defaults.withLock { defaults in
      if let existing = defaults[context]?[ObjectIdentifier(key)] as? Key.Value { return existing }
      defaults[context, default: [:]][ObjectIdentifier(key)] = value
      return value
    }
  }
}

/// Sets dependencies for the whole process, typically once at start-up:
///
/// ```swift
/// prepareDependencies { $0.defaultDatabase = try! appDatabase() }
/// ```
public func prepareDependencies<R>(_ update: (inout DependencyValues) throws -> R) rethrows -> R {
  var values = DependencyValues.prepared.withLock { $0 }
  values.merge(DependencyValues.taskLocal)
  let result = try update(&values)
  DependencyValues.prepared.withLock { $0 = values }
  return result
}

/// Runs `operation` with some dependencies changed, for it and the tasks it starts.
///
/// ```swift
/// try withDependencies {
///   $0.defaultDatabase = try DatabaseQueue()
///   $0.date.now = Date(timeIntervalSince1970: 0)
/// } operation: {
///   try model.refresh()
/// }
/// ```
public func withDependencies<R>(
  _ update: (inout DependencyValues) throws -> Void, operation: () throws -> R
) rethrows -> R {
  var values = DependencyValues.taskLocal
  try update(&values)
  return try DependencyValues.$taskLocal.withValue(values, operation: operation)
}

/// The `async` form of `withDependencies`.
public func withDependencies<R>(
  isolation: isolated (any Actor)? = #isolation,
  _ update: (inout DependencyValues) async throws -> Void,
  operation: () async throws -> R
) async rethrows -> R {
  var values = DependencyValues.taskLocal
  try await update(&values)
  return try await DependencyValues.$taskLocal.withValue(values, operation: operation)
}

/// A dependency without a test value, reached from a test that did not set it.
public struct UnimplementedDependency: Error, CustomStringConvertible, Sendable {
  public var key: String
  public var description: String {
    "@Dependency(\(key)) has no test value and was not set: the test used the live value. "
      + "Set it with withDependencies { … } or the .dependency trait."
  }
}
