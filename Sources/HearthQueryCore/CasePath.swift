// Case paths: what `@CasePathable` gives an enum, so that code can name one of its cases the
// way a key path names a property — `\.image` — to test for it, extract its value, or (in
// an enum table) reach the column that stores it.

/// One case of `Root` holding a `Value`: how to make a `Root` of that case, and how to get
/// the value back out of one.
///
/// ```swift
/// @CasePathable enum Kind { case link(URL), note(String) }
/// let note = Kind.allCasePaths.note
/// note.embed("Hello!")          // .note("Hello!")
/// note.extract(from: .link(u))  // nil
/// ```
public struct AnyCasePath<Root, Value>: Sendable, Hashable {
  /// The case's name.
  public let name: String
  private let _embed: @Sendable (Value) -> Root
  private let _extract: @Sendable (Root) -> Value?

  public init(
    _ name: String, embed: @escaping @Sendable (Value) -> Root,
    extract: @escaping @Sendable (Root) -> Value?
  ) {
    self.name = name
    self._embed = embed
    self._extract = extract
  }

  /// A value of this case.
  public func embed(_ value: Value) -> Root { _embed(value) }

  /// The value, when `root` is of this case.
  public func extract(from root: Root) -> Value? { _extract(root) }

  // Two paths of the same `Root` and `Value` are the same case when their names are.
  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name }
  public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// An enum whose cases can be named by case paths. `@CasePathable` writes the conformance.
///
/// ```swift
/// @CasePathable @dynamicMemberLookup
/// enum Kind { case link(URL), note(String) }
/// kind.is(\.note)        // Bool
/// kind[case: \.link]     // URL?
/// kind.link              // URL? (with @dynamicMemberLookup)
/// ```
public protocol CasePathable {
  /// One `AnyCasePath` property per case.
  associatedtype AllCasePaths: Sendable
  static var allCasePaths: AllCasePaths { get }
}

extension CasePathable {
  /// Whether this value is of the case `keyPath` names.
  public func `is`<Value>(_ keyPath: KeyPath<AllCasePaths, AnyCasePath<Self, Value>>) -> Bool {
    Self.allCasePaths[keyPath: keyPath].extract(from: self) != nil
  }

  /// The value of the case `keyPath` names, or nil when this value is of another case.
  public subscript<Value>(case keyPath: KeyPath<AllCasePaths, AnyCasePath<Self, Value>>) -> Value? {
    Self.allCasePaths[keyPath: keyPath].extract(from: self)
  }

  /// The value of the case `path` is; a subscript so that key paths can reach it.
  public subscript<Value>(case path: AnyCasePath<Self, Value>) -> Value? {
    path.extract(from: self)
  }

  /// `kind.note`: the value of that case, or nil (when the enum is `@dynamicMemberLookup`).
  public subscript<Value>(dynamicMember keyPath: KeyPath<AllCasePaths, AnyCasePath<Self, Value>>)
    -> Value?
  {
    Self.allCasePaths[keyPath: keyPath].extract(from: self)
  }
}
