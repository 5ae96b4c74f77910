import CSQLite
import Foundation

/// The running state of an aggregate function over one group of rows.
public protocol DatabaseAggregate: AnyObject {
  /// Takes one row's arguments.
  func step(_ values: [DatabaseValue]) throws
  /// The group's result.
  func finish() throws -> DatabaseValue
}

extension Database {
  /// Adds an aggregate function to this connection (replacing one of the same name and
  /// argument count). `makeState` makes the state of each group; an error thrown by a step
  /// or by the finish fails the statement with the error's description.
  ///
  /// ```swift
  /// db.addAggregate("product", argumentCount: 1) { Product() }
  /// ```
  public func addAggregate(
    _ name: String, argumentCount: Int32, isDeterministic: Bool = false,
    makeState: @escaping @Sendable () -> any DatabaseAggregate
  ) {
    let flags = SQLITE_UTF8 | (isDeterministic ? SQLITE_DETERMINISTIC : 0)
    let box = Unmanaged.passRetained(AggregateFactory(makeState)).toOpaque()
    sqlite3_create_function_v2(
      sqliteConnection, name, argumentCount, flags, box, nil,
      { context, count, arguments in
        guard let state = groupState(context, make: { makeGroup(context) }) else {
          sqlite3_result_error_nomem(context)
          return
        }
        guard state.error == nil else { return }
        let values = (0..<Int(count)).map { Row.value(arguments![$0]) }
        do {
          try state.aggregate.step(values)
        } catch {
          state.error = "\(error)"
        }
      },
      { context in
        // A group of no rows has had no step: its state is made here.
        let state = takeGroupState(context, as: AggregateGroup.self) ?? makeGroup(context)
        if let error = state.error {
          sqlite3_result_error(context, error, Int32(error.utf8.count))
          return
        }
        do {
          setResult(try state.aggregate.finish(), context)
        } catch {
          let message = "\(error)"
          sqlite3_result_error(context, message, Int32(message.utf8.count))
        }
      },
      { box in box.map { Unmanaged<AggregateFactory>.fromOpaque($0).release() } })
  }
}

/// Makes each group's state; SQLite keeps it as the function's user data.
private final class AggregateFactory {
  let make: @Sendable () -> any DatabaseAggregate
  init(_ make: @escaping @Sendable () -> any DatabaseAggregate) { self.make = make }
}

/// A new group's state, from the function's factory (SQLite's user data).
private func makeGroup(_ context: OpaquePointer?) -> AggregateGroup {
  let factory = Unmanaged<AggregateFactory>.fromOpaque(sqlite3_user_data(context))
    .takeUnretainedValue()
  return AggregateGroup(factory.make())
}

/// A group's state and the first error a step threw.
private final class AggregateGroup {
  let aggregate: any DatabaseAggregate
  var error: String?
  init(_ aggregate: any DatabaseAggregate) { self.aggregate = aggregate }
}

/// An aggregate's state for one group: a retained object whose address SQLite keeps in the
/// group's aggregate context, made by `make` at the group's first call (nil when SQLite has
/// no memory for the context).
func groupState<State: AnyObject>(_ context: OpaquePointer?, make: () -> State) -> State? {
  guard
    let raw = sqlite3_aggregate_context(context, Int32(MemoryLayout<UnsafeMutableRawPointer?>.size))
  else { return nil }
  let slot = raw.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
  if slot.pointee == nil { slot.pointee = Unmanaged.passRetained(make()).toOpaque() }
  return Unmanaged<State>.fromOpaque(slot.pointee!).takeUnretainedValue()
}

/// The group's state, taken out of its context (the final call releases it): nil for a
/// group that made none.
func takeGroupState<State: AnyObject>(_ context: OpaquePointer?, as type: State.Type) -> State? {
  guard let raw = sqlite3_aggregate_context(context, 0) else { return nil }
  let slot = raw.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
  guard let pointer = slot.pointee else { return nil }
  slot.pointee = nil
  return Unmanaged<State>.fromOpaque(pointer).takeRetainedValue()
}
