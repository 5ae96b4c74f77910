/// Several reads that belong together, fetched in one read transaction (one snapshot) and
/// observed as one value with `@Fetch`.
///
/// ```swift
/// struct Facts: FetchKeyRequest {
///   struct Value {
///     var facts: [Fact] = []
///     var count = 0
///   }
///   func fetch(_ db: Database) throws -> Value {
///     try Value(
///       facts: Fact.order { $0.id.desc() }.fetchAll(db),
///       count: Fact.fetchCount(db)
///     )
///   }
/// }
/// @Fetch(Facts()) var facts = Facts.Value()
/// ```
public protocol FetchKeyRequest<Value>: Hashable, Sendable {
  associatedtype Value: Sendable
  func fetch(_ db: Database) throws -> Value
}
