import Foundation

/// An executable of subcommands: their help, output and exit codes.
public struct Tool {
  public var name: String
  public var summary: String
  public var commands: [Command]
  /// Options every command takes a value for (`--database PATH`), besides its own.
  public var globalOptions: Set<String>
  /// Turns an error of a lower layer into what the person at the terminal is told (nil: the
  /// error's own description, exit 1). A plugin's tool explains the hub's errors (exit 3 when
  /// the hub is down): `Tool.feature(…)` in HearthPlugin.
  public var explain: @Sendable (any Error) -> CommandError?
  /// What `--version` prints after the name.
  public var version: String?

  /// Hearth's version, which its executables print with `--version`.
  public static let hearthVersion = "0.1.0"

  public init(
    name: String, summary: String, commands: [Command], globalOptions: Set<String> = [],
    version: String? = nil, explain: @escaping @Sendable (any Error) -> CommandError? = { _ in nil }
  ) {
    self.name = name
    self.version = version
    self.summary = summary
    self.commands = commands
    self.globalOptions = globalOptions
    self.explain = explain
  }

  /// The overview, wrapped to `width` columns (the terminal's, else 80).
  public func help(width: Int = terminalWidth()) -> String {
    """
    \(wrap("\(name): \(summary)", width: width))

    \(wrap("usage: \(name) COMMAND [ARGUMENTS] [--json]" + globalOptions.sorted().map { " [--\($0) …]" }.joined(), width: width))

    commands:
    \(Self.table(commands.map { ($0.usageLine, $0.summary) }, width: width))


    """
      + wrap(
        "`\(name) COMMAND --help` tells more; `man \(name)` tells all. Output is for people; "
          + "--json prints JSON for scripts. Exit codes: 0 done, 1 failed, 2 bad input (nothing "
          + "changed), 3 hub not running, 4 no such id, 5 not permitted. --version, --man (the manual page in "
          + "roff) and --completion bash (a completion script) print what installers need.",
        width: width)
  }

  /// Two columns: a usage, its summary beside it (wrapped), or on the lines below when the
  /// usage is long — never a line wider than `width`.
  static func table(_ rows: [(usage: String, summary: String)], width: Int) -> String {
    // The summaries' column: past the usages, at most 28 columns in, and at most a third of
    // a narrow terminal.
    let column = max(min((rows.map(\.usage.count).max() ?? 0) + 4, 28, width / 3), 8)
    return rows.map { row in
      let indent = String(repeating: " ", count: column)
      let summary = wrap(row.summary, width: max(width - column, 12)).split(
        separator: "\n", omittingEmptySubsequences: false)
      let usage = "  " + row.usage
      var lines: [String]
      if usage.count + 2 <= column {
        lines = [
          usage.padding(toLength: column, withPad: " ", startingAt: 0) + (summary.first ?? "")
        ]
        lines += summary.dropFirst().map { indent + $0 }
      } else {
        // A long usage on lines of its own (continued four columns in), the summary below.
        let usageLines = wrap(row.usage, width: max(width - 6, 20)).split(separator: "\n")
        lines = ["  " + (usageLines.first ?? "")] + usageLines.dropFirst().map { "      " + $0 }
        lines += summary.map { indent + $0 }
      }
      return lines.joined(separator: "\n")
    }.joined(separator: "\n")
  }

  func help(for command: Command, width: Int = terminalWidth()) -> String {
    let usage = hanging("usage: \(name) \(command.usageLine) [--json]", width: width)
    var text = usage + "\n\n" + wrap(command.summary, width: width)
    if !command.details.isEmpty { text += "\n\n" + hanging(command.details, width: width) }
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
    if let answered = try answer(arguments) { return answered }
    guard let command = commands.first(where: { $0.name == arguments.first }) else {
      return .usage  // `answer` has refused an unknown command already
    }
    let input = try CommandInput(
      Array(arguments.dropFirst()), valued: command.valuedOptions.union(globalOptions))
    let output = try command.run(input)
    if input.json {
      print(String(decoding: try output.json(), as: UTF8.self))
    } else {
      // Whatever a render forgot, no byte of the data reaches the terminal as a control.
      let text = output.text().shownAsText
      if !text.isEmpty { print(text) }
    }
    return output.exitCode
  }

