import Foundation
import HearthData
import HearthDataTestSupport
import Testing

struct Greeter: Sendable {
  var greet: @Sendable (String) -> String
}

enum GreeterKey: DependencyKey {
  static let liveValue = Greeter { "Hello, \($0)!" }
  static let testValue = Greeter { "test: \($0)" }
  static let previewValue = Greeter { "preview: \($0)" }
}

extension DependencyValues {
  var greeter: Greeter {
    get { self[GreeterKey.self] }
    set { self[GreeterKey.self] = newValue }
  }
}

/// A user-defined key whose live value is a shared object, to check it is made once.
final class Registry: Sendable {}

enum RegistryKey: DependencyKey {
  static var liveValue: Registry { Registry() }
  static var testValue: Registry { Registry() }
}

extension DependencyValues {
  var registry: Registry {
    get { self[RegistryKey.self] }
    set { self[RegistryKey.self] = newValue }
  }
}

@Suite struct DependencyTests {
  @Test func testsRunInTheTestContext() {
    @Dependency(\.context) var context
    #expect(context == .test)
    @Dependency(\.greeter) var greeter
    #expect(greeter.greet("Blob") == "test: Blob")
  }

  @Test func contextPicksTheDefault() {
    for (context, expected) in [
      (DependencyContext.live, "Hello, Blob!"), (.test, "test: Blob"), (.preview, "preview: Blob"),
    ] {
      withDependencies {
        $0.context = context
      } operation: {
        @Dependency(\.greeter) var greeter
        #expect(greeter.greet("Blob") == expected)
      }
    }
  }

  @Test func defaultsAreMadeOnceAndShared() {
    @Dependency(\.registry) var first
    @Dependency(\.registry) var second
    #expect(first === second)
  }

  @Test func withDependenciesOverridesForTheOperationOnly() async {
    @Dependency(\.greeter) var greeter
    withDependencies {
      $0.greeter = Greeter { "custom \($0)" }
    } operation: {
      #expect(greeter.greet("x") == "custom x")
    }
    #expect(greeter.greet("x") == "test: x")
    await withDependencies {
      $0.greeter = Greeter { "async \($0)" }
    } operation: {
      await Task.yield()
      #expect(greeter.greet("x") == "async x")
      // Child tasks inherit the override.
      let fromChild = await Task {
        @Dependency(\.greeter) var inChild
        return inChild.greet("y")
      }.value
      #expect(fromChild == "async y")
    }
  }

  @Test func aWrapperMadeInsideWithDependenciesKeepsTheOverride() {
    let held = withDependencies {
      $0.greeter = Greeter { "held \($0)" }
    } operation: {
      Dependency(\.greeter)
    }
    #expect(held.wrappedValue.greet("z") == "held z")
  }

  @Test func dateAndUUIDGenerators() {
    let fixed = Date(timeIntervalSince1970: 1_234_567_890)
    withDependencies {
      $0.date.now = fixed
      $0.uuid = .incrementing
    } operation: {
      @Dependency(\.date.now) var now
      @Dependency(\.date) var date
      @Dependency(\.uuid) var uuid
      #expect(now == fixed)
      #expect(date() == fixed)
      #expect(uuid() == UUID(uuidString: "00000000-0000-0000-0000-000000000000"))
      #expect(uuid() == UUID(uuidString: "00000000-0000-0000-0000-000000000001"))
      #expect(uuid() == UUID(2))
    }
    #expect(UUID(0xdead_beef) == UUID(uuidString: "00000000-0000-0000-0000-0000deadbeef"))
    withDependencies {
      $0.uuid = .random
    } operation: {
      @Dependency(\.uuid) var random
      #expect(random() != random())
    }
  }

  @Test func parallelTasksSeeTheirOwnDatabase() async throws {
    try await withThrowingTaskGroup(of: Int.self) { group in
      for index in 0..<8 {
        group.addTask {
          try await withDependencies {
            $0.defaultDatabase = DatabaseQueue.testDatabase
          } operation: {
            @Dependency(\.defaultDatabase) var database
            try await database.write { db in
              for _ in 0...index { try Fact.insert { Fact.Draft(body: "\(index)") }.execute(db) }
            }
            try await Task.sleep(for: .milliseconds(5))
            return try await database.read { db in try Fact.fetchCount(db) } - index
          }
        }
      }
      for try await difference in group { #expect(difference == 1) }
    }
  }
}

@Suite struct DependencyTraitTests {
  @Test(.dependency(\.greeter, Greeter { "trait \($0)" }))
  func theTraitSetsADependency() {
    @Dependency(\.greeter) var greeter
    #expect(greeter.greet("a") == "trait a")
  }

  @Test(.dependency(\.defaultDatabase, try appDatabase()))
  func feature() throws {
    @Dependency(\.defaultDatabase) var database
    let count = try database.read { db in try Fact.fetchCount(db) }
    #expect(count == 0)
    #expect(database is DatabasePool)  // a file of its own in the test context
  }

