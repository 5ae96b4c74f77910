import Foundation
import Testing

/// Misuse of the query language must not compile. These tests type-check small files with
/// `swiftc` against the modules this test run was built from, and read the errors.
@Suite struct CompileFailureTests {
  /// The build products (`Modules/`, the macro plugin) beside the running test binary.
  static let buildDirectory = URL(fileURLWithPath: CommandLine.arguments[0])
    .resolvingSymlinksInPath().deletingLastPathComponent()

  /// The package root, for the C module maps.
  static let packageRoot = URL(fileURLWithPath: #filePath)  // <root>/Tests/<target>/<file>
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// Type-checks `source` (after a table declaration) and returns swiftc's error lines.
  func typecheck(_ source: String) throws -> [String] {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("hearth-typecheck-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("snippet.swift")
    let prelude = """
      import HearthQuery
      @Table struct Item { let id: Int; var title = ""; var count = 0; var notes: String? }

      """
    try (prelude + source + "\n").write(to: file, atomically: true, encoding: .utf8)
    let build = Self.buildDirectory
    let text = try runProcess(
      "swiftc", "-typecheck", "-swift-version", "6", file.path,
      "-I", build.appendingPathComponent("Modules").path,
      "-I", Self.packageRoot.appendingPathComponent("Sources/CSQLite").path,
      "-load-plugin-executable",
      build.appendingPathComponent("HearthQueryMacros-tool").path + "#HearthQueryMacros"
    ).output
    return text.split(separator: "\n").map(String.init).filter {
      $0.contains("snippet.swift:") && $0.contains(": error: ")
    }
  }

  @Test func correctQueriesCompile() throws {
    let errors = try typecheck(
      """
      let a = Item.where { $0.title == "x" && $0.count > 2 }.order(by: \\.title)
      let b = Item.select { ($0.id, $0.notes) }
      let c = Item.where { $0.notes.isNot(nil) }.update { $0.count += 1 }
      """)
    #expect(errors == [])
  }

  @Test func aWrongColumnTypeDoesNotCompile() throws {
    let errors = try typecheck("let a = Item.where { $0.title == 42 }")
    #expect(errors.count == 1)
    #expect(
      errors.first?.contains(
        "'==' cannot be applied to operands of type 'TableColumn<Item, String>' and 'Int'") == true)
  }

  @Test func anUnknownColumnDoesNotCompile() throws {
    let errors = try typecheck(
      """
      let a = Item.where { $0.nope == 1 }
      let b = Item.order(by: \\.missing)
      """)
    #expect(errors.count == 2)
    #expect(errors.allSatisfy { $0.contains("'Item.TableColumns' has no member") })
  }

  @Test func assigningTheWrongTypeInAnUpdateDoesNotCompile() throws {
    let errors = try typecheck("let a = Item.update { $0.count = \"many\" }")
    #expect(errors.count == 1)
  }

  @Test func aTableMustBeAStruct() throws {
    let errors = try typecheck("@Table final class Other { var id = 0 }")
    #expect(errors.first?.contains("@Table applies to a struct or an enum, not a class") == true)
  }
}
