import Foundation

/// A manual page in roff (`man 7 man-pages`), made from the same declarations that parse a
/// command line, so that `man hearth` can never disagree with `hearth --help`.
public struct ManPage: Sendable {
  public struct Item: Sendable {
    /// The tag, shown bold: `add TITLE… [--due DATE]`, `--json`.
    public var term: String
    public var text: String
    /// Lines shown as written below the text (a command's details, aligned in columns).
    public var verbatim: String

    public init(_ term: String, _ text: String, verbatim: String = "") {
      self.term = term
      self.text = text
      self.verbatim = verbatim
    }
  }

  public enum Section: Sendable {
    /// Paragraphs of running text.
    case paragraphs(String, [String])
    /// Text shown as written (a usage block, a config file).
    case verbatim(String, String)
    /// Tagged paragraphs: a term, its explanation indented below.
    case items(String, [Item])
  }

  public var name: String
  public var summary: String
  public var synopsis: [String]
  public var sections: [Section]
  public var version: String

  public init(
    name: String, summary: String, synopsis: [String], sections: [Section], version: String
  ) {
    self.name = name
    self.summary = summary
    self.synopsis = synopsis
    self.sections = sections
    self.version = version
  }

  /// The page's roff source, for `man -l -` or a file under `man1/`.
  public var roff: String {
    var lines = [
      ".TH \(Self.escape(name.uppercased())) 1 \"\" \"Hearth \(version)\" \"Hearth Manual\"",
      ".SH NAME", "\(Self.escape(name)) \\- \(Self.escape(summary))", ".SH SYNOPSIS",
    ]
    for (index, line) in synopsis.enumerated() {
      if index > 0 { lines.append(".br") }
      lines.append(".B \(Self.escape(name))")
      lines.append(Self.escape(line))
    }
    for section in sections {
      switch section {
      case .paragraphs(let title, let paragraphs):
        lines.append(".SH \(Self.escape(title.uppercased()))")
        for (index, paragraph) in paragraphs.enumerated() {
          if index > 0 { lines.append(".PP") }
          lines.append(Self.escape(paragraph))
        }
      case .verbatim(let title, let text):
        lines += [".SH \(Self.escape(title.uppercased()))", ".nf"]
        lines += text.split(separator: "\n", omittingEmptySubsequences: false).map {
          Self.escape(String($0))
        }
        lines.append(".fi")
      case .items(let title, let items):
        lines.append(".SH \(Self.escape(title.uppercased()))")
        for item in items {
          lines += [".TP", "\\fB\(Self.escape(item.term))\\fR"]
          lines += item.text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.isEmpty ? ".IP" : Self.escape(String($0))
          }
          if !item.verbatim.isEmpty {
            lines += [".IP", ".nf"]
            lines += item.verbatim.split(separator: "\n", omittingEmptySubsequences: false).map {
              Self.escape(String($0))
            }
            lines.append(".fi")
          }
        }
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// Text as roff prints it: backslashes and dashes escaped, no line taken for a request.
  static func escape(_ text: String) -> String {
    var escaped = text.replacingOccurrences(of: "\\", with: "\\e")
      .replacingOccurrences(of: "-", with: "\\-")
    if escaped.hasPrefix(".") || escaped.hasPrefix("'") { escaped = "\\&" + escaped }
    return escaped
  }
}

extension Tool {
  /// The tool's manual page: its commands with their arguments, options and details, the
  /// options every command takes, the exit codes and the environment.
  public var manPage: ManPage {
    let commandItems = commands.map { command in
      var text = command.summary.hasSuffix(".") ? command.summary : command.summary + "."
      let options =
        command.valuedOptions.sorted().map { "--\($0) VALUE" }
        + command.flags.sorted().map { "--\($0)" }
      if !options.isEmpty { text += "\nOptions: " + options.joined(separator: ", ") + "." }
      return ManPage.Item(command.usageLine, text, verbatim: command.details)
    }
    var common = [
      ManPage.Item(
        "--json",
        "Prints JSON for scripts instead of text for people: one value, an array when there are several records."
      ),
      ManPage.Item(
        "--help, -h",
        "Prints the tool's or a command's help; needs neither the hub nor the database."),
    ]
    if version != nil { common.append(ManPage.Item("--version", "Prints the version.")) }
    common += globalOptions.sorted().map {
      ManPage.Item("--\($0) VALUE", Self.globalOptionHelp[$0] ?? "Given to every command.")
    }
    return ManPage(
      name: name, summary: summary,
      synopsis: ["COMMAND [ARGUMENTS] [OPTIONS] [--json]", "COMMAND --help", "--version"],
      sections: [
        .paragraphs(
          "Description",
          [
            "\(name): \(summary). Output is for people; with --json it is JSON for scripts. "
              + "Text that comes from the data (titles, notes, names) is printed with its control "
              + "characters escaped, a newline as \u{23CE}."
          ]),
        .items("Commands", commandItems),
        .items("Options", common),
        .items(
          "Exit status",
          [
            .init("0", "Done."), .init("1", "Failed; the message says why."),
            .init("2", "Bad input: an unknown command or option, a bad value. Nothing changed."),
            .init("3", "The hub is not running or did not answer."),
            .init("4", "No such id or name."),
          ]),
        .items("Environment", Self.environmentItems),
        .paragraphs("See also", ["hearth(1), hearthd(1); docs/ in Hearth's source."]),
      ],
      version: version ?? Tool.hearthVersion)
  }

  static let globalOptionHelp = [
    "database":
      "The database file (default: $HEARTH_DATABASE, else $XDG_DATA_HOME/hearth/hearth.sqlite).",
    "runtime-dir":
      "The hub's sockets' directory (default: $HEARTH_RUNTIME_DIR, else $XDG_RUNTIME_DIR/hearth).",
    "keys-dir": "The hub's keyring (default: keys/ beside the database).",
  ]

  /// The variables every Hearth client reads.
  public static let environmentItems: [ManPage.Item] = [
    .init(
      "HEARTH_DATABASE",
      "The database file; default $XDG_DATA_HOME/hearth/hearth.sqlite, XDG_DATA_HOME defaulting to $HOME/.local/share."
    ),
    .init(
      "HEARTH_RUNTIME_DIR",
      "The directory of the hub's sockets; default $XDG_RUNTIME_DIR/hearth, else /tmp/hearth-UID."),
    .init("HEARTH_KEYS_DIR", "The keyring; default keys/ beside the database."),
    .init(
      "COLUMNS", "The width help is wrapped to when standard output is not a terminal (default 80)."
    ),
  ]
}
