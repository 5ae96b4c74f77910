import Foundation
import HearthSupport

private enum DefaultDatabaseKey: DependencyKey {
  static var liveValue: any DatabaseWriter {
    DependencyValues.current.errorReporter(
      DefaultDatabaseNotSet(), message: nil, file: #fileID, line: #line)
    return try! DatabaseQueue()
  }
  static var testValue: any DatabaseWriter { try! DatabaseQueue() }
}

/// `defaultDatabase` was read before a program set it.
struct DefaultDatabaseNotSet: Error, CustomStringConvertible {
  var description: String {
    "no default database was set: an empty in-memory database is used. Set one at start-up "
      + "with prepareDependencies { $0.defaultDatabase = try defaultDatabase() }"
  }
}

extension DependencyValues {
  /// The database `@FetchAll`, `@FetchOne`, `@Fetch` and your code use unless told otherwise.
  ///
  /// ```swift
  /// prepareDependencies { $0.defaultDatabase = try! appDatabase() }
  /// @Dependency(\.defaultDatabase) var database
  /// ```
  public var defaultDatabase: any DatabaseWriter {
    get { self[DefaultDatabaseKey.self] }
    set { self[DefaultDatabaseKey.self] = newValue }
  }
}

/// Opens the database a program should use in the current context:
/// - live: a `DatabasePool` at `path`, or `$XDG_DATA_HOME/<program>/db.sqlite`
///   (`~/.local/share/<program>/db.sqlite`), creating the folder (mode 0700);
/// - test: a `DatabasePool` on a new temporary file, so parallel tests never share one;
/// - preview: an in-memory `DatabaseQueue`.
///
/// ```swift
/// func appDatabase() throws -> any DatabaseWriter {
///   let database = try defaultDatabase(configuration: configuration)
///   try migrator.migrate(database)
///   return database
/// }
/// ```
public func defaultDatabase(
  path: String? = nil, configuration: Configuration = Configuration()
) throws -> any DatabaseWriter {
  switch DependencyValues.current.context {
  case .live:
    let file = path ?? defaultDatabasePath()
    let directory = (file as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: true,
      attributes: [.posixPermissions: 0o700])
    return try DatabasePool(path: file, configuration: configuration)
  case .test:
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("hearth-\(UUID().uuidString)-db.sqlite").path
    return try DatabasePool(path: file, configuration: configuration)
  case .preview:
    return try DatabaseQueue(configuration: configuration)
  }
}

/// `$XDG_DATA_HOME/<program>/db.sqlite`, or `~/.local/share/<program>/db.sqlite`.
func defaultDatabasePath() -> String {
  let environment = ProcessInfo.processInfo.environment
  let base =
    environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
    ?? (homeDirectory(environment) + "/.local/share")
  let program = URL(fileURLWithPath: CommandLine.arguments.first ?? "hearth").lastPathComponent
  return "\(base)/\(program)/db.sqlite"
}
