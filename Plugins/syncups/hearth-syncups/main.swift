// hearth-syncups: the sync-ups feature's command line (see SyncUpsFeature/Commands.swift).
import Foundation
import HearthData
import HearthPlugin
import SyncUpsFeature

let tool = syncUpsTool()
// --help, --version and bad arguments are answered before the hub is reached.
tool.answerBeforePreparing()
do {
  try prepareDependencies {
    $0.defaultDatabase = try HubDatabase(syncUpsRegistration())
    $0.defaultSyncEngine = try syncUpsSyncEngine(for: $0.defaultDatabase)
  }
} catch {
  exit(tool.report(error).rawValue)
}
tool.main()
