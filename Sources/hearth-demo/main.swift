// hearth-demo: a short tour of HearthSQLite on a real WAL database.
//
//   hearth-demo [--data DIR]
//
// Until the hub exists this is the README's main job: it creates (or reopens) a database in
// DIR (default: $XDG_DATA_HOME/hearth-demo, else ~/.local/share/hearth-demo), migrates it,
// writes in a transaction while a commit observer reports what changed, reads from a
// concurrent snapshot, backs the database up online and checks the copy.
import Foundation
import HearthSQLite

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("hearth-demo: \(message)\n".utf8))
  exit(1)
}

var dataDirectory: String = {
  let environment = ProcessInfo.processInfo.environment
  let base =
    environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
    ?? (NSHomeDirectory() + "/.local/share")
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
  try FileManager.default.createDirectory(
    atPath: dataDirectory, withIntermediateDirectories: true,
    attributes: [.posixPermissions: 0o700])
  let path = dataDirectory + "/demo.sqlite"
  let database = try DatabasePool(path: path)
  print("database   \(path) (WAL)")

  var migrator = DatabaseMigrator()
  migrator.registerMigration("Create lists and reminders") { db in
    try db.execute(
      sql: """
        CREATE TABLE remindersLists (
          id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL UNIQUE
        );
        CREATE TABLE reminders (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          remindersListID INTEGER NOT NULL REFERENCES remindersLists(id) ON DELETE CASCADE,
          title TEXT NOT NULL,
          dueDate TEXT,
          isCompleted INTEGER NOT NULL DEFAULT 0
        );
        """)
  }
  try migrator.migrate(database)
  let applied = try database.read { try migrator.appliedMigrations($0) }
  print("migrations \(applied.joined(separator: ", "))")

  let observation = database.observeCommits { changes in
    for (table, rows) in changes.tables.sorted(by: { $0.key < $1.key }) {
      print(
        "committed  \(table): \(rows.insertedRowIDs.count) inserted, "
          + "\(rows.updatedRowIDs.count) updated, \(rows.deletedRowIDs.count) deleted")
    }
  }
  try database.write { db in
    try db.execute(sql: "INSERT OR IGNORE INTO remindersLists (title) VALUES ('Personal')")
    let listID = try Int64.fetchOne(
      db, sql: "SELECT id FROM remindersLists WHERE title = 'Personal'")!
    for (title, days) in [("Water the plants", 1), ("Call the dentist", 3)] {
      try db.execute(
        sql: "INSERT INTO reminders (remindersListID, title, dueDate) VALUES (?, ?, ?)",
        arguments: [listID, title, Date().addingTimeInterval(Double(days) * 86_400)])
    }
    try db.execute(
      sql: "UPDATE reminders SET isCompleted = 1 WHERE id = (SELECT min(id) FROM reminders)")
  }
  observation.cancel()

  let (total, open) = try database.read { db in
    (
      try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM reminders")!,
      try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM reminders WHERE NOT isCompleted")!
    )
  }
  print("reminders  \(total) in all, \(open) open")

  let backupPath = dataDirectory + "/demo-backup.sqlite"
  try database.backup(toPath: backupPath)
  let verdict = try DatabaseQueue(path: backupPath).read { try $0.integrityCheck() }
  print("backup     \(backupPath): integrity \(verdict.joined(separator: "; "))")
  print("\nRun it again: the data stays, and each run adds two reminders.")
} catch {
  fail("\(error)")
}
