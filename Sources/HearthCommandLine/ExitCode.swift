// A small command-line toolkit that depends on nothing: every Hearth executable (hearth,
// hearthd, the features, the benchmarks and the fault suite) parses, helps and exits with it.
//
// ```swift
// let tool = Tool(name: "hearth-facts", summary: "number facts", commands: [
//   Command("add", arguments: "NUMBER", summary: "asks for a fact") { input in
//     let number = try input.positional(0, as: Int.self, name: "NUMBER")
//     …
//     return .message("Saved fact \(id).", json: ["id": id])
//   },
// ])
// tool.main()
// ```

/// What a command's failure means, as an exit code.
public enum ExitCode: Int32, Sendable {
  case success = 0
  /// Anything else that failed; the message says what.
  case failure = 1
  /// The command line or its input is wrong: nothing was changed.
  case usage = 2
  /// The hub is not running or did not answer.
  case hubUnavailable = 3
  /// An id or name that names nothing.
  case notFound = 4
  /// The person may not do it: a share they may only read, one that is someone else's.
  case notPermitted = 5
}

/// An error a command reports to the person at the terminal: what went wrong and what to do.
/// Thrown from a command (or from parsing its input); `Tool` prints it and exits with its code.
public struct CommandError: Error, CustomStringConvertible, Sendable {
  public var message: String
  public var exitCode: ExitCode

  public init(_ message: String, exitCode: ExitCode = .failure) {
    self.message = message
    self.exitCode = exitCode
  }

  public static func usage(_ message: String) -> CommandError { .init(message, exitCode: .usage) }
  public static func notFound(_ message: String) -> CommandError {
    .init(message, exitCode: .notFound)
  }

  public var description: String { message }
}
