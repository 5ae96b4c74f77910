/// Reads a dependency: `@Dependency(\.defaultDatabase) var database`.
///
/// The value comes from the dependencies of the task that created the wrapper (so a model
/// made inside `withDependencies` keeps its overrides) and of the task reading it; it is
/// read on each access.
@propertyWrapper
public struct Dependency<Value: Sendable>: Sendable {
  private let keyPath: any KeyPath<DependencyValues, Value> & Sendable
  private let initialValues: DependencyValues

  public init(_ keyPath: any KeyPath<DependencyValues, Value> & Sendable) {
    self.keyPath = keyPath
    initialValues = DependencyValues.taskLocal
  }

  public var wrappedValue: Value {
    var values = DependencyValues.current
    values.merge(initialValues)
    values.merge(DependencyValues.taskLocal)
    values.isReadByDependency = true
    return values[keyPath: keyPath]
  }
}
