import HearthData
import Testing

/// Swift Testing traits that set dependencies for a test or a suite, the way SQLiteData's
/// tests do:
///
/// ```swift
/// @Test(.dependency(\.defaultDatabase, try appDatabase()))
/// func feature() { … }
/// ```
///
/// The value is made anew for each test (so parallel tests never share a database), and
/// inside the test `withErrorReporting` records its errors as test issues.
public struct DependencyTrait: TestTrait, SuiteTrait, TestScoping {
  let update: @Sendable (inout DependencyValues) throws -> Void

  public var isRecursive: Bool { true }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    // A suite's trait scopes each of its tests, not the suite as a whole.
    guard testCase != nil || !test.isSuite else {
      try await function()
      return
    }
    try await withDependencies {
      $0.context = .test
      $0.errorReporter = .testIssue
      try update(&$0)
    } operation: {
      try await function()
    }
  }
}

extension Trait where Self == DependencyTrait {
  /// Sets the dependency at `keyPath` to `value` (evaluated for each test).
  public static func dependency<Value: Sendable>(
    _ keyPath: any WritableKeyPath<DependencyValues, Value> & Sendable,
    _ value: @autoclosure @escaping @Sendable () throws -> Value
  ) -> Self {
    DependencyTrait { try $0[keyPath: keyPath] = value() }
  }

  /// Changes several dependencies.
  public static func dependencies(
    _ update: @escaping @Sendable (inout DependencyValues) throws -> Void
  ) -> Self {
    DependencyTrait(update: update)
  }
}

extension ErrorReporter {
  /// Records the error as an issue of the running test, which fails it.
  public static let testIssue = ErrorReporter { error, message, file, line in
    let prefix = message.map { "\($0): " } ?? ""
    Issue.record(
      "\(prefix)\(error)",
      sourceLocation: SourceLocation(
        fileID: file, filePath: file, line: line, column: 1))
  }
}
