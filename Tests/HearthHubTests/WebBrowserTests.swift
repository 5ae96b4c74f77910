import Foundation
import HearthTestbed
import HearthTransport
import HearthWire
import Testing

/// hearth-web in Debian's Chromium under Selenium (Tests/python/web_browser_test.py says what
/// it checks): a real hub, a real writer, a real browser.
@Suite struct WebBrowserTests {
  @Test func theBrowserViewIsLiveGaplessAndSafe() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let hub = try HubProcess(directory: directory)
    _ = try hub.waitUntilReady()
    defer { _ = hub.terminate() }
    let keyring = HubPaths(databasePath: hub.databasePath, runtimeDirectory: hub.runtimeDirectory)
      .keyring
    try keyring.issue("webtest")
    // Kept after the run, for a person to look at.
    let shots = FileManager.default.temporaryDirectory
      .appendingPathComponent("hearth-web-screenshots").path
    let (status, text) = try runPythonScript(
      "web_browser_test.py",
      [
        hub.runtimeDirectory, hub.databasePath, keyring.keyPath(ofPlugin: "webtest"),
        try Executables.path("hearth-web"), shots,
      ])
    #expect(status == 0, "\(text.suffix(4000))")
    #expect(text.hasSuffix("ok\n"))
    for page in ["hub", "feed", "tables", "table", "row"] {
      #expect(FileManager.default.fileExists(atPath: "\(shots)/\(page).png"), "\(page).png")
    }
  }
}
