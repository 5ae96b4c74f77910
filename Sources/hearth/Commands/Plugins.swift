import Foundation
import HearthCommandLine
import HearthWire

let pluginsCommand = Command(
  "plugins", summary: "the registered plugins, the tables they own, their cursors"
) { input in
  let plugins = try openDatabase(hubPaths(input)).read(HubTables.registeredPlugins)
  return .lines(
    plugins.map { plugin in
      "\(plugin.name) \(plugin.version)  tables: "
        + (plugin.tables.isEmpty ? "-" : plugin.tables.joined(separator: ","))
        + "  cursor: \(plugin.cursor.map(String.init) ?? "-")"
    },
    json: plugins.map { plugin in
      [
        "name": plugin.name, "version": plugin.version, "tables": plugin.tables,
        "cursor": plugin.cursor.map { $0 as Any } ?? NSNull(),
      ]
    })
}
