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
  if error.resultCode == .SQLITE_CONSTRAINT {
    return .usage(
      "the change breaks a rule of the data (\(error.message ?? "constraint failed")); "
        + "nothing was changed")
  }
  return nil
}
