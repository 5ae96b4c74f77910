import Foundation

/// `hearth new-plugin NAME`: writes a package that builds against Hearth by path and is a
/// working plugin — one table keyed by UUIDs so that it syncs, `add`, `import` (one
/// transaction, with progress), `list`, `watch` and `run` — for its author to grow.
/// See docs/plugin-guide.md.
struct PluginScaffold {
  /// Lower-case letters, digits and hyphens, starting with a letter: `notes`, `reading-list`.
  let name: String
  /// The Hearth checkout the package depends on.
  let hearthPath: String

  /// `reading-list` → `readingList`, the start of the plugin's table names.
  var tablePrefix: String {
    let parts = name.split(separator: "-")
    return parts.enumerated().map { index, part in
      index == 0 ? String(part) : part.prefix(1).uppercased() + part.dropFirst()
    }
    .joined()
  }

  static func validate(_ name: String) -> Bool {
    guard let first = name.first, first.isASCII, first.isLowercase, name.count <= 40 else {
      return false
    }
    return name.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "-" }
      && !name.hasSuffix("-") && !name.contains("--")
  }

  /// `reading-list` → `ReadingList`, the start of the library's name.
  var typePrefix: String { tablePrefix.prefix(1).uppercased() + tablePrefix.dropFirst() }

  /// The files, by path inside the package: the shape of Hearth's own features — a library
  /// of data (`Schema`), actions on a `Database` (`Actions`) and a thin command table
  /// (`Commands`), an executable that prepares the database, and tests of the actions on a
  /// local database.
  var files: [(String, String)] {
    let executable = "hearth-\(name)"
    let library = "\(typePrefix)Feature"
    let table = "\(tablePrefix)Items"
    let manifest = """
      // swift-tools-version: 6.0
      // A Hearth plugin. Build: swift build; test: swift test; run with the hub up:
      // .build/debug/\(executable) --help
      import PackageDescription

      let hearth: [Target.Dependency] = [
        .product(name: "HearthPlugin", package: "Hearth"),
        .product(name: "HearthData", package: "Hearth"),
      ]
      let settings: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

      let package = Package(
        name: "\(executable)",
        dependencies: [.package(name: "Hearth", path: \(literal(hearthPath)))],
        targets: [
          .target(name: "\(library)", dependencies: hearth, swiftSettings: settings),
          .executableTarget(
            name: "\(executable)", dependencies: ["\(library)"] + hearth, swiftSettings: settings),
          .testTarget(
            name: "\(library)Tests", dependencies: ["\(library)"] + hearth,
            swiftSettings: settings),
        ],
        swiftLanguageModes: [.v6]
      )

      """
    let schema = """
      // The plugin's data: its table, its migrations and what it registers with the hub. The
      // table is its own: the hub lets no other plugin write it; every other feature's data is
      // readable.
      import Foundation
      import HearthData
      import HearthPlugin

      /// An item. Keyed by a UUID, so that rows made on two devices never collide and the
      /// table can sync (`syncEngine(for:)`).
      @Table(\(literal(table)))
      package struct Item: Codable, Hashable, Identifiable, Sendable {
        package let id: UUID
        package var text = ""
        package var createdAt: Date
      }

      /// The plugin's migrations, in order.
      package var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("Create \(table)") { db in
          try #sql(
            \"\"\"
            CREATE TABLE "\(table)" (
              "id" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid()),
              "text" TEXT NOT NULL CHECK (length("text") BETWEEN 1 AND 10000),
              "createdAt" TEXT NOT NULL
            ) STRICT
            \"\"\"
          )
          .execute(db)
        }
        return migrator
      }

      /// What the plugin tells the hub: its tables (named by their types) and migrations.
      package func registration() throws -> PluginRegistration {
        try PluginRegistration(
          name: \(literal(name)), version: "0.1", tables: [Item.self], migrator: migrator)
      }

      /// The tables that sync to the user's other devices, when the hub syncs
      /// (`hearth sync setup`); with no sync set up, it does nothing.
      package func syncEngine(for database: any DatabaseWriter) throws -> SyncEngine {
        try SyncEngine(for: database, tables: Item.self)
      }

      """
    let actions = """
      // The plugin's data work: functions of a `Database`. The commands run them through the
      // hub; the tests run them on a local database.
      import Foundation
      import HearthData

      package enum ItemActions {
        /// Adds an item and returns it, as stored (its id made by the database).
        package static func add(_ text: String, now: Date, _ db: Database) throws -> Item {
          try Item.insert { Item.Draft(text: text, createdAt: now) }.returning(\\.self).fetchOne(db)!
        }

        /// Adds many items in the caller's transaction. Nothing here waits for a result, so
        /// through the hub the inserts travel in batches, not one round trip each.
        package static func importItems(
          _ texts: [String], now: Date, _ db: Database, progress: (Int) -> Void = { _ in }
        ) throws {
          for (index, text) in texts.enumerated() {
            try Item.insert { Item.Draft(text: text, createdAt: now) }.execute(db)
            progress(index + 1)
          }
        }

        /// The items, newest first.
        package static func items(_ db: Database) throws -> [Item] {
          try Item.order { $0.createdAt.desc() }.fetchAll(db)
        }
      }

      """
    let commands = """
      // The commands: each reads its input, runs an action on the database the executable
      // prepared (`@Dependency(\\.defaultDatabase)`), and renders the result.
      import Foundation
      import HearthData
      import HearthPlugin

      func line(_ item: Item) -> String { ShortID.of(item.id) + "  " + item.text.shownOnOneLine }

      let add = Command("add", arguments: "TEXT…", summary: "adds an item") { input in
        @Dependency(\\.defaultDatabase) var database
        @Dependency(\\.date.now) var now
        let text = try input.text(from: 0, name: "TEXT")
        let item = try database.write { try ItemActions.add(text, now: now, $0) }
        return .values(item) { "Added:\\n" + line($0) }
      }

      let importItems = Command(
        "import", arguments: "FILE",
        summary: "adds an item per line of FILE (- for standard input), all in one transaction"
      ) { input in
        @Dependency(\\.defaultDatabase) var database
        @Dependency(\\.date.now) var now
        let path = try input.positional(0, name: "FILE")
        let text =
          path == "-"
          ? try readStandardInput(limit: 1 << 30) : try String(contentsOfFile: path, encoding: .utf8)
        let texts = text.split(separator: "\\n").map(String.init).filter { !$0.isEmpty }
        // Progress on a terminal, a line redrawn every 1,000 rows.
        let showsProgress = isatty(STDERR_FILENO) != 0
        try database.write { db in
          try ItemActions.importItems(texts, now: now, db) { done in
            guard showsProgress, done % 1_000 == 0 || done == texts.count else { return }
            FileHandle.standardError.write(Data("\\rimporting: \\(done) of \\(texts.count)".utf8))
          }
        }
        if showsProgress { FileHandle.standardError.write(Data("\\n".utf8)) }
        return .message("Imported \\(texts.count) item(s).", json: ["imported": texts.count])
      }

      let list = Command("list", summary: "the items, newest first") { _ in
        @Dependency(\\.defaultDatabase) var database
        return .values(try database.read(ItemActions.items)) { items in
          items.isEmpty ? "No items." : items.map(line).joined(separator: "\\n")
        }
      }

      let watchItems = Command("watch", summary: "the items, redrawn when any process changes them") {
        _ in
        @Dependency(\\.defaultDatabase) var database
        watch(database, tables: [Item.tableName], title: \(literal(executable))) {
          try database.read(ItemActions.items).map(line).joined(separator: "\\n")
        }
      }

      let run = Command("run", summary: "the background duty (hearth-feature@\(name).service)") { _ in
        @Dependency(\\.defaultDatabase) var database
        runDuties(name: \(literal(name)), interval: .seconds(60)) {
          let count = try database.read { try Item.fetchCount($0) }
          Logger(label: \(literal(name))).info("\\(count) item(s)")
        }
      }

      /// The command line of the plugin.
      package func tool() -> Tool {
        Tool.feature(
          name: \(literal(executable)), summary: "a Hearth plugin",
          commands: [add, importItems, list, watchItems, run])
      }

      """
    let main = """
      // \(executable): the plugin's command line. The database is prepared once, the
      // reference's way; every command reads it with @Dependency(\\.defaultDatabase).
      import Foundation
      import HearthData
      import HearthPlugin
      import \(library)

      let commandLine = tool()
      // --help, --version and bad arguments are answered before the hub is reached.
      commandLine.answerBeforePreparing()
      do {
        try prepareDependencies {
          $0.defaultDatabase = try HubDatabase(registration())
          $0.defaultSyncEngine = try syncEngine(for: $0.defaultDatabase)
        }
      } catch {
        exit(commandLine.report(error).rawValue)
      }
      commandLine.main()

      """
    let tests = """
      // The actions on a local database, no hub needed: `swift test`.
      import Foundation
      import HearthData
      import Testing
      import \(library)

      @Suite struct ItemActionsTests {
        @Test func addedItemsAreListedNewestFirst() throws {
          let database = try DatabaseQueue()
          try migrator.migrate(database)
          let now = Date(timeIntervalSince1970: 1_000_000)
          try database.write { db in
            _ = try ItemActions.add("first", now: now, db)
            _ = try ItemActions.add("second", now: now.addingTimeInterval(1), db)
          }
          let items = try database.read(ItemActions.items)
          #expect(items.map(\\.text) == ["second", "first"])
          #expect(Set(items.map(\\.id)).count == 2)
        }

        @Test func anImportIsOneTransactionWithProgress() throws {
          let database = try DatabaseQueue()
          try migrator.migrate(database)
          let seen = try database.write { db -> [Int] in
            var seen: [Int] = []
            try ItemActions.importItems(["a", "b", "c"], now: Date(), db) { seen.append($0) }
            return seen
          }
          #expect(seen == [1, 2, 3])
          #expect(try database.read { try Item.fetchCount($0) } == 3)
        }
      }

      """
    let readme = """
      # \(executable)

      A Hearth plugin, made by `hearth new-plugin \(name)`. With the hub running:

      ```sh
      swift build
      .build/debug/\(executable) add "my first item"
      seq 1 100000 | .build/debug/\(executable) import -
      .build/debug/\(executable) list --json
      .build/debug/\(executable) watch
      swift test
      ```

      Its table, `\(table)`, is registered with the hub by the migration in
      `Sources/\(library)/Schema.swift`; add tables there (and their types to
      `tables:`), the data work to `Actions.swift` (with a test), and commands to
      `Commands.swift`. The guide: \(hearthPath)/docs/plugin-guide.md.

      """
    return [
      ("Package.swift", manifest), ("Sources/\(library)/Schema.swift", schema),
      ("Sources/\(library)/Actions.swift", actions),
      ("Sources/\(library)/Commands.swift", commands),
      ("Sources/\(executable)/main.swift", main),
      ("Tests/\(library)Tests/ItemActionsTests.swift", tests),
      ("README.md", readme), (".gitignore", ".build/\n"),
    ]
  }

  /// Writes the package into `directory/hearth-NAME`, which must not exist yet.
  func write(into directory: URL) throws -> URL {
    let root = directory.appendingPathComponent("hearth-\(name)")
    guard !FileManager.default.fileExists(atPath: root.path) else {
      throw ScaffoldError("\(root.path) already exists; choose another name or folder")
    }
    for (path, text) in files {
      let url = root.appendingPathComponent(path)
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try text.write(to: url, atomically: true, encoding: .utf8)
    }
    return root
  }

  private func literal(_ text: String) -> String {
    "\""
      + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
        of: "\"", with: "\\\"")
      + "\""
  }
}

struct ScaffoldError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// The Hearth checkout this `hearth` was built from (`<root>/.build/<config>/hearth`), if
/// it is one.
func hearthCheckout() -> String? {
  // The executable's own path (argv[0] is only a name when it was found through PATH).
  let executable =
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
    ?? CommandLine.arguments[0]
  var url = URL(fileURLWithPath: executable).resolvingSymlinksInPath()
  for _ in 0..<5 {
    url = url.deletingLastPathComponent()
    let manifest = url.appendingPathComponent("Package.swift").path
    if let text = try? String(contentsOfFile: manifest, encoding: .utf8),
      text.contains("name: \"Hearth\"")
    {
      return url.path
    }
  }
  return nil
}
