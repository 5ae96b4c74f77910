// hearth-demo: a short tour of Hearth in one process, on a real WAL database.
//
//   hearth-demo [--data DIR]
//
// Until the hub exists this is the README's main job. It opens (or creates) a database in
// DIR (default: $XDG_DATA_HOME/hearth-demo, else ~/.local/share/hearth-demo), migrates it,
// and keeps a live list of reminders with @FetchAll while it writes; then it backs the
// database up online and checks the copy. docs/hearthdata.md walks through the same code.
import Foundation
import HearthData
import HearthSupport

@Table
struct RemindersList: Identifiable {
  let id: Int
  var title = ""
}

@Table
struct Reminder: Identifiable {
  let id: Int
  var remindersListID: RemindersList.ID
  var title = ""
  var dueDate: Date?
  var isCompleted = false
}

extension Reminder {
  static let incomplete = Self.where { !$0.isCompleted }
}

func appDatabase(path: String) throws -> any DatabaseWriter {
  var configuration = Configuration()
  configuration.foreignKeysEnabled = true
  let database = try defaultDatabase(path: path, configuration: configuration)
  var migrator = DatabaseMigrator()
  migrator.registerMigration("Create lists and reminders") { db in
    try #sql(
      """
      CREATE TABLE "remindersLists" (
        "id" INTEGER PRIMARY KEY AUTOINCREMENT,
        "title" TEXT NOT NULL UNIQUE
      ) STRICT;
      CREATE TABLE "reminders" (
        "id" INTEGER PRIMARY KEY AUTOINCREMENT,
        "remindersListID" INTEGER NOT NULL REFERENCES "remindersLists"("id") ON DELETE CASCADE,
        "title" TEXT NOT NULL DEFAULT '',
        "dueDate" TEXT,
        "isCompleted" INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      """
    ).execute(db)
  }
  try migrator.migrate(database)
  return database
}

/// The live part: what a feature's model looks like.
@MainActor
final class RemindersModel {
  @FetchAll(Reminder.incomplete.order(by: \.title)) var openReminders
  @FetchOne(Reminder.count()) var total = 0
  @Dependency(\.defaultDatabase) var database

  func add(_ title: String, dueIn days: Int, listTitle: String) async throws {
    @Dependency(\.date.now) var now
    try await database.write { db in
      try RemindersList.insert(or: .ignore) { RemindersList.Draft(title: listTitle) }.execute(db)
      let listID = try RemindersList.where { $0.title == listTitle }.select(\.id).fetchOne(db)!
      try Reminder.insert {
        Reminder.Draft(
          remindersListID: listID, title: title,
          dueDate: now.addingTimeInterval(Double(days) * 86_400))
      }.execute(db)
    }
  }

  func completeOldest() async throws {
    try await database.write { db in
      try Reminder.where { $0.id.in(Reminder.incomplete.select { $0.id.min() }) }
        .update { $0.isCompleted = true }
        .execute(db)
    }
  }
}

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("hearth-demo: \(message)\n".utf8))
  exit(1)
}

var dataDirectory: String = {
  let environment = ProcessInfo.processInfo.environment
  let base =
    environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
    ?? (homeDirectory(environment) + "/.local/share")
  return base + "/hearth-demo"
}()
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  switch argument {
  case "--data":
    guard let value = arguments.popFirst() else { fail("--data needs a directory") }
    dataDirectory = value
  case "--help", "-h":
    print("usage: hearth-demo [--data DIR]")
    exit(0)
  default:
    fail("unknown argument \(argument); see --help")
  }
}

do {
  let path = dataDirectory + "/demo.sqlite"
  try prepareDependencies { $0.defaultDatabase = try appDatabase(path: path) }
  print("database   \(path) (WAL, migrated)")

  let model = RemindersModel()
  print("open       \(model.openReminders.count) of \(model.total) reminders")
  var updates = model.$openReminders.values.makeAsyncIterator()
  _ = await updates.next()

  try await model.add("Water the plants", dueIn: 1, listTitle: "Home")
  let afterFirst = await updates.next() ?? []
  print("live       after an insert: \(afterFirst.map(\.title))")
  try await model.add("Call the dentist", dueIn: 3, listTitle: "Personal")
  let afterSecond = await updates.next() ?? []
  print("live       after another:   \(afterSecond.map(\.title))")
  try await model.completeOldest()
  let afterUpdate = await updates.next() ?? []
  print("live       after completing the oldest: \(afterUpdate.map(\.title))")

  @Dependency(\.defaultDatabase) var database
  let backupPath = dataDirectory + "/demo-backup.sqlite"
  try database.backup(toPath: backupPath)
  let verdict = try DatabaseQueue(path: backupPath).read { try $0.integrityCheck() }
  print("backup     \(backupPath): integrity \(verdict.joined(separator: "; "))")
  print("\nRun it again: the data stays, and each run adds two reminders and completes one.")
} catch {
  fail("\(error)")
}
