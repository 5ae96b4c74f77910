// The harness the reference's own test cases run in, against Hearth. The cases keep their
// text; what they import from the reference's test support (`assertQuery`,
// `assertInlineSnapshot`, the `Database` of its fixture, the `SnapshotTests` suite) is
// answered here.
//
// A case passes when Hearth's statement returns the rows the reference's SQL returns on the
// same data, and leaves every table as the reference's SQL leaves it. SQL text counts only
// for a snapshot of an expression that is not a statement (nothing to run on its own).
import Foundation
import HearthDependencies
import HearthSQLite
import StructuredQueries
import Synchronization
import Testing

@MainActor @Suite(.serialized) struct SnapshotTests {}

/// The reference fixture's database: one in-memory SQLite connection.
final class Database {
  let queue: DatabaseQueue

  /// The functions installed on this database, installed again on each copy.
  var functions: [(HearthSQLite.Database) -> Void] = []

  init() throws { queue = try DatabaseQueue() }

  /// What the reference's fixture hands `install(_:)`: the connection itself here.
  var handle: Database { self }

  func execute(_ sql: String) throws {
    try queue.inDatabase { try $0.execute(sql: sql) }
  }

  func execute<S: Statement>(_ statement: S) throws where S.QueryValue == () {
    try queue.inDatabase { try statement.execute($0) }
  }

  /// Rows as the reference's `execute` returns them: each value its representation's output
  /// (`Date` for a `Date.UnixTimeRepresentation` column).
  @discardableResult
  func execute<S: Statement>(_ statement: S) throws -> [S.QueryValue.QueryOutput]
  where S.QueryValue: QueryRepresentable {
    try queue.inDatabase { try statement.fetchAll($0) }.map(\.queryOutput)
  }

  @_disfavoredOverload
  @discardableResult
  func execute<S: Statement>(_ statement: S) throws -> [S.QueryValue] {
    try queue.inDatabase { try statement.fetchAll($0) }
  }

  /// Every row `sql` returns, each value drawn as SQLite's `quote()` draws it.
  func rows(_ sql: String, _ arguments: StatementArguments = StatementArguments()) throws
    -> [[String]]
  {
    try queue.inDatabase { db in
      try Row.fetchAll(db, sql: sql.isEmpty ? "SELECT NULL WHERE 0" : sql, arguments: arguments)
        .map { $0.databaseValues.map(drawn) }
    }
  }

  /// Every table's rows, sorted: what a statement's writes are compared by.
  func contents() throws -> [String: [[String]]] {
    let tables = try rows(
      """
      SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
        AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'
        AND name NOT IN (SELECT name || suffix FROM sqlite_master,
          (SELECT '_data' AS suffix UNION ALL SELECT '_idx' UNION ALL SELECT '_content'
           UNION ALL SELECT '_docsize' UNION ALL SELECT '_config') WHERE type = 'table')
      UNION ALL SELECT name FROM sqlite_temp_master WHERE type = 'table'
      """)
    var contents: [String: [[String]]] = [:]
    for table in tables {
      let name = table[0]
      let quoted =
        "\"" + name.dropFirst().dropLast().replacingOccurrences(of: "\"", with: "\"\"") + "\""
      contents[name] = try rows("SELECT * FROM \(quoted)")
        .sorted { $0.joined(separator: "\u{1}") < $1.joined(separator: "\u{1}") }
    }
    return contents
  }

