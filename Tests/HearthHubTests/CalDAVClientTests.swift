import Foundation
import HearthTestbed
import Testing

/// The reminders' CalDAV bridge against real clients — Debian's python3-caldav and
/// vdirsyncer — with a real hub (Tests/python/caldav_clients_test.py says what it checks).
@Suite struct CalDAVClientTests {
  @Test func realCalDAVClientsDiscoverQuerySyncAndWriteThroughTheHub() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let hub = try HubProcess(directory: directory)
    _ = try hub.waitUntilReady()
    defer { _ = hub.terminate() }
    var environment = ProcessInfo.processInfo.environment
    environment["HEARTH_DATABASE"] = hub.databasePath
    environment["HEARTH_RUNTIME_DIR"] = hub.runtimeDirectory
    environment["HOME"] = directory.path  // vdirsyncer's own files
    let (status, text) = try runPythonScript(
      "caldav_clients_test.py",
      [
        try Executables.path("hearth-reminders"), try Executables.path("hearth"),
        directory.appendingPathComponent("clients").path,
      ], environment: environment)
    #expect(status == 0, "\(text.suffix(4000))")
    #expect(text.hasSuffix("ok\n"))
  }
}
