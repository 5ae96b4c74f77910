import Foundation
import Synchronization

/// Makes UUIDs: `@Dependency(\.uuid) var uuid` then `uuid()`.
///
/// ```swift
/// withDependencies { $0.uuid = .incrementing } operation: { … }
/// // 00000000-0000-0000-0000-000000000000, …-000000000001, …
/// ```
public struct UUIDGenerator: Sendable {
  private let generate: @Sendable () -> UUID

  public init(_ generate: @escaping @Sendable () -> UUID) { self.generate = generate }

  /// Random (version 4) UUIDs.
  public static let random = UUIDGenerator { UUID() }

  /// `00000000-0000-0000-0000-000000000000`, then `…001`, `…002`: for deterministic tests.
  /// Each use of `.incrementing` starts its own count.
  public static var incrementing: UUIDGenerator {
    let counter = Atomic<UInt64>(0)
    return UUIDGenerator {
      UUID(counter.add(1, ordering: .relaxed).oldValue)
    }
  }

  /// Always `uuid`.
  public static func constant(_ uuid: UUID) -> UUIDGenerator { UUIDGenerator { uuid } }

  public func callAsFunction() -> UUID { generate() }
}

private enum UUIDGeneratorKey: DependencyKey {
  static let liveValue = UUIDGenerator.random
}

extension DependencyValues {
  /// Where new UUIDs come from.
  public var uuid: UUIDGenerator {
    get { self[UUIDGeneratorKey.self] }
    set { self[UUIDGeneratorKey.self] = newValue }
    _modify { yield &self[UUIDGeneratorKey.self] }
  }
}

extension UUID {
  /// The UUID whose last twelve hexadecimal digits are `value` and the rest zero:
  /// `UUID(1)` is `00000000-0000-0000-0000-000000000001`, as `.incrementing` makes them (and
  /// as tests write fixed ones).
  public init<Value: BinaryInteger>(_ value: Value) {
    let number = UInt64(truncatingIfNeeded: value) & 0xFFFF_FFFF_FFFF
    self.init(uuidString: String(format: "00000000-0000-0000-0000-%012llx", number))!
  }
}
