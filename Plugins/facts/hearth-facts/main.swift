// hearth-facts: the facts feature's command line (see FactsFeature/Commands.swift).
import FactsFeature
import Foundation
import HearthData
import HearthPlugin

let tool = factsTool()
// --help, --version and bad arguments are answered before the hub is reached.
tool.answerBeforePreparing()
do {
  try prepareDependencies {
    $0.defaultDatabase = try HubDatabase(factsRegistration())
    $0.defaultSyncEngine = try factsSyncEngine(for: $0.defaultDatabase)
  }
} catch {
  exit(tool.report(error).rawValue)
}
tool.main()
