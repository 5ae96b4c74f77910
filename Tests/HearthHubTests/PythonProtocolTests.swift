import Foundation
import HearthData
import HearthDataTestSupport
import HearthHub
import HearthPlugin
import HearthSQLite
import HearthTestbed
import HearthTransport
import HearthWire
import Synchronization
import Testing

@Suite struct PythonProtocolTests {
  @Test func aPythonClientWithPyzmqOnlyFollowsTheSpec() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let hub = try HubProcess(directory: directory)
    _ = try hub.waitUntilReady()
    defer { _ = hub.terminate() }
    // The owner issues the plugin its key, as `hearth plugins add py` does.
    let keyring = HubPaths(databasePath: hub.databasePath, runtimeDirectory: hub.runtimeDirectory)
      .keyring
    try keyring.issue("py")
    let (status, text) = try runPythonScript(
      "hub_protocol_test.py", [hub.runtimeDirectory, keyring.keyPath(ofPlugin: "py")])
    #expect(status == 0, "\(text.prefix(4000))")
    #expect(text.contains("ok"))
  }
}
