import Foundation

/// `hearth new-plugin NAME`: writes a package that builds against Hearth by path and is a
/// working plugin — one table, `add`, `list`, `watch` and `run` — for its author to grow.
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

  /// The files, by path inside the package.
  var files: [(String, String)] {
    let executable = "hearth-\(name)"
    let table = "\(tablePrefix)Items"
    let manifest = """
      // swift-tools-version: 6.0
      // A Hearth plugin. Build: swift build; run with the hub up: .build/debug/\(executable) --help
      import PackageDescription

      let package = Package(
        name: "\(executable)",
        dependencies: [.package(name: "Hearth", path: \(literal(hearthPath)))],
        targets: [
          .executableTarget(
            name: "\(executable)",
            dependencies: [
              .product(name: "HearthPlugin", package: "Hearth"),
              .product(name: "HearthData", package: "Hearth"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")])
        ],
        swiftLanguageModes: [.v6]
      )

      """
    let main = """
      // \(executable): a Hearth plugin. Its table is its own: the hub lets no other plugin
      // write it, and it sees every other feature's data read-only.
      import Foundation
      import HearthData
      import HearthPlugin

      @Table(\(literal(table)))
      struct Item: Codable, Hashable, Identifiable {
        let id: Int
        var text = ""
        var createdAt: Date
      }

      /// The plugin's migrations, in order (a function: top-level variables of main.swift
      /// belong to the main actor).
      func makeMigrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("Create \(table)") { db in
          try #sql(
            \"\"\"
            CREATE TABLE "\(table)" (
              "id" INTEGER PRIMARY KEY AUTOINCREMENT,
              "text" TEXT NOT NULL CHECK (length("text") BETWEEN 1 AND 10000),
              "createdAt" TEXT NOT NULL
            ) STRICT
            \"\"\"
          )
          .execute(db)
        }
        return migrator
      }

      /// The hub connection of this process, registering the plugin on first use.
      func database() throws -> HubDatabase {
        try .shared(
          PluginRegistration(
            name: \(literal(name)), version: "0.1", tables: [\(literal(table))],
            migrator: makeMigrator()))
      }

      func line(_ item: Item) -> String { String(format: "%4d  ", item.id) + item.text }

      let tool = Tool.feature(
        name: \(literal(executable)), summary: "a Hearth plugin",
        commands: [
          Command("add", arguments: "TEXT…", summary: "adds an item") { input in
            let text = try input.text(from: 0, name: "TEXT")
            let item = try database().write { db in
              try Item.insert { Item.Draft(text: text, createdAt: Date()) }
                .returning(\\.self).fetchOne(db)!
            }
            return .values(item) { "Added:\\n" + line($0) }
          },
          Command("list", summary: "the items, newest first") { _ in
            let items = try database().read { try Item.order { $0.id.desc() }.fetchAll($0) }
            return .values(items) { $0.isEmpty ? "No items." : $0.map(line).joined(separator: "\\n") }
          },
          Command("watch", summary: "the items, redrawn when any process changes them") { _ in
            let db = try database()
            watch(db, tables: [\(literal(table))], title: \(literal(executable))) {
              try db.read { try Item.order { $0.id.desc() }.fetchAll($0) }.map(line)
                .joined(separator: "\\n")
            }
          },
          Command("run", summary: "the background duty (hearth-feature@\(name).service)") { _ in
            let db = try database()
            runDuties(name: \(literal(name)), interval: .seconds(60)) {
              let count = try db.read { try Item.fetchCount($0) }
              Logger(label: \(literal(name))).info("\\(count) item(s)")
            }
          },
        ])

      tool.main()

      """
    let readme = """
      # \(executable)

      A Hearth plugin, made by `hearth new-plugin \(name)`. With the hub running:

      ```sh
      swift build
      .build/debug/\(executable) add "my first item"
      .build/debug/\(executable) list --json
      .build/debug/\(executable) watch
      ```

      Its table, `\(table)`, is registered with the hub by the migration in
      `Sources/\(executable)/main.swift`; add tables there (and to `tables:`), and commands
      to `tool`. The guide: \(hearthPath)/docs/plugin-guide.md.

      """
    return [
      ("Package.swift", manifest), ("Sources/\(executable)/main.swift", main),
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
  var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
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
