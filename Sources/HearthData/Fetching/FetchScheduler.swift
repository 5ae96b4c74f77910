import Dispatch

/// Where fetched values are delivered to a `@FetchAll`, `@FetchOne` or `@Fetch`.
///
/// ```swift
/// @FetchAll(Item.all, scheduler: .immediate) var items   // on the fetching thread
/// ```
public struct FetchScheduler: Sendable {
  private let schedule: @Sendable (@escaping @Sendable () -> Void) -> Void

  public init(_ schedule: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
    self.schedule = schedule
  }

  /// The main actor (the main dispatch queue): the default, as UI code expects. A program
  /// must let the main actor run (an `async` main does) for values to arrive.
  public static let main = FetchScheduler { action in DispatchQueue.main.async(execute: action) }

  /// Right away, on the thread that fetched the value.
  public static let immediate = FetchScheduler { action in action() }

  /// On `queue`.
  public static func dispatch(_ queue: DispatchQueue) -> FetchScheduler {
    FetchScheduler { action in queue.async(execute: action) }
  }

  func callAsFunction(_ action: @escaping @Sendable () -> Void) { schedule(action) }
}
