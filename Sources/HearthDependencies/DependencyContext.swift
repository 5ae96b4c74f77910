import Foundation

/// Where the program runs, which picks each dependency's default value.
public enum DependencyContext: String, Sendable, Hashable {
  /// A running program: real databases, real clocks.
  case live
  /// A test run: isolated temporary databases.
  case test
  /// A preview or demo: in-memory databases.
  case preview

  /// The context of this process: `HEARTH_CONTEXT` (`live`, `test`, `preview`) when set, else
  /// `test` inside a test runner, else `live`.
  public static let process: DependencyContext = {
    let environment = ProcessInfo.processInfo.environment
    if let name = environment["HEARTH_CONTEXT"], let context = DependencyContext(rawValue: name) {
      return context
    }
    let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").lastPathComponent
    let isTestRunner =
      executable.hasSuffix(".xctest")
      || environment["XCTestConfigurationFilePath"] != nil
      || CommandLine.arguments.contains("--testing-library")
    return isTestRunner ? .test : .live
  }()
}

private enum DependencyContextKey: DependencyKey {
  static var liveValue: DependencyContext { DependencyContext.process }
}

extension DependencyValues {
  /// The context: `.live`, `.test` or `.preview`. Every other default depends on it.
  public var context: DependencyContext {
    get { storedValue(for: DependencyContextKey.self) ?? DependencyContext.process }
    set { self[DependencyContextKey.self] = newValue }
  }
}
