import Foundation
import HearthData
import HearthWire

// The command line of a feature: subcommands with `--help`, human output by default and
// `--json` for scripts, exit codes that mean something, and errors that say what to do.
// Every feature of this repository is written with it, as a plugin author's would be.
//
// ```swift
// let tool = FeatureTool(name: "hearth-facts", summary: "number facts", commands: [
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
}

/// An error a command reports to the person at the terminal: what went wrong and what to do.
public struct FeatureError: Error, CustomStringConvertible, Sendable {
  public var message: String
  public var exitCode: ExitCode

  public init(_ message: String, exitCode: ExitCode = .failure) {
    self.message = message
    self.exitCode = exitCode
  }

  public static func usage(_ message: String) -> FeatureError { .init(message, exitCode: .usage) }
  public static func notFound(_ message: String) -> FeatureError {
    .init(message, exitCode: .notFound)
  }

  public var description: String { message }
}

/// A command's result: text for people, JSON for scripts. Each is made only when asked for
/// (`--json` or not), so a command never renders the form nobody reads.
public struct CommandOutput {
  let text: () -> String
  let json: () throws -> Data

  /// A confirmation, and the JSON object scripts get instead.
  public static func message(_ text: String, json: [String: Any] = [:]) -> CommandOutput {
    CommandOutput(
      text: { text },
      json: {
        try JSONSerialization.data(
          withJSONObject: json, options: [.sortedKeys, .withoutEscapingSlashes])
      })
  }

  /// Values for both: printed with `render`, encoded as JSON with `JSONEncoder` (sorted
  /// keys, dates in ISO 8601).
  public static func values<T: Encodable>(_ values: T, render: @escaping (T) -> String)
    -> CommandOutput
  {
    CommandOutput(
      text: { render(values) },
      json: {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(values)
      })
  }
}

/// The parsed command line of one command: positional arguments, options and flags.
public struct CommandInput {
  public private(set) var positionals: [String] = []
  private var options: [String: [String]] = [:]
  private var flags: Set<String> = []
  /// Whether the output should be JSON (`--json`).
  public let json: Bool

  /// Parses `arguments`; `valued` names the options that take a value (`--due DATE`).
  init(_ arguments: [String], valued: Set<String>) throws {
    var json = false
    var index = 0
    var onlyPositionals = false
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if onlyPositionals || !argument.hasPrefix("--") || argument == "-" {
        positionals.append(argument)
        continue
      }
      if argument == "--" {
        onlyPositionals = true
        continue
      }
      var name = String(argument.dropFirst(2))
      var value: String?
      if let equals = name.firstIndex(of: "=") {
        value = String(name[name.index(after: equals)...])
        name = String(name[..<equals])
      }
      if name == "json" {
        json = true
      } else if valued.contains(name) {
        if value == nil {
          guard index < arguments.count else {
            throw FeatureError.usage("--\(name) needs a value")
          }
          value = arguments[index]
          index += 1
        }
        options[name, default: []].append(value!)
      } else if value == nil {
        flags.insert(name)
      } else {
        throw FeatureError.usage("--\(name) takes no value")
      }
    }
    self.json = json
  }

  /// Whether `--name` was given.
  public func flag(_ name: String) -> Bool { flags.contains(name) }

  /// The value of `--name`, the last one if given twice.
  public func option(_ name: String) -> String? { options[name]?.last }

  /// Every value of a repeated `--name`.
  public func options(_ name: String) -> [String] { options[name] ?? [] }

  /// `--name S` as a number of seconds within `range`, or `defaultValue` when not given.
  public func seconds(_ name: String, default defaultValue: Double, in range: ClosedRange<Double>)
    throws -> Double
  {
    guard let text = option(name) else { return defaultValue }
    guard let value = Double(text), range.contains(value) else {
      throw FeatureError.usage(
        "--\(name) takes seconds from \(String(format: "%g", range.lowerBound)) to \(String(format: "%g", range.upperBound)), not '\(text)'"
      )
    }
    return value
  }

  /// Positional argument `index`, or a usage error naming it.
  public func positional(_ index: Int, name: String) throws -> String {
    guard index < positionals.count else { throw FeatureError.usage("missing \(name)") }
    return positionals[index]
  }

  /// Positional argument `index` as a number (an id), or a usage error naming it.
  public func positional(_ index: Int, as type: Int.Type, name: String) throws -> Int {
    let text = try positional(index, name: name)
    guard let value = Int(text) else {
      throw FeatureError.usage("\(name) must be a number, not '\(text)'")
    }
    return value
  }

  /// The positional arguments from `index` on, joined by spaces (a title typed unquoted).
  public func text(from index: Int, name: String) throws -> String {
    guard index < positionals.count else { throw FeatureError.usage("missing \(name)") }
    return positionals[index...].joined(separator: " ")
  }
}

/// One subcommand.
public struct Command {
  public var name: String
  /// The arguments' synopsis, for `--help`: `"ID [--due DATE]"`.
  public var arguments: String
  public var summary: String
  /// Longer help: options and examples.
  public var details: String
  /// The options that take a value.
  public var valuedOptions: Set<String>
  public var run: (CommandInput) throws -> CommandOutput

