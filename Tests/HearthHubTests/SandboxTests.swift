import Foundation
import HearthTestbed
import HearthTransport
import HearthWire
import Testing

/// A feature in the sandbox its unit (`etc/hearth-feature@.service`) gives it, reproduced
/// with the same mount namespace: the data directory read-only (the database, `-wal` and
/// `-shm` included) but for the plugin's own files, the runtime directory read-only, the
/// keyring out of sight, the plugin's key handed over as a credential. It reads and writes
/// through the hub as itself, and cannot write the file, read another plugin's key, or put
/// its own key where the hub's is published.
@Suite struct SandboxTests {
  @Test func aFeatureInItsUnitsSandboxReadsAndWritesOnlyThroughTheHub() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let hub = try HubProcess(directory: directory)
    _ = try hub.waitUntilReady()
    defer { _ = hub.terminate() }
    let paths = HubPaths(databasePath: hub.databasePath, runtimeDirectory: hub.runtimeDirectory)
    // What `hearth plugins add` does for each, and the unit's LoadCredential= for one.
    for plugin in ["attachments", "reminders"] {
      try paths.keyring.issue(plugin)
      try FileManager.default.createDirectory(
        atPath: paths.filesDirectory(ofPlugin: plugin), withIntermediateDirectories: true)
    }
    let credentials = directory.appendingPathComponent("credentials").path
    try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      atPath: paths.keyring.keyPath(ofPlugin: "attachments"),
      toPath: credentials + "/" + "hearth-plugin.key")
    // The reminders feature registers and writes from outside, so that there is a row.
    let reminders = try Executables.path("hearth-reminders")
    let added = try run(reminders, ["add", "outside", "--json"], paths: paths)
    #expect(added.status == 0)
    let reminder =
      try #require(
        (try JSONSerialization.jsonObject(with: Data(added.output.utf8)) as? [String: Any])?[
          "reminder"] as? [String: Any])?["id"] as? String
    let image = directory.appendingPathComponent("dot.png")
    try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]).write(to: image)

    let data = (paths.databasePath as NSString).deletingLastPathComponent
    let own = paths.filesDirectory(ofPlugin: "attachments")
    let attachments = try Executables.path("hearth-attachments")
    let script = """
      set -u
      mount --bind "$DATA" "$DATA" && mount --bind "$OWN" "$OWN" \
        && mount -o remount,bind,ro "$DATA" && mount -t tmpfs -o size=1m tmpfs "$DATA/keys" \
        && mount --bind "$RUN" "$RUN" && mount -o remount,bind,ro "$RUN" || exit 90
      "$FEATURE" add reminders "$REMINDER" --image "$IMAGE" >/dev/null && echo wrote-through-hub
      "$FEATURE" list --json | grep -q '"kind":"image"' && echo read-the-file
      "$FEATURE" verify >/dev/null && echo stored-own-file
      /usr/bin/python3 -c '
      import sqlite3, sys
      try:
          db = sqlite3.connect("file:" + sys.argv[1] + "?mode=rw", uri=True)
          db.execute("DELETE FROM reminders"); db.commit(); print("WROTE-THE-FILE")
      except sqlite3.Error as error:
          print("file-refused:", error)
      ' "$DATABASE"
      cat "$DATA/keys/plugins/reminders.key" >/dev/null 2>&1 && echo READ-ANOTHER-KEY \
        || echo keys-hidden
      { echo x > "$RUN/hub.pub"; } 2>/dev/null && echo REPLACED-THE-HUB-KEY || echo hub-key-kept
      """
    var environment = ProcessInfo.processInfo.environment
    environment.merge(
      [
        "DATA": data, "OWN": own, "RUN": paths.runtimeDirectory, "FEATURE": attachments,
        "IMAGE": image.path, "REMINDER": reminder ?? "", "DATABASE": paths.databasePath,
        "CREDENTIALS_DIRECTORY": credentials,
        "HEARTH_DATABASE": paths.databasePath, "HEARTH_RUNTIME_DIR": paths.runtimeDirectory,
      ]
    ) { $1 }
    // As root, a mount namespace; as anyone else, inside a user namespace of their own.
    let unshare =
      (getuid() == 0 ? [] : ["--user", "--map-root-user"]) + [
        "--mount", "--propagation", "private", "/bin/sh", "-c", script,
      ]
    let sandboxed = try run("/usr/bin/unshare", unshare, paths: paths, environment: environment)
    #expect(sandboxed.status == 0, "\(sandboxed.output)")
    let lines = sandboxed.output.split(separator: "\n").map(String.init)
    #expect(
      lines.filter { !$0.hasPrefix("file-refused") } == [
        "wrote-through-hub", "read-the-file", "stored-own-file", "keys-hidden", "hub-key-kept",
      ], "\(sandboxed.output)")
    #expect(
      lines.contains { $0.hasPrefix("file-refused:") && $0.contains("readonly") },
      "\(sandboxed.output)")
    // Outside, the reminder is still there and the attachment came through the hub.
    let shown = try run(reminders, ["show", "--json"], paths: paths)
    #expect(shown.output.contains("outside"))
  }

  /// Runs `executable` against the hub at `paths` (or in `environment`).
  func run(
    _ executable: String, _ arguments: [String], paths: HubPaths,
    environment: [String: String]? = nil
  ) throws -> (status: Int32, output: String) {
    var base = ProcessInfo.processInfo.environment
    base["HEARTH_DATABASE"] = paths.databasePath
    base["HEARTH_RUNTIME_DIR"] = paths.runtimeDirectory
    return try runToEnd(path: executable, arguments, environment: environment ?? base)
  }
}