  /// A copy of this database: its tables and rows, and its temporary tables, views and
  /// triggers (which the backup API leaves out).
  func copy() throws -> Database {
    let copy = try Database()
    try queue.inDatabase { source in
      try copy.queue.inDatabase { target in try source.backup(to: target) }
    }
    let temporary = try rows(
      """
      SELECT sql FROM sqlite_temp_master WHERE sql IS NOT NULL
      ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 WHEN 'view' THEN 2 ELSE 3 END
      """)
    copy.functions = functions
    try copy.queue.inDatabase { db in for install in functions { install(db) } }
    for row in temporary {
      let sql = String(row[0].dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'")
      try copy.execute(sql)
    }
    return copy
  }

  /// The database of the running test: each test starts from the fixture.
  static func forCurrentTest() -> Database {
    let key = Test.current.map { "\($0.id)" } ?? "none"
    return perTest.withLock { databases in
      if let database = databases[key] { return database }
      let database = try! Database.default()
      databases[key] = database
      return database
    }
  }

  static func setForCurrentTest(_ database: Database) {
    let key = Test.current.map { "\($0.id)" } ?? "none"
    perTest.withLock { $0[key] = database }
  }

  private static let perTest = Mutex<[String: Database]>([:])
}

extension DependencyValues {
  /// The running test's database; a test that sets it (to its own `db`) sets it for itself.
  var defaultDatabase: Database {
    get { Database.forCurrentTest() }
    set { Database.setForCurrentTest(newValue) }
  }
}

private func drawn(_ value: DatabaseValue) -> String {
  switch value.storage {
  case .null, .invalid: "NULL"  // a row's values are never invalid
  case .integer(let integer): String(integer)
  case .double(let double): String(double)
  case .text(let text): "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
  case .blob(let data): "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
  }
}

/// One line per case to the file named by `HEARTH_UPSTREAM_LOG`: where, PASS or FAIL, why.
private func log(_ location: String, _ passed: Bool, _ detail: String) {
  guard let path = ProcessInfo.processInfo.environment["HEARTH_UPSTREAM_LOG"] else { return }
  let line =
    "\(location)\t\(passed ? "PASS" : "FAIL")\t"
    + detail.replacingOccurrences(of: "\n", with: "⏎").replacingOccurrences(of: "\t", with: " ")
    + "\n"
  logLock.withLock { _ in
    guard let handle = FileHandle(forWritingAtPath: path) else {
      FileManager.default.createFile(atPath: path, contents: Data(line.utf8))
      return
    }
    handle.seekToEndOfFile()
    handle.write(Data(line.utf8))
    handle.closeFile()
  }
}

private let logLock = Mutex<Void>(())

/// Compares Hearth's statement with the reference's SQL for it, on two copies of the test's
/// data: the rows each returns (or that both fail), and every table afterwards.
func compare<S: Statement>(
  _ statement: S, expectedSQL: String?, expectedResults: String?, location: String,
  sourceLocation: SourceLocation
) {
  let db = Database.forCurrentTest()
  do {
    let query = statement.query
    guard let expectedSQL else {
      _ = try db.execute(statement)
      log(location, true, "ran (no SQL to compare)")
      return
    }
    let reference = try db.copy()
    var current = try currentSQLite(db, expectedSQL)
    let local = Result { try reference.rows(expectedSQL) }
    // Decoding is checked first, on a copy, so that a write runs once on the test's data.
    let decoded = Result { try db.copy().execute(statement) }
    let actual = Result { try db.rows(query.sql, StatementArguments(query.bindings)) }
    if case .failure = actual, case .failure = local {
      // Neither runs on this machine's SQLite (the fixture's own schema may need a newer
      // one): judged as before, on this SQLite alone.
      current = nil
    }
    let expected = current?.rows ?? local
    // The reference's snapshot shows an error (its statement failed there), not rows.
    let errorShown = expectedResults.map { !$0.contains("┌") && !$0.isEmpty } ?? false
    var problems: [String] = []
    switch (expected, actual) {
    case (.success(let expectedRows), .success(let actualRows)):
      if actualRows.isEmpty, let expectedResults, !expectedResults.isEmpty {
        // The reference's assertion fails when rows were expected and none came.
        problems.append("no rows, where the snapshot shows \(expectedResults)")
      } else if expectedRows != actualRows {
        problems.append("rows \(actualRows.prefix(12)) expected \(expectedRows.prefix(12))")
      }
      if case .failure(let error) = decoded, !errorShown {
        problems.append("decoding failed: \(error)")
      }
    case (.failure, .failure):
      break
    case (.failure(let error), .success):
      problems.append("the reference's SQL fails (\(error)) but Hearth's runs")
    case (.success, .failure(let error)):
      // A value that cannot be bound: the reference's snapshot shows its error (its SQL, with
      // the value written in, is not what its library runs), and neither side writes.
      if error is QueryBindingError, errorShown {
        log(location, true, "refused to bind, as the reference does: \(error)")
        return
      }
      problems.append("Hearth's SQL fails: \(error)")
    }
    if problems.isEmpty, try db.contents() != (current?.contents ?? reference.contents()) {
      problems.append("the tables differ after the statement")
    }
    if problems.isEmpty {
      log(location, true, "")
    } else {
      let detail = problems.joined(separator: "; ") + " | SQL: \(query.sql)"
      log(location, false, detail)
      Issue.record(Comment(rawValue: detail), sourceLocation: sourceLocation)
    }
  } catch {
    log(location, false, "harness: \(error)")
    Issue.record(error, sourceLocation: sourceLocation)
  }
}

/// The reference's SQL run on a copy of `db` by `reference.py` with a current SQLite, where
/// the run script set one up (`HEARTH_UPSTREAM_PYTHON`, a Python with apsw, and
/// `HEARTH_UPSTREAM_REFERENCE`, the script): Debian 12's SQLite 3.40 lacks what some of the
/// reference's SQL uses (JSONB, 'subsec', unhex). Nil without one, and for a test that
/// installed database functions of its own, which only this process has.
private func currentSQLite(_ db: Database, _ sql: String) throws
  -> (rows: Result<[[String]], any Error>, contents: [String: [[String]]])?
{
  let environment = ProcessInfo.processInfo.environment
  guard let python = environment["HEARTH_UPSTREAM_PYTHON"],
    let script = environment["HEARTH_UPSTREAM_REFERENCE"], db.functions.isEmpty
  else { return nil }
  let directory = FileManager.default.temporaryDirectory
    .appendingPathComponent("hearth-upstream-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: directory) }
  let path = directory.appendingPathComponent("copy.sqlite").path
  do {
    let file = try DatabaseQueue(path: path)
    try db.queue.inDatabase { source in try file.inDatabase { try source.backup(to: $0) } }
  }
  let temporary = try db.rows(
    """
    SELECT sql FROM sqlite_temp_master WHERE sql IS NOT NULL
    ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 WHEN 'view' THEN 2 ELSE 3 END
    """
  ).map { String($0[0].dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'") }
  let request = try JSONSerialization.data(
    withJSONObject: ["database": path, "temporary": temporary, "sql": sql])
  let process = Process()
  process.executableURL = URL(fileURLWithPath: python)
  process.arguments = [script]
  let input = Pipe()
  let output = Pipe()
  process.standardInput = input
  process.standardOutput = output
  try process.run()
  input.fileHandleForWriting.write(request)
  try input.fileHandleForWriting.close()
  let reply = output.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  guard let object = try JSONSerialization.jsonObject(with: reply) as? [String: Any] else {
    throw CurrentSQLiteError(message: String(decoding: reply, as: UTF8.self))
  }
  if let error = object["error"] as? String {
    return (.failure(CurrentSQLiteError(message: error)), try db.copy().contents())
  }
  let rows = object["rows"] as? [[String]] ?? []
  let contents = object["contents"] as? [String: [[String]]] ?? [:]
  return (.success(rows), contents)
}

struct CurrentSQLiteError: Error, CustomStringConvertible {
  let message: String
  var description: String { "current SQLite: \(message)" }
}

func assertQuery<S: Statement>(
  _ query: S, sql: (() -> String)? = nil, results: (() -> String)? = nil,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  function: StaticString = #function, line: UInt = #line, column: UInt = #column
) {
  compare(
    query, expectedSQL: sql?(), expectedResults: results?(), location: "\(fileID):\(line)",
    sourceLocation: SourceLocation(
      fileID: "\(fileID)", filePath: "\(filePath)", line: Int(line), column: Int(column)))
}

/// The reference's snapshot strategies that its query tests use.
struct Snapshotting<Value, Format> {
  let name: String
}

extension Snapshotting where Value: QueryExpression, Format == String {
  static var sql: Self { Snapshotting(name: "sql") }
}

extension Snapshotting where Format == String {
  static var lines: Self { Snapshotting(name: "lines") }
}

func assertInlineSnapshot<Value>(
  of value: @autoclosure () throws -> Value, as snapshotting: Snapshotting<Value, String>,
  message: @autoclosure () -> String = "", matches expected: (() -> String)? = nil,
  fileID: StaticString = #fileID, file filePath: StaticString = #filePath,
  function: StaticString = #function, line: UInt = #line, column: UInt = #column
) {
  let location = "\(fileID):\(line)"
  let sourceLocation = SourceLocation(
    fileID: "\(fileID)", filePath: "\(filePath)", line: Int(line), column: Int(column))
  do {
    let value = try value()
    if let statement = value as? any Statement {
      compareOpened(statement, expectedSQL: expected?(), location, sourceLocation)
      return
    }
    let shown: String
    if let expression = value as? any QueryExpression {
      shown = try inlined(expression.queryFragment)
    } else {
      shown = "\(value)"
    }
    if normalized(shown) == normalized(expected?() ?? "") {
      log(location, true, "text")
    } else {
      let detail = "text \(shown) expected \(expected?() ?? "nothing")"
      log(location, false, detail)
      Issue.record(Comment(rawValue: detail), sourceLocation: sourceLocation)
    }
  } catch {
    log(location, false, "harness: \(error)")
    Issue.record(error, sourceLocation: sourceLocation)
  }
}

private func compareOpened<S: Statement>(
  _ statement: S, expectedSQL: String?, _ location: String, _ sourceLocation: SourceLocation
) {
  compare(
    statement, expectedSQL: expectedSQL, expectedResults: nil, location: location,
    sourceLocation: sourceLocation)
}

/// A fragment's SQL with its bindings written in as SQLite's `quote()` writes them.
private func inlined(_ fragment: QueryFragment) throws -> String {
  let db = try Database()
  var literals: [String] = []
  for binding in StatementArguments(fragment.bindings).values {
    literals.append(try db.rows("SELECT quote(?)", StatementArguments([binding]))[0][0])
  }
  var text = ""
  var next = literals.makeIterator()
  var inString = false
  for character in fragment.sql {
    if character == "'" || character == "\"" { inString.toggle() }
    if character == "?", !inString, let literal = next.next() {
      text += literal.dropFirst().dropLast().replacingOccurrences(of: "''", with: "'")
    } else {
      text.append(character)
    }
  }
  return text
}

private func normalized(_ sql: String) -> String {
  sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    .replacingOccurrences(of: "( ", with: "(").replacingOccurrences(of: " )", with: ")")
}

/// `expectNoDifference` compares as `#expect(==)` does.
func expectNoDifference<T: Equatable>(
  _ expression1: @autoclosure () throws -> T, _ expression2: @autoclosure () throws -> T,
  _ message: @autoclosure () -> String? = nil, sourceLocation: SourceLocation = #_sourceLocation
) rethrows {
  let (a, b) = (try expression1(), try expression2())
  #expect(a == b, sourceLocation: sourceLocation)
}

// The reference's support code builds fragment lists with an initializer its package keeps
// to itself.
extension RangeReplaceableCollection {
  init<each Q: QueryExpression>(_ elements: repeat each Q) where Element == QueryFragment {
    self.init()
    for element in repeat each elements { append(element.queryFragment) }
  }
}

/// The reference's snapshot trait: recording is not a thing here, so it changes nothing.
struct SnapshotsTrait: SuiteTrait, TestTrait {
  enum Record { case all, failed, missing, never }
  let record: Record
}

extension Trait where Self == SnapshotsTrait {
  static func snapshots(record: SnapshotsTrait.Record) -> Self { SnapshotsTrait(record: record) }
}

// The reference's fixture adds a function to its raw connection; here, to the connection.
extension ScalarDatabaseFunction {
  func install(_ database: Database) {
    let install = { (db: HearthSQLite.Database) in db.add(function: self) }
    database.functions.append(install)
    database.queue.inDatabase(install)
  }
}

extension AggregateDatabaseFunction {
  func install(_ database: Database) {
    let install = { (db: HearthSQLite.Database) in db.add(function: self) }
    database.functions.append(install)
    database.queue.inDatabase(install)
  }
}
