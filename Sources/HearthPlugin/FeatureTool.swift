import Foundation
@_exported import HearthCommandLine
import HearthData
import HearthWire

extension Tool {
  /// A feature's executable (`hearth-NAME`): a `Tool` whose errors from the hub and the data
  /// are told as such — exit 3 when the hub is down, 2 for a change that breaks a rule of the
  /// data (nothing was changed).
  public static func feature(name: String, summary: String, commands: [Command]) -> Tool {
    Tool(
      name: name, summary: summary, commands: commands, version: Tool.hearthVersion,
      explain: explainHubError)
  }
}

/// What a person at the terminal is told of an error of the hub or of the data.
@Sendable public func explainHubError(_ error: any Error) -> CommandError? {
  guard let error = error as? DatabaseError else { return nil }
  if error.hubCode == .unavailable {
    return CommandError(error.message ?? "\(error)", exitCode: .hubUnavailable)
  }
  if error.resultCode == .SQLITE_CONSTRAINT,
    error.message?.contains(SyncEngine.writePermissionError) == true
  {
    return CommandError(readOnlyRefusal(), exitCode: .notPermitted)
  }
  if error.resultCode == .SQLITE_CONSTRAINT {
    return .usage(
      "the change breaks a rule of the data (\(error.message ?? "constraint failed")); "
        + "nothing was changed")
  }
  return nil
}

/// A write into a share this person may only read: which share that is (the hub's guard
/// says only that one was hit; a hub rarely has more than a few read-only shares, and each
/// is named), whose, and what they may do.
private func readOnlyRefusal() -> String {
  @Dependency(\.defaultDatabase) var database
  let shares =
    (try? database.read { db -> [SyncShare] in
      guard try db.tableExists("hearth_sync_shares") else { return [] }
      return try String.fetchAll(db, sql: "SELECT share FROM hearth_sync_shares ORDER BY zone")
        .compactMap { try? JSONDecoder().decode(SyncShare.self, from: Data($0.utf8)) }
    }) ?? []
  let readOnly = shares.filter { !$0.isWritable }
  let named = readOnly.prefix(3).map { share in
    let title = share.title.map { "“\($0)”" } ?? "\(share.rootType) \(share.rootName.prefix(8))"
    return "\(title), shared with you by \(share.owner) to read only"
  }
  let which =
    named.isEmpty
    ? "a share you may only read"
    : named.joined(separator: "; ") + (readOnly.count > 3 ? "; …" : "")
  return "not permitted: this is in \(which): you may not change it or what is in it; "
    + "nothing was changed (\(SyncEngine.writePermissionError))"
}