  /// Answers what needs no command run — `--version`, `--help`, a command's `--help` — and
  /// refuses an unknown command or option; nil when a command is to run with `arguments`.
  /// Nothing here touches the disk or the hub: a feature calls it (`answerBeforePreparing`)
  /// before it connects.
  public func answer(_ arguments: [String]) throws -> ExitCode? {
    if arguments == ["--version"], let version {
      print("\(name) \(version)")
      return .success
    }
    // The manual page and the completion script, for an installer to write where `man` and
    // bash look (scripts/install-units).
    if arguments == ["--man"] {
      print(manPage.roff, terminator: "")
      return .success
    }
    if arguments.first == "--completion" {
      guard arguments == ["--completion", "bash"] else {
        throw CommandError.usage("--completion takes one shell: bash")
      }
      print(bashCompletion, terminator: "")
      return .success
    }
    guard let first = arguments.first, first != "--help", first != "-h", first != "help" else {
      print(help())
      return arguments.isEmpty ? .usage : .success
    }
    guard let command = commands.first(where: { $0.name == first }) else {
      throw CommandError.usage("unknown command '\(first)'; `\(name) --help` lists them")
    }
    let rest = Array(arguments.dropFirst())
    if rest.contains("--help") || rest.contains("-h") {
      print(help(for: command))
      return .success
    }
    let input = try CommandInput(rest, valued: command.valuedOptions.union(globalOptions))
    try input.checkFlags(
      command.flags, known: command.valuedOptions.union(globalOptions).union(["json", "help"]))
    return nil
  }

  /// For an executable that must prepare (connect to the hub) before its commands run: answers
  /// `--help`, `--version` and bad arguments now, and exits; returns when a command is to run.
  public func answerBeforePreparing() {
    do {
      if let answered = try answer(try validatedArguments()) { exit(answered.rawValue) }
    } catch {
      exit(report(error).rawValue)
    }
  }

  /// Prints `error` as a message that says what to do; returns its exit code.
  public func report(_ error: any Error) -> ExitCode {
    let explained = error as? CommandError ?? explain(error) ?? CommandError("\(error)")
    // No priority prefix: this is for the person at the terminal.
    FileHandle.standardError.write(Data("\(name): \(explained.message)\n".utf8))
    return explained.exitCode
  }

  /// The arguments as bytes, refused unless each is valid UTF-8 (Swift would otherwise
  /// replace bad bytes silently, storing text the user never typed).
  func validatedArguments() throws -> [String] {
    try (1..<Int(CommandLine.argc)).map { index in
      guard let pointer = CommandLine.unsafeArgv[index] else { return "" }
      let bytes = UnsafeBufferPointer(start: pointer, count: strlen(pointer))
        .map { UInt8(bitPattern: $0) }
      guard let text = String(validating: bytes, as: UTF8.self) else {
        throw CommandError.usage(
          "argument \(index) is not valid UTF-8 text; check the terminal's encoding (locale)")
      }
      return text
    }
  }
}

/// The terminal's width in columns (standard output's, else `$COLUMNS`), else 80.
public func terminalWidth() -> Int {
  var size = winsize()
  if isatty(STDOUT_FILENO) != 0, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0
  {
    return Int(size.ws_col)
  }
  return ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init) ?? 80
}

/// Text laid out in columns (`add NAME     issues …`, `usage: tool COMMAND …`) wrapped to
/// `width`. Each entry — a line and the lines below it indented to where its text starts
/// (after its first run of two spaces, or its second word for a usage line) — is reflowed
/// as one paragraph under that column, so the columns stay whatever the width.
public func hanging(_ text: String, width: Int) -> String {
  func column(_ line: Substring) -> Int {
    let leading = line.prefix { $0 == " " }.count
    if let gap = line.dropFirst(leading).range(of: "  ") {
      let start = line[gap.upperBound...].prefix { $0 == " " }.count
      let column = line.distance(from: line.startIndex, to: gap.upperBound) + start
      if column <= 30 { return column }
    } else if line.hasPrefix("usage: ") {
      let words = line.split(separator: " ", maxSplits: 2)
      if words.count == 3 { return min(words[0].count + words[1].count + 2, 30) }
    }
    return leading
  }
  var entries: [(head: Substring, indent: Int, words: [Substring])] = []
  for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
    let leading = line.prefix { $0 == " " }.count
    if let last = entries.last, !last.words.isEmpty, leading == last.indent, !line.isEmpty,
      column(line) == leading
    {
      entries[entries.count - 1].words += line.split(separator: " ")
      continue
    }
    let indent = column(line)
    entries.append((line.prefix(indent), indent, line.dropFirst(indent).split(separator: " ")))
  }
  return entries.map { entry in
    let body = wrap(entry.words.joined(separator: " "), width: max(width - entry.indent, 20))
    let pad = String(repeating: " ", count: entry.indent)
    return body.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map {
      (index, part) in (index == 0 ? String(entry.head) : pad) + part
    }.joined(separator: "\n")
  }.joined(separator: "\n")
}

/// `text` wrapped at spaces to lines of at most `width` characters (a longer word keeps its
/// own line); its line breaks stay.
public func wrap(_ text: String, width: Int) -> String {
  text.split(separator: "\n", omittingEmptySubsequences: false).map { paragraph in
    var lines: [String] = []
    var line = ""
    for word in paragraph.split(separator: " ") {
      if !line.isEmpty, line.count + 1 + word.count > width {
        lines.append(line)
        line = ""
      }
      line += (line.isEmpty ? "" : " ") + word
    }
    lines.append(line)
    return lines.joined(separator: "\n")
  }.joined(separator: "\n")
}
