import Foundation
import HearthCommandLine
import HearthTransport
import HearthWire

let pluginsCommand = Command(
  "plugins", arguments: "[add NAME | remove NAME]",
  summary: "the plugins: their tables, cursors and keys; issue or revoke a plugin's key",
  details: """
    With no argument: every registered plugin and every plugin with a key — its version,
    the tables it owns, its cursor, and its key (issued, revoked or none).
    add NAME     issues plugin NAME a CURVE key pair in the keyring (keys/plugins/NAME.key,
                 mode 0600) and makes its files' directory (plugins/NAME); only a
                 connection with that key may act as NAME at the hub. Prints the key file
                 and its public key. Refused when NAME has a key.
    remove NAME  revokes NAME's key: the hub refuses it from the next request on, and the
                 plugin is issued no new key until `add`. Its tables and rows stay.
    """
) { input in
  let paths = hubPaths(input)
  let keyring = paths.keyring
  switch input.positionals.first {
  case "add":
    let name = try input.positional(1, name: "NAME")
    do {
      let keys = try keyring.issue(name)
      // The one place under the data directory the plugin's unit may write.
      try FileManager.default.createDirectory(
        atPath: paths.filesDirectory(ofPlugin: name), withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
      return .message(
        "issued plugin \(name) its key: \(keyring.keyPath(ofPlugin: name))\n"
          + "public key: \(keys.publicKey)",
        json: [
          "plugin": name, "keyFile": keyring.keyPath(ofPlugin: name), "publicKey": keys.publicKey,
        ])
    } catch let error as KeyringError {
      throw CommandError("\(error)")
    }
  case "remove":
    let name = try input.positional(1, name: "NAME")
    guard try keyring.revoke(name) else {
      throw CommandError("plugin \(name) has no key in \(keyring.pluginsDirectory)")
    }
    return .message(
      "revoked plugin \(name)'s key; its tables and rows stay (hearth plugins add \(name) "
        + "issues a new key)",
      json: ["plugin": name, "revoked": true])
  case nil:
    return try listPlugins(paths)
  case let other?:
    throw CommandError.usage("hearth plugins takes add NAME or remove NAME, not \(other)")
  }
}

/// Every registered plugin and every plugin with a key, with its key's state.
private func listPlugins(_ paths: HubPaths) throws -> CommandOutput {
  let registered =
    FileManager.default.fileExists(atPath: paths.databasePath)
    ? try openDatabase(paths).read(HubTables.registeredPlugins) : []
  let keyring = paths.keyring
  let issued = Dictionary(
    keyring.issuedKeys().plugins.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first }
  )
  let revoked =
    ((try? FileManager.default.contentsOfDirectory(atPath: keyring.pluginsDirectory)) ?? [])
    .filter { $0.hasSuffix(".revoked") }.map { String($0.dropLast(".revoked".count)) }
  let names = Set(registered.map(\.name)).union(issued.keys).union(revoked).sorted()
  let rows = names.map { name -> [String: Any] in
    let plugin = registered.first { $0.name == name }
    let key =
      issued[name].map { _ in "issued" }
      ?? (revoked.contains(name) ? "revoked" : "none")
    return [
      "name": name, "version": plugin?.version ?? NSNull(), "tables": plugin?.tables ?? [],
      "cursor": plugin?.cursor.map { $0 as Any } ?? NSNull(), "key": key,
      "publicKey": issued[name] ?? NSNull(),
    ]
  }
  return .lines(
    rows.map { row in
      let tables = row["tables"] as? [String] ?? []
      return "\(row["name"]!) \(row["version"] as? String ?? "(not registered)")  tables: "
        + (tables.isEmpty ? "-" : tables.joined(separator: ","))
        + "  cursor: \((row["cursor"] as? Int64).map(String.init) ?? "-")  key: \(row["key"]!)"
    },
    json: rows)
}
