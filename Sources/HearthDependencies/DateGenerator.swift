import Foundation

/// Gives the current date: `@Dependency(\.date.now) var now`, or `date()`.
///
/// ```swift
/// withDependencies { $0.date.now = Date(timeIntervalSince1970: 0) } operation: { … }
/// ```
public struct DateGenerator: Sendable {
  private let generate: @Sendable () -> Date

  public init(_ generate: @escaping @Sendable () -> Date) { self.generate = generate }

  /// The system clock.
  public static let system = DateGenerator { Date() }

  /// Always `date`.
  public static func constant(_ date: Date) -> DateGenerator { DateGenerator { date } }

  /// The current date; setting it makes the generator constant.
  public var now: Date {
    get { generate() }
    set { self = .constant(newValue) }
  }

  public func callAsFunction() -> Date { generate() }
}

private enum DateGeneratorKey: DependencyKey {
  static let liveValue = DateGenerator.system
}

extension DependencyValues {
  /// The current date.
  public var date: DateGenerator {
    get { self[DateGeneratorKey.self] }
    set { self[DateGeneratorKey.self] = newValue }
    _modify { yield &self[DateGeneratorKey.self] }
  }
}