  public init(
    _ name: String, arguments: String = "", summary: String, details: String = "",
    valuedOptions: Set<String> = [], run: @escaping (CommandInput) throws -> CommandOutput
  ) {
    self.name = name
    self.arguments = arguments
    self.summary = summary
    self.details = details
    self.valuedOptions = valuedOptions
    self.run = run
  }

  var usageLine: String { arguments.isEmpty ? name : "\(name) \(arguments)" }
}

/// A feature's executable: its commands, help, output and exit codes.
public struct FeatureTool {
  public var name: String
  public var summary: String
  public var commands: [Command]

  public init(name: String, summary: String, commands: [Command]) {
    self.name = name
    self.summary = summary
    self.commands = commands
  }

  public var help: String {
    let width = (commands.map(\.usageLine.count).max() ?? 0) + 2
    let lines = commands.map { command in
      "  " + command.usageLine.padding(toLength: width, withPad: " ", startingAt: 0)
        + command.summary
    }
    return """
      \(name): \(summary)

      usage: \(name) COMMAND [ARGUMENTS] [--json]

      commands:
      \(lines.joined(separator: "\n"))

      `\(name) COMMAND --help` tells more. Output is for people; --json prints JSON for
      scripts. Exit codes: 0 done, 1 failed, 2 bad input (nothing changed), 3 hub not
      running, 4 no such id.
      """
  }

  func help(for command: Command) -> String {
    var text = "usage: \(name) \(command.usageLine) [--json]\n\n\(command.summary)"
    if !command.details.isEmpty { text += "\n\n" + command.details }
    return text
  }

  /// Runs the command the process was started with and exits with its code.
  public func main() -> Never {
    let code: ExitCode
    do {
      code = try run(try validatedArguments())
    } catch {
      code = report(error)
    }
    exit(code.rawValue)
  }

  /// Runs `arguments` (without the executable's name), printing to standard output.
  public func run(_ arguments: [String]) throws -> ExitCode {
    guard let first = arguments.first, first != "--help", first != "-h", first != "help" else {
      print(help)
      return arguments.isEmpty ? .usage : .success
    }
    guard let command = commands.first(where: { $0.name == first }) else {
      throw FeatureError.usage("unknown command '\(first)'; `\(name) --help` lists them")
    }
    let rest = Array(arguments.dropFirst())
    if rest.contains("--help") || rest.contains("-h") {
      print(help(for: command))
      return .success
    }
    let input = try CommandInput(rest, valued: command.valuedOptions)
    let output = try command.run(input)
    if input.json {
      print(String(decoding: try output.json(), as: UTF8.self))
    } else {
      let text = output.text()
      if !text.isEmpty { print(text) }
    }
    return .success
  }

  /// Prints `error` as a message that says what to do; returns its exit code.
  public func report(_ error: any Error) -> ExitCode {
    let (message, code): (String, ExitCode) =
      switch error {
      case let error as FeatureError:
        (error.message, error.exitCode)
      case let error as DatabaseError where error.hubCode == .unavailable:
        (error.message ?? "\(error)", .hubUnavailable)
      case let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT:
        (
          "the change breaks a rule of the data (\(error.message ?? "constraint failed")); nothing was changed",
          .usage
        )
      default:
        ("\(error)", .failure)
      }
    FileHandle.standardError.write(Data("\(name): \(message)\n".utf8))
    return code
  }

  /// The arguments as bytes, refused unless each is valid UTF-8 (Swift would otherwise
  /// replace bad bytes silently, storing text the user never typed).
  func validatedArguments() throws -> [String] {
    try (1..<Int(CommandLine.argc)).map { index in
      guard let pointer = CommandLine.unsafeArgv[index] else { return "" }
      let bytes = UnsafeBufferPointer(start: pointer, count: strlen(pointer))
        .map { UInt8(bitPattern: $0) }
      guard let text = String(validating: bytes, as: UTF8.self) else {
        throw FeatureError.usage(
          "argument \(index) is not valid UTF-8 text; check the terminal's encoding (locale)")
      }
      return text
    }
  }
}

/// Reads standard input as UTF-8 text (for `--notes -`), refusing invalid bytes and more
/// than `limit` bytes.
public func readStandardInput(limit: Int) throws -> String {
  var data = Data()
  while let chunk = try FileHandle.standardInput.read(upToCount: 65_536), !chunk.isEmpty {
    data += chunk
    if data.count > limit {
      throw FeatureError.usage(
        "the input is longer than \(byteCount(limit)); nothing was saved")
    }
  }
  guard let text = String(validating: data, as: UTF8.self) else {
    throw FeatureError.usage("the input is not valid UTF-8 text; nothing was saved")
  }
  return text
}

/// `1 MiB`, `512 KiB`, `300 bytes`.
public func byteCount(_ count: Int) -> String {
  if count >= 1 << 20, count % (1 << 20) == 0 { return "\(count >> 20) MiB" }
  if count >= 1 << 20 { return String(format: "%.1f MiB", Double(count) / Double(1 << 20)) }
  if count >= 1 << 10 { return "\(count >> 10) KiB" }
  return "\(count) bytes"
}
