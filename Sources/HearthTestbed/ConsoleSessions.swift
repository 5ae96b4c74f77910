import Foundation

/// The ```` ```console ```` blocks of a Markdown document, run as a reader would type them, and
/// what each command printed against what the document shows.
///
/// In a block, a line starting with `$ ` is a command; the lines after it, up to the next
/// command, are what it prints (standard output and error together). In a shown line, `…`
/// stands for any text, and a line that is only `…` for any number of lines; an id (eight or
/// more hexadecimal digits, or a UUID) matches any id.
public struct ConsoleSession: Sendable {
  public struct Step: Sendable {
    public var command: String
    public var shown: [String]
  }

  public var steps: [Step]

  /// The steps of every console block of `markdown`, in order.
  public init(markdown: String) {
    var steps: [Step] = []
    var inBlock = false
    for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("```") {
        inBlock = line == "```console"
        continue
      }
      guard inBlock else { continue }
      if line.hasPrefix("$ ") {
        steps.append(Step(command: String(line.dropFirst(2)), shown: []))
      } else if !steps.isEmpty {
        steps[steps.count - 1].shown.append(String(line))
      }
    }
    self.steps = steps
  }

  public struct Outcome: Sendable {
    public var command: String
    public var status: Int32
    public var printed: [String]
    /// Why the printed lines are not what the document shows; nil when they are.
    public var mismatch: String?
  }

  /// Runs every step in one bash, in `directory` (so that `cd`, `&` and `%1` work as typed),
  /// and compares. Background jobs still running at the end are killed.
  public func run(in directory: URL, environment: [String: String]) throws -> [Outcome] {
    let marker = "@@hearth-step@@"
    var script = "cd \(quoted(directory.path))\n"
    for (index, step) in steps.enumerated() {
      script += "{ \(step.command)\n} 2>&1\nprintf '\\n\(marker) \(index) %d\\n' $?\n"
    }
    script += "kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; exit 0\n"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", script]
    process.environment = environment
    process.currentDirectoryURL = directory
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()

    var outcomes: [Outcome] = []
    var printed: [String] = []
    for line in output.split(separator: "\n", omittingEmptySubsequences: false) {
      guard line.hasPrefix(marker + " ") else {
        printed.append(String(line))
        continue
      }
      let fields = line.split(separator: " ")
      guard fields.count == 3, let index = Int(fields[1]), let status = Int32(fields[2]),
        index == outcomes.count
      else { throw TestbedError("a console session's output lost its step markers: \(line)") }
      // The newline printed before each marker ends the command's last line.
      if printed.last == "" { printed.removeLast() }
      let step = steps[index]
      outcomes.append(
        Outcome(
          command: step.command, status: status, printed: printed,
          mismatch: Self.compare(printed, shown: step.shown)))
      printed = []
    }
    guard outcomes.count == steps.count else {
      throw TestbedError(
        "the session stopped after \(outcomes.count) of \(steps.count) commands:\n\(output)")
    }
    return outcomes
  }

  /// nil when `printed` is what `shown` shows.
  static func compare(_ printed: [String], shown: [String]) -> String? {
    func matches(_ line: String, _ pattern: String) -> Bool {
      let normalizedLine = normalizeIDs(line)
      let parts = normalizeIDs(pattern).components(separatedBy: "…")
      var rest = Substring(normalizedLine)
      for (index, part) in parts.enumerated() {
        if index == 0 {
          guard rest.hasPrefix(part) else { return false }
          rest = rest.dropFirst(part.count)
        } else if index == parts.count - 1 {
          return rest.hasSuffix(part)
        } else {
          guard let range = rest.range(of: part) else { return false }
          rest = rest[range.upperBound...]
        }
      }
      return rest.isEmpty
    }
    // Lines against patterns, where a pattern of only `…` takes any number of lines.
    func match(_ lines: ArraySlice<String>, _ patterns: ArraySlice<String>) -> Bool {
      guard let pattern = patterns.first else { return lines.isEmpty }
      if pattern == "…" {
        return (0...lines.count).contains { match(lines.dropFirst($0), patterns.dropFirst()) }
      }
      guard let line = lines.first, matches(line, pattern) else { return false }
      return match(lines.dropFirst(), patterns.dropFirst())
    }
    if match(printed[...], shown[...]) { return nil }
    return "shown:\n" + shown.joined(separator: "\n") + "\nprinted:\n"
      + printed.joined(separator: "\n")
  }

  /// Ids made alike: a UUID, or eight or more hexadecimal digits with a digit among them.
  static func normalizeIDs(_ text: String) -> String {
    text.replacing(
      /[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}|\b(?=[a-f]*[0-9])[0-9a-f]{8,}\b/,
      with: "<id>")
  }

  private func quoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}
