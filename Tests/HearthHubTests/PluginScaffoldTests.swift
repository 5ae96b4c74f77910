import Foundation
import HearthTestbed
import Testing

/// The plugin author's path: `hearth new-plugin`, a package outside this repository that
/// depends on Hearth by path, built with `swift build`, run against a live hub.
@Suite struct PluginScaffoldTests {
  @Test(.timeLimit(.minutes(20))) func aScaffoldedPluginBuildsOutsideTheRepositoryAndRuns()
    throws
  {
    let live = try LiveHub()
    defer { live.stop() }
    let folder = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let hearth = try FeatureCLI("hearth", hub: live.process)

    var run = try hearth(
      "new-plugin", "reading-list", "--in", folder.path, "--hearth",
      Executables.packageRoot.path, "--json")
    #expect(run.status == 0, "\(run.errors)")
    let root = try #require((try run.json() as? [String: String])?["path"])
    #expect(try hearth("new-plugin", "reading-list", "--in", folder.path).status == 1)  // exists
    #expect(try hearth("new-plugin", "Reading List", "--in", folder.path).status == 2)

    // Built by SwiftPM as its author would: nothing of this repository's build is reused.
    run = try hearth.run("/usr/bin/env", ["swift", "build", "--package-path", root])
    #expect(
      run.status == 0, "swift build failed:\n\(run.output.suffix(3000))\(run.errors.suffix(2000))")
    guard run.status == 0 else { return }
    // Its actions' tests pass on a local database, with no hub.
    run = try hearth.run("/usr/bin/env", ["swift", "test", "--package-path", root])
    #expect(
      run.status == 0, "swift test failed:\n\(run.output.suffix(3000))\(run.errors.suffix(2000))")

    let plugin = FeatureCLI(path: root + "/.build/debug/hearth-reading-list", hub: live.process)
    run = try plugin("add", "Dune", "--json")
    #expect(run.status == 0, "\(run.errors)")
    #expect((try run.json() as? [String: Any])?["text"] as? String == "Dune")
    run = try plugin("list", "--json")
    #expect(((try run.json() as? [[String: Any]])?.map { $0["text"] as? String }) == ["Dune"])
    #expect(try plugin("--help").output.contains("watch"))
    // Registered with the hub, owning its table and nothing else.
    #expect(try hearth("plugins").output.contains("readingListItems"))
  }
}
