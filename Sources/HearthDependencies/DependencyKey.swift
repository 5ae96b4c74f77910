/// A key for a value in `DependencyValues`, with the value used in each context.
///
/// ```swift
/// struct APIClientKey: DependencyKey {
///   static let liveValue = APIClient.live
///   static let testValue = APIClient.mock
/// }
/// extension DependencyValues {
///   var apiClient: APIClient {
///     get { self[APIClientKey.self] }
///     set { self[APIClientKey.self] = newValue }
///   }
/// }
/// ```
public protocol DependencyKey: Sendable {
  associatedtype Value: Sendable
  /// The value in a running program.
  static var liveValue: Value { get }
  /// The value in tests. Without one, a test that reaches the dependency without setting it
  /// gets `liveValue` and a report to `errorReporter` (which fails the test under the
  /// `.dependency` traits of HearthDataTestSupport): a live clock or random UUID reached from
  /// a test is a bug in the test.
  static var testValue: Value { get }
  /// The value in previews and demos. Defaults to `liveValue`.
  static var previewValue: Value { get }
}

extension DependencyKey {
  public static var testValue: Value {
    DependencyValues.resolution?.usedLiveValue()
    return liveValue
  }
  public static var previewValue: Value { liveValue }
}