  @Test(.dependency(\.defaultDatabase, DatabaseQueue.testDatabase))
  func errorsReportedInATestFailIt() async {
    withKnownIssue {
      withErrorReporting {
        try DatabaseQueue().read { db in try #sql("SELECT * FROM nowhere", as: Int.self).execute(db)
        }
      }
    }
    await withKnownIssue {
      await withErrorReporting("saving") {
        @Dependency(\.defaultDatabase) var database
        try await database.write { db in try #sql("INSERT INTO nowhere VALUES (1)").execute(db) }
      }
    }
  }
}

/// The seeds' `appDatabase()`, on `defaultDatabase(configuration:)`.
func appDatabase() throws -> any DatabaseWriter {
  var configuration = Configuration()
  configuration.foreignKeysEnabled = true
  let database = try defaultDatabase(configuration: configuration)
  var migrator = DatabaseMigrator()
  migrator.registerMigration("Create tables") { db in
    try #sql(
      #"CREATE TABLE "facts" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "body" TEXT NOT NULL) STRICT"#
    )
    .execute(db)
  }
  try migrator.migrate(database)
  return database
}

@Suite struct DefaultDatabaseTests {
  @Test func eachContextOpensTheRightKindOfDatabase() throws {
    let test = try defaultDatabase()
    #expect(test is DatabasePool)
    #expect(test.path.hasPrefix(FileManager.default.temporaryDirectory.path))
    #expect(test.path != (try defaultDatabase()).path)

    let preview = try withDependencies {
      $0.context = .preview
    } operation: {
      try defaultDatabase()
    }
    #expect(preview is DatabaseQueue)
    #expect(preview.path == ":memory:")

    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("hearth-live-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let live = try withDependencies {
      $0.context = .live
    } operation: {
      try defaultDatabase(path: directory.appendingPathComponent("data/db.sqlite").path)
    }
    #expect(live is DatabasePool)
    let attributes = try FileManager.default.attributesOfItem(
      atPath: directory.appendingPathComponent("data").path)
    #expect((attributes[.posixPermissions] as? Int) == 0o700)
  }

  @Test func errorReportingReturnsNilAndReports() {
    let reported = Counter()
    let result: Int? = withDependencies {
      $0.errorReporter = ErrorReporter { _, _, _, _ in reported.increment() }
    } operation: {
      withErrorReporting { () throws -> Int in throw DatabaseError(message: "boom") }
    }
    #expect(result == nil)
    #expect(reported.value == 1)
    #expect(withErrorReporting { 7 } == 7)
  }
}

enum StartupMessageKey: DependencyKey {
  static let liveValue = "not prepared"
}

extension DependencyValues {
  /// Only `preparedValuesApplyToTheWholeProcess` sets this, so no other test depends on it.
  var startupMessage: String {
    get { self[StartupMessageKey.self] }
    set { self[StartupMessageKey.self] = newValue }
  }
}

@Suite struct PrepareDependenciesTests {
  @Test func preparedValuesApplyToTheWholeProcess() async {
    prepareDependencies { $0.startupMessage = "prepared at start-up" }
    @Dependency(\.startupMessage) var message
    #expect(message == "prepared at start-up")
    let fromDetachedTask = await Task.detached {
      @Dependency(\.startupMessage) var message
      return message
    }.value
    #expect(fromDetachedTask == "prepared at start-up")
    withDependencies {
      $0.startupMessage = "overridden"
    } operation: {
      #expect(message == "overridden")
    }
  }
}

@Suite struct ClockAndTestValueTests {
  @Test func aTestClockStandsStillUntilAdvancedAndWakesItsSleepersInOrder() async throws {
    let clock = TestClock()
    let start = clock.now
    let woken = Locked<[String]>([])
    let late = Task {
      try await clock.sleep(until: start.advanced(by: .seconds(10)))
      woken.withLock { $0.append("10 s") }
    }
    let early = Task {
      try await clock.sleep(until: start.advanced(by: .seconds(1)))
      woken.withLock { $0.append("1 s") }
    }
    // Both are asleep before the clock moves (yielding until they are registered).
    while clock.sleepersCount < 2 { await Task.yield() }
    #expect(woken.withLock { $0 } == [])
    clock.advance(by: .seconds(1))
    try await early.value
    #expect(woken.withLock { $0 } == ["1 s"])
    clock.advance(by: .seconds(9))
    try await late.value
    #expect(woken.withLock { $0 } == ["1 s", "10 s"])
    #expect(start.duration(to: clock.now) == .seconds(10))
    // A deadline already passed returns at once.
    try await clock.sleep(until: start)
    let stopwatch = Stopwatch(clock)
    clock.advance(by: .milliseconds(1_500))
    #expect(stopwatch.elapsed == .milliseconds(1_500))
  }

  @Test func aLiveValueReachedFromATestIsReported() {
    let reports = Locked<[String]>([])
    withDependencies {
      $0.context = .test
      $0.errorReporter = ErrorReporter { error, _, _, _ in
        reports.withLock { $0.append("\(error)") }
      }
    } operation: {
      @Dependency(\.date) var date
      @Dependency(\.continuousClock) var clock
      _ = date.now
      _ = clock.now
      #expect(reports.withLock { $0.count } == 2)
      #expect(reports.withLock { $0.first?.contains("has no test value") } == true)
      // Set by the test: nothing to report.
      withDependencies {
        $0.date = .constant(Date(timeIntervalSince1970: 0))
      } operation: {
        #expect(date.now == Date(timeIntervalSince1970: 0))
      }
      #expect(reports.withLock { $0.count } == 2)
      // A key with a test value of its own is not reported.
      @Dependency(\.defaultDatabase) var database
      _ = database
      #expect(reports.withLock { $0.count } == 2)
    }
  }
}

@Suite struct LockIsolatedTests {
  @Test func manyTasksChangeOneValueWithoutLosingAChange() async {
    let count = LockIsolated(0)
    let names = LockIsolated([String]())
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<200 {
        group.addTask {
          count.withValue { $0 += 1 }
          names.withValue { $0.append("task \(index)") }
        }
      }
    }
    #expect(count.value == 200)
    #expect(names.count == 200)
    count.setValue(-1)
    #expect(count.withLock { $0 } == -1)
  }
}
