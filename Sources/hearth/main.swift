// hearth: the admin CLI of a Hearth hub. One file per command under Commands/; the
// toolkit (HearthCommandLine) parses, helps and exits.
//
// Exit codes: 0 success, 1 failure (the message says what to do), 2 bad usage, 3 hub down.
import HearthCommandLine
import HearthWire

let hearth = Tool(
  name: "hearth", summary: "the admin command line of a Hearth hub",
  commands: [
    statusCommand, pluginsCommand, subscribeCommand, queryCommand, backupCommand, checkCommand,
    newPluginCommand, syncCommand,
  ],
  globalOptions: ["database", "runtime-dir", "keys-dir"],
  version: "\(Tool.hearthVersion) (protocol \(WireProtocol.version))")
hearth.main()
