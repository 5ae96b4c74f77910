import Foundation
import HearthData
import HearthDataTestSupport
import HearthHub
import HearthPlugin
import HearthSQLite
import HearthTestbed
import HearthWire
import HearthZMQ
import Synchronization
import Testing

@Suite struct PythonProtocolTests {
  @Test func aPythonClientWithPyzmqOnlyFollowsTheSpec() throws {
    let python = "/usr/bin/python3"
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let hub = try HubProcess(directory: directory)
    _ = try hub.waitUntilReady()
    defer { _ = hub.terminate() }
    // The owner issues the plugin its key, as `hearth plugins add py` does.
    let keyring = HubPaths(databasePath: hub.databasePath, runtimeDirectory: hub.runtimeDirectory)
      .keyring
    try keyring.issue("py")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = [
      Executables.packageRoot.appendingPathComponent("Tests/python/hub_protocol_test.py").path,
      hub.runtimeDirectory, keyring.keyPath(ofPlugin: "py"),
    ]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    // Read to the end first: a long report would fill the pipe and block the script.
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(text.prefix(4000))")
    #expect(text.contains("ok"))
  }
}
