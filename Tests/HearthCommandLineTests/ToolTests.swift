import Foundation
import HearthCommandLine
import Testing

@Suite struct CommandInputTests {
  @Test func optionsFlagsJSONAndPositionals() throws {
    let input = try CommandInput(
      [
        "add", "--due=tomorrow", "milk", "--flag", "--tag", "a", "--tag", "b", "--json", "--",
        "--x",
      ],
      valued: ["due", "tag"])
    #expect(input.positionals == ["add", "milk", "--x"])
    #expect(input.option("due") == "tomorrow")
    #expect(input.options("tag") == ["a", "b"])
    #expect(input.flag("flag"))
    #expect(!input.flag("other"))
    #expect(input.json)
  }

  @Test func aValueMissingOrWhereNoneBelongsIsAUsageError() {
    let missing = #expect(throws: CommandError.self) {
      try CommandInput(["--due"], valued: ["due"])
    }
    #expect(missing?.exitCode == .usage)
    #expect(missing?.message == "--due needs a value")
    let extra = #expect(throws: CommandError.self) { try CommandInput(["--flag=yes"], valued: []) }
    #expect(extra?.message == "--flag takes no value")
    let number = #expect(throws: CommandError.self) {
      try CommandInput(["x"], valued: []).positional(0, as: Int.self, name: "ID")
    }
    #expect(number?.message == "ID must be a number, not 'x'")
  }
}

@Suite struct CommandInputCheckTests {
  @Test func aMisspeltFlagAndANumberOutOfRangeAreRefused() throws {
    let input = try CommandInput(["--quick", "--kills", "5", "--qiuck"], valued: ["kills"])
    let misspelt = #expect(throws: CommandError.self) { try input.checkFlags(["quick"]) }
    #expect(misspelt?.message == "unknown option --qiuck; did you mean --quick?")
    #expect(try input.integer("kills", in: 1...10) == 5)
    #expect(try input.integer("absent", in: 1...10) == nil)
    let range = #expect(throws: CommandError.self) { try input.integer("kills", in: 6...10) }
    #expect(range?.message == "--kills takes a whole number from 6 to 10, not '5'")
  }
}

@Suite struct ToolTests {
  let tool = Tool(
    name: "demo", summary: "a tool to test the toolkit with, whose summary is rather long",
    commands: [
      Command("short", summary: "does a short thing") { _ in .message("short done") },
      Command(
        "long", arguments: "ID [--with-a-long-option VALUE] [--and-another-one VALUE] [--third]",
        summary: "does a thing whose explanation takes more words than fit on one narrow line",
        valuedOptions: ["with-a-long-option"]
      ) { input in
        .message("long \(try input.positional(0, name: "ID"))", json: ["id": input.positionals[0]])
      },
      Command("fail", summary: "fails with a verdict") { _ in
        CommandOutput.message("bad").exiting(with: .failure)
      },
    ],
    globalOptions: ["database"], version: "1.2")

  @Test func helpFitsTheWidthItIsGiven() {
    for width in [40, 60, 80, 120] {
      let help = tool.help(width: width)
      let widest = help.split(separator: "\n").map(\.count).max() ?? 0
      #expect(widest <= width, "a line of \(widest) columns in help for \(width)")
      #expect(help.contains("short"))
      #expect(help.contains("--and-another-one"))
    }
    // A short usage keeps its summary beside it.
    #expect(tool.help(width: 80).contains("\n  short                   does a short thing\n"))
  }

  @Test func wrapBreaksAtSpacesAndKeepsLongWordsWhole() {
    #expect(wrap("one two three four", width: 9) == "one two\nthree\nfour")
    #expect(wrap("a verylongwordindeed b", width: 5) == "a\nverylongwordindeed\nb")
    #expect(wrap("kept\nbreaks", width: 80) == "kept\nbreaks")
  }

  @Test func exitCodesSayWhatHappened() throws {
    #expect(try tool.run(["short"]) == .success)
    #expect(try tool.run(["long", "7", "--database", "x.sqlite"]) == .success)
    #expect(try tool.run(["fail"]) == .failure)
    #expect(try tool.run([]) == .usage)
    #expect(try tool.run(["--version"]) == .success)
    let unknown = #expect(throws: CommandError.self) { try tool.run(["nope"]) }
    #expect(unknown?.exitCode == .usage)
    let missing = #expect(throws: CommandError.self) { try tool.run(["long"]) }
    #expect(missing?.message == "missing ID")
  }

  /// What needs no command run is answered by `answer` (a feature calls it before it
  /// reaches the hub); anything else is left to run.
  @Test func helpVersionAndBadArgumentsAreAnsweredWithoutRunning() throws {
    #expect(try tool.answer(["--help"]) == .success)
    #expect(try tool.answer(["--version"]) == .success)
    #expect(try tool.answer(["long", "--help"]) == .success)
    #expect(try tool.answer([]) == .usage)
    #expect(try tool.answer(["long", "7"]) == nil)
    #expect(throws: CommandError.self) { try tool.answer(["nope"]) }
    #expect(throws: CommandError.self) { try tool.answer(["short", "--bogus"]) }
  }

  /// An option the command does not take is refused before it runs, whatever it looks like:
  /// `--prio high` must not become a flag and the word "high".
  @Test func anOptionTheCommandDoesNotTakeIsRefused() throws {
    let near = #expect(throws: CommandError.self) {
      try tool.run(["long", "7", "--with-a-long-optoin", "x"])
    }
    #expect(near?.exitCode == .usage)
    #expect(
      near?.message == "unknown option --with-a-long-optoin; did you mean --with-a-long-option?")
    let begun = #expect(throws: CommandError.self) { try tool.run(["long", "7", "--with", "x"]) }
    #expect(begun?.message == "unknown option --with; did you mean --with-a-long-option?")
    let far = #expect(throws: CommandError.self) { try tool.run(["short", "--prio", "high"]) }
    #expect(far?.message == "unknown option --prio; it takes --database, --help, --json")
    #expect(try tool.run(["short", "--json"]) == .success)
  }

  @Test func anExplainedErrorKeepsItsExitCode() {
    struct Down: Error {}
    let explaining = Tool(
      name: "t", summary: "", commands: [],
      explain: { $0 is Down ? CommandError("the hub is down", exitCode: .hubUnavailable) : nil })
    #expect(explaining.report(Down()) == .hubUnavailable)
    #expect(explaining.report(CommandError.notFound("no such id")) == .notFound)
    struct Other: Error {}
    #expect(explaining.report(Other()) == .failure)
  }
}
