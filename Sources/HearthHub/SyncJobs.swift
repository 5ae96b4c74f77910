import Dispatch
import HearthSQLite
import HearthSync
import HearthTransport

/// The sync service's writes, handed to the hub's loop (the one user of the writer) and run
/// there between requests, each as a commit of origin `sync`; the service's thread waits for
/// each. Once the loop ends (`close`), a write fails at once.
final class SyncJobs: SyncWriter {
  struct Job: Sendable {
    let body: @Sendable (Database) throws -> Void
    let finish: @Sendable ((any Error)?) -> Void
  }

  /// Rung when a job is queued; the loop waits on it beside its socket.
  let bell: Doorbell
  private let state = Locked<(jobs: [Job], isClosed: Bool)>(([], false))

  /// Makes the commits so far durable (the hub's syncer, from the service's thread).
  private let durability: @Sendable () throws -> Void

  init(makeDurable: @escaping @Sendable () throws -> Void) throws {
    bell = try Doorbell()
    durability = makeDurable
  }

  func makeDurable() throws { try durability() }

  func write<T: Sendable>(_ job: @escaping @Sendable (Database) throws -> T) throws -> T {
    let result = Locked<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    let queued = Job(
      body: { db in
        let value = try job(db)
        result.withLock { $0 = .success(value) }
      },
      finish: { error in
        if let error { result.withLock { $0 = .failure(error) } }
        done.signal()
      })
    let accepted = state.withLock { state in
      guard !state.isClosed else { return false }
      state.jobs.append(queued)
      return true
    }
    guard accepted else { throw HubError("the hub is stopping") }
    bell.ring()
    done.wait()
    return try result.withLock { $0! }.get()
  }

  /// The jobs queued so far.
  func take() -> [Job] {
    state.withLock { state in
      defer { state.jobs.removeAll() }
      return state.jobs
    }
  }

  /// Fails what is queued and every later write.
  func close() {
    let left = state.withLock { state in
      state.isClosed = true
      defer { state.jobs.removeAll() }
      return state.jobs
    }
    for job in left { job.finish(HubError("the hub is stopping")) }
  }
}
