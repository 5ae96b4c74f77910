// hearth-reminders: the reminders feature's command line (see RemindersFeature/Tool.swift).
import Foundation
import HearthData
import HearthPlugin
import RemindersFeature

let tool = remindersTool()
// --help, --version and bad arguments are answered before the hub is reached.
tool.answerBeforePreparing()
do {
  try prepareDependencies {
    $0.defaultDatabase = try HubDatabase(remindersRegistration())
    $0.defaultSyncEngine = try remindersSyncEngine(for: $0.defaultDatabase)
  }
} catch {
  exit(tool.report(error).rawValue)
}
tool.main()
