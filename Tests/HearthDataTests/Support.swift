import Foundation
import HearthData
import Synchronization
import Testing

@Table
struct Fact: Identifiable, Equatable {
  let id: Int
  var body: String
}

@Table
struct Note: Identifiable, Equatable {
  let id: Int
  var text = ""
}

// From the seeds: an in-memory database for tests.
extension DatabaseWriter where Self == DatabaseQueue {
  static var testDatabase: Self {
    let databaseQueue = try! DatabaseQueue()
    var migrator = DatabaseMigrator()
    migrator.registerMigration("Create tables") { db in
      try #sql(
        """
        CREATE TABLE "facts" (
          "id" INTEGER PRIMARY KEY AUTOINCREMENT,
          "body" TEXT NOT NULL
        ) STRICT
        """
      )
      .execute(db)
      try #sql(
        #"CREATE TABLE "notes" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "text" TEXT NOT NULL DEFAULT '') STRICT"#
      )
      .execute(db)
    }
    try! migrator.migrate(databaseQueue)
    return databaseQueue
  }
}

/// A WAL database with the same tables, on a temporary file (several connections).
func testPool() throws -> DatabasePool {
  let path = FileManager.default.temporaryDirectory
    .appendingPathComponent("hearth-data-\(UUID().uuidString).sqlite").path
  let pool = try DatabasePool(path: path)
  try pool.write { db in
    try #sql(
      """
      CREATE TABLE "facts" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "body" TEXT NOT NULL) STRICT;
      CREATE TABLE "notes" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "text" TEXT NOT NULL DEFAULT '') STRICT;
      """
    ).execute(db)
  }
  return pool
}

/// Counts calls, from any thread.
final class Counter: Sendable {
  private let count = Atomic<Int>(0)
  func increment() { count.add(1, ordering: .relaxed) }
  var value: Int { count.load(ordering: .relaxed) }
}
