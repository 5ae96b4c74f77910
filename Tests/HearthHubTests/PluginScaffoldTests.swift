import Foundation
import HearthTestbed
import Testing

/// The plugin author's path, as docs/plugin-guide.md tells it: every command of its console
/// blocks run as typed, in a new home directory — `hearth new-plugin`, a package outside this
/// repository that depends on Hearth by path, built and tested with SwiftPM, run against a
/// hub it starts, a bulk import — and what each printed compared with what the guide shows.
@Suite struct PluginScaffoldTests {
  @Test(.timeLimit(.minutes(20))) func theGuidesCommandsPrintWhatTheGuideShows() throws {
    let home = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: home) }
    let environment = try FrontDoorTests.runConsoleBlocks(
      of: "docs/plugin-guide.md", in: home, atLeast: 10)

    // What the guide does not show: the refusals, and the JSON shape of a list.
    let hearth = try Executables.path("hearth")
    let folder = home.appendingPathComponent("src").path
    var run = try runToEnd(
      path: hearth, ["new-plugin", "reading-list", "--in", folder], environment: environment)
    #expect(run.status == 1, "an existing package is not overwritten: \(run.output)")
    run = try runToEnd(
      path: hearth, ["new-plugin", "Reading List", "--in", folder], environment: environment)
    #expect(run.status == 2, "\(run.output)")
    let plugin = folder + "/hearth-reading-list/.build/debug/hearth-reading-list"
    run = try runToEnd(path: plugin, ["import", "--bogus"], environment: environment)
    #expect(run.status == 2, "\(run.output)")
  }
}
