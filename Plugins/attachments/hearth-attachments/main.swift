// hearth-attachments: the attachments feature's command line (see
// AttachmentsFeature/Commands.swift).
import AttachmentsFeature
import Foundation
import HearthData
import HearthPlugin

let tool = attachmentsTool()
// --help, --version and bad arguments are answered before the hub is reached.
tool.answerBeforePreparing()
do {
  try prepareDependencies {
    $0.defaultDatabase = try HubDatabase(attachmentsRegistration())
    $0.defaultSyncEngine = try attachmentsSyncEngine(for: $0.defaultDatabase)
  }
} catch {
  exit(tool.report(error).rawValue)
}
tool.main()
