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
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = [
      Executables.packageRoot.appendingPathComponent("Tests/python/caldav_clients_test.py").path,
      try Executables.path("hearth-reminders"), try Executables.path("hearth"),
      directory.appendingPathComponent("clients").path,
    ]
    var environment = ProcessInfo.processInfo.environment
    environment["HEARTH_DATABASE"] = hub.databasePath
    environment["HEARTH_RUNTIME_DIR"] = hub.runtimeDirectory
    environment["HOME"] = directory.path  // vdirsyncer's own files
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(text.suffix(4000))")
    #expect(text.hasSuffix("ok\n"))
  }
}
