import Foundation

/// One subcommand.
public struct Command: Sendable {
  public var name: String
  /// The arguments' synopsis, for `--help`: `"ID [--due DATE]"`.
  public var arguments: String
  public var summary: String
  /// Longer help: options and examples.
  public var details: String
  /// The options that take a value.
  public var valuedOptions: Set<String>
  /// The options that take none (`--json` and `--help` are every command's); any other is
  /// refused, so that a misspelt option never passes as text (`add Foo --prio high` would
  /// otherwise save a reminder titled "Foo high").
  public var flags: Set<String>
  public var run: @Sendable (CommandInput) throws -> CommandOutput

  public init(
    _ name: String, arguments: String = "", summary: String, details: String = "",
    valuedOptions: Set<String> = [], flags: Set<String> = [],
    run: @escaping @Sendable (CommandInput) throws -> CommandOutput
  ) {
    self.name = name
    self.arguments = arguments
    self.summary = summary
    self.details = details
    self.valuedOptions = valuedOptions
    self.flags = flags
    self.run = run
  }

  var usageLine: String { arguments.isEmpty ? name : "\(name) \(arguments)" }
}

/// A command's result: text for people, JSON for scripts. Each is made only when asked for
/// (`--json` or not), so a command never renders the form nobody reads.
public struct CommandOutput {
  let text: () -> String
  let json: () throws -> Data
  /// What the process exits with once the output is printed (`hearth check` prints its
  /// verdict and exits 1 when the database fails it).
  public var exitCode = ExitCode.success

  /// Text for people, made only without `--json`; JSON for scripts, made only with it.
  public init(text: @escaping () -> String, json: @escaping () throws -> Data) {
    self.text = text
    self.json = json
  }

  /// The same output, exiting with `code`.
  public func exiting(with code: ExitCode) -> CommandOutput {
    var output = self
    output.exitCode = code
    return output
  }

  /// Several records: a line of text each, or one JSON array of objects — the shape every
  /// command's `--json` prints for several records.
  public static func lines(_ text: [String], json objects: [[String: Any]]) -> CommandOutput {
    CommandOutput(
      text: { text.joined(separator: "\n") },
      json: {
        lowercasedIDs(
          try JSONSerialization.data(
            withJSONObject: objects, options: [.sortedKeys, .withoutEscapingSlashes]))
      })
  }

  /// A confirmation, and the JSON object scripts get instead.
  public static func message(_ text: String, json: [String: Any] = [:]) -> CommandOutput {
    CommandOutput(
      text: { text },
      json: {
        lowercasedIDs(
          try JSONSerialization.data(
            withJSONObject: json, options: [.sortedKeys, .withoutEscapingSlashes]))
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
        return lowercasedIDs(try encoder.encode(values))
      })
  }
}

/// `json` with the UUIDs of its ids in lower case, as the database holds them (Foundation
/// writes a `UUID` in upper case): the value of every key `id` or ending in `ID`/`Id` that
/// is a UUID, so that an id a script reads is one it can use in SQL. Other strings, a
/// title that happens to look like a UUID among them, are left as they are.
func lowercasedIDs(_ json: Data) -> Data {
  let text = String(decoding: json, as: UTF8.self)
  let hex = "[0-9A-F]"
  let uuid = "\(hex){8}-\(hex){4}-\(hex){4}-\(hex){4}-\(hex){12}"
  guard
    let pattern = try? NSRegularExpression(
      pattern: #""(?:[A-Za-z_]*(?:id|ID|Id))":""# + "(\(uuid))\"")
  else { return json }
  let matches = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text))
  guard !matches.isEmpty else { return json }
  var result = text
  for match in matches.reversed() {
    guard let range = Range(match.range(at: 1), in: result) else { continue }
    result.replaceSubrange(range, with: result[range].lowercased())
  }
  return Data(result.utf8)
}
