import Foundation
import HearthCommandLine

let newPluginCommand = Command(
  "new-plugin", arguments: "NAME [--in DIR] [--hearth PATH]",
  summary:
    "writes a working plugin package, hearth-NAME, that builds against this Hearth checkout "
    + "(or PATH) by path",
  valuedOptions: ["in", "hearth"]
) { input in
  guard input.positionals.count == 1 else {
    throw CommandError.usage("new-plugin takes one NAME (e.g. hearth new-plugin notes)")
  }
  let name = input.positionals[0]
  guard PluginScaffold.validate(name) else {
    throw CommandError.usage(
      "'\(name)' cannot name a plugin: use lower-case letters, digits and single hyphens, "
        + "starting with a letter (e.g. reading-list)")
  }
  guard let hearthPath = input.option("hearth") ?? hearthCheckout() else {
    throw CommandError.usage("cannot tell where Hearth is checked out; give --hearth PATH")
  }
  let root: URL
  do {
    root = try PluginScaffold(name: name, hearthPath: hearthPath)
      .write(into: URL(fileURLWithPath: input.option("in") ?? "."))
  } catch {
    throw CommandError("\(error)")
  }
  return .message(
    """
    Created \(root.path), a plugin that builds against \(hearthPath).
    Next: cd \(root.path) && swift build && .build/debug/hearth-\(name) add "hello"
    (with the hub running). Guide: \(hearthPath)/docs/plugin-guide.md
    """, json: ["path": root.path, "executable": "hearth-\(name)"])
}
