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
  /// The value in tests. Defaults to `liveValue`.
  static var testValue: Value { get }
  /// The value in previews and demos. Defaults to `liveValue`.
  static var previewValue: Value { get }
}

extension DependencyKey {
  public static var testValue: Value { liveValue }
  public static var previewValue: Value { liveValue }
}
