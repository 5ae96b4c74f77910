import Dispatch
import Foundation
import HearthSupport

/// Something that runs until it is asked to stop: the hub's request loop, its checkpointer,
/// the watchdog, a feature's duties.
public protocol Service: Sendable {
  /// For the log: `hub`, `watchdog`, `duties`.
  var name: String { get }
  /// Runs until `stop()` (or until it is done). Blocks its thread.
  func run() throws
  /// Asks `run` to return soon; called from another thread.
  func stop()
}

/// A loop as a service: `body` runs on the service's thread and waits with `wait(for:)`,
/// which returns false as soon as the service is asked to stop.
///
/// ```swift
/// let watchdog = LoopService("watchdog") { loop in
///   while loop.wait(for: .seconds(5)) { notifier.notify("WATCHDOG=1") }
/// }
/// ```
public final class LoopService: Service {
  public let name: String
  private let body: @Sendable (LoopService) throws -> Void
  private let stopping = DispatchSemaphore(value: 0)
  private let stopped = Locked(false)

  public init(_ name: String, body: @escaping @Sendable (LoopService) throws -> Void) {
    self.name = name
    self.body = body
  }

  public func run() throws { try body(self) }

  public func stop() {
    let first = stopped.withLock { stopped in
      defer { stopped = true }
      return !stopped
    }
    if first { stopping.signal() }
  }

  /// Whether the service has been asked to stop.
  public var isStopping: Bool { stopped.withLock { $0 } }

  /// Waits `duration`; false when the service was asked to stop meanwhile (or before).
  public func wait(for duration: Duration) -> Bool {
    guard !isStopping else { return false }
    let seconds =
      Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    guard stopping.wait(timeout: .now() + seconds) == .success else { return true }
    stopping.signal()  // every later wait returns at once too
    return false
  }
}

/// A service that failed: which one, and its error.
public struct ServiceFailure: Error, CustomStringConvertible, Sendable {
  public var service: String
  /// What the service threw.
  public var error: any Error
  public var message: String { "\(error)" }
  public var description: String { "\(service): \(message)" }
}

/// Runs services together, each on a thread of its own, and stops them together: when a
/// signal of `signals` arrives, or when one of them returns or fails, the services are
/// stopped in the order given, each once the one before it has ended (so a service may
/// rely, until it ends, on every service after it), and the group waits for all of them.
/// The first failure is rethrown as a `ServiceFailure`.
///
/// ```swift
/// try ServiceGroup([hubService, watchdog], logger: Logger(label: "hearthd")).run()
/// ```
public struct ServiceGroup: Sendable {
  public let services: [any Service]
  public let signals: [Int32]
  public let logger: Logger
  /// How long the group waits for its services to end once asked to stop; nil waits as long
  /// as they take. Past it the group ends regardless (the process is about to exit).
  public let grace: Duration?

  public init(
    _ services: [any Service], signals: [Int32] = [SIGTERM, SIGINT], logger: Logger,
    grace: Duration? = nil
  ) {
    self.services = services
    self.signals = signals
    self.logger = logger
    self.grace = grace
  }

  /// Runs until every service has ended (see the type's documentation).
  public func run() throws {
    try start().wait()
  }

  /// Starts the services and returns at once; `Running.wait()` waits for the end.
  public func start() -> Running {
    let running = Running(self)
    running.begin()
    return running
  }

  /// A started group, waited for by the thread that started it.
  public final class Running {
    /// What the services' threads and the signal handlers share with the group.
    private struct Shared: Sendable {
      /// Signalled when the group should stop (a signal, a service that ended).
      let shouldStop = DispatchSemaphore(value: 0)
      /// One for each service, signalled when it has ended.
      let ended: [DispatchSemaphore]
      let failure = Locked<ServiceFailure?>(nil)
    }

    private let group: ServiceGroup
    private let shared: Shared
    private var sources: [any DispatchSourceSignal] = []
    private var hasEnded = false

    init(_ group: ServiceGroup) {
      self.group = group
      shared = Shared(ended: group.services.map { _ in DispatchSemaphore(value: 0) })
    }

    func begin() {
      let (shared, logger) = (shared, group.logger)
      for number in group.signals {
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler {
          logger.info("stopping (signal \(number))")
          shared.shouldStop.signal()
        }
        source.resume()
        sources.append(source)
      }
      for (service, ended) in zip(group.services, shared.ended) {
        let thread = Thread {
          do {
            try service.run()
          } catch {
            logger.error("\(service.name): \(error)")
            let failed = ServiceFailure(service: service.name, error: error)
            shared.failure.withLock { $0 = $0 ?? failed }
          }
          shared.shouldStop.signal()
          ended.signal()
        }
        thread.name = service.name
        thread.start()
      }
    }

    /// Asks the group to stop (as a signal would).
    public func stop() { shared.shouldStop.signal() }

    /// Waits until the group is asked to stop, stops every service in order, waits for all
    /// to end, and rethrows the first failure. Once the group has ended, returns at once.
    public func wait() throws {
      guard !hasEnded else { return }
      hasEnded = true
      if !group.services.isEmpty { shared.shouldStop.wait() }
      let deadline = group.grace.map { grace in
        DispatchTime.now()
          + Double(grace.components.seconds) + Double(grace.components.attoseconds) / 1e18
      }
      // Past the grace, the rest are asked to stop without waiting for them.
      var late = false
      for (service, ended) in zip(group.services, shared.ended) {
        service.stop()
        guard !late else { continue }
        if ended.wait(timeout: deadline ?? .distantFuture) == .timedOut {
          group.logger.warning(
            "\(service.name) did not end within \(group.grace!) of the stop; leaving it")
          late = true
        }
      }
      for source in sources { source.cancel() }
      sources.removeAll()
      if let failure = shared.failure.withLock({ $0 }) { throw failure }
    }
  }
}
