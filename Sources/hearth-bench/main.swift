// hearth-bench: every benchmark of the project, in one executable (release build).
//
//   hearth-bench [NAME…] [--quick] [--rows N] [--writes N] [--rounds N] [--writers 1,4,16]
//                [--warmup N] [--database-mb N] [--markdown FILE]…
//
// A table for people on stderr, then one JSON line per figure on stdout:
//   {"bench": …, "ours": …, "baseline": …, "ratio": …, "unit": …}
// With --markdown, the figures are also written into each FILE's figure blocks (README.md,
// docs/benchmarks.md), so that the documents quote exactly what a run printed.
import Foundation
import HearthCommandLine

let benchmarks = [
  decodeRowsBenchmark, decodeTableBenchmark, joinGroupBenchmark, fetchAllLatencyBenchmark,
  hubWritesBenchmark, hubLatencyBenchmark, memoryBenchmark, startupBenchmark,
  remindersSearchBenchmark, readOnlyShmBenchmark, syncBenchmark, hubBulkBenchmark, webBenchmark,
  calDAVBenchmark,
]

func printError(_ text: String) {
  FileHandle.standardError.write(Data((text + "\n").utf8))
}

let usage = """
  usage: hearth-bench [NAME…] [--quick] [--rows N] [--writes N] [--rounds N]
                      [--writers 1,4,16] [--warmup N] [--database-mb N]
                      [--markdown FILE]…

  --quick        small sizes, to prove the benchmarks run (CI); figures mean little
  --rows         rows of the decode, join and search tables (100000)
  --writes       writes per writer process (hub-writes 500, memory 2000), or in all for
                 the latency benchmarks (1000)
  --rounds       rounds of the fastest-of benchmarks (decode 21, join 15, search 7),
                 hearthd starts (5) and hub-writes' alternated runs (3)
  --writers      writer processes of hub-writes (1,4,16)
  --warmup       hub-writes' untimed transactions, in all, before each timed run, on each
                 side (2500: past the first fill of the hub's 32 MB log); 0 for none
  --database-mb  the startup benchmark's database (1024)
  --markdown     a Markdown file whose figure blocks (<!-- hearth-bench figures: NAME, … -->
                 … <!-- hearth-bench end -->) get this run's figures; may repeat
  """

/// The options and benchmarks of the command line; exits 2 when they are wrong.
@MainActor func parse(_ arguments: [String]) -> (Options, [String], markdown: [String]) {
  if arguments.contains("--help") || arguments.contains("-h") {
    print(usage + "\nbenchmarks:")
    for benchmark in benchmarks { print("  \(benchmark.name)  \(benchmark.summary)") }
    exit(0)
  }
  do {
    let input = try CommandInput(
      arguments,
      valued: ["rows", "writes", "rounds", "database-mb", "writers", "warmup", "markdown"])
    try input.checkFlags(["quick"])
    var options = Options()
    options.quick = input.flag("quick")
    let positive = 1...Int.max
    options.rows = try input.integer("rows", in: positive) ?? options.rows
    options.writes = try input.integer("writes", in: positive) ?? options.writes
    options.rounds = try input.integer("rounds", in: positive) ?? options.rounds
    options.warmup = try input.integer("warmup", in: 0...Int.max) ?? options.warmup
    options.databaseMegabytes =
      try input.integer("database-mb", in: positive) ?? options.databaseMegabytes
    if let text = input.option("writers") {
      let counts = text.split(separator: ",").compactMap { Int($0) }
      guard !counts.isEmpty, counts.allSatisfy({ $0 > 0 }) else {
        throw CommandError.usage("--writers needs counts like 1,4,16")
      }
      options.writers = counts
    }
    for file in input.options("markdown") where !FileManager.default.isWritableFile(atPath: file) {
      throw CommandError.usage("--markdown \(file): no such writable file")
    }
    return (options, input.positionals, input.options("markdown"))
  } catch {
    printError("hearth-bench: \(error); see --help")
    exit(2)
  }
}

let (options, selected, markdownFiles) = parse(Array(CommandLine.arguments.dropFirst()))
let unknown = selected.filter { name in !benchmarks.contains { $0.name == name } }
guard unknown.isEmpty else {
  printError("hearth-bench: no benchmark named \(unknown.joined(separator: ", ")); see --help")
  exit(2)
}
#if DEBUG
  printError("hearth-bench: this is a debug build; figures mean little (use swift run -c release)")
#endif

var figures: [Figure] = []
for benchmark in benchmarks where selected.isEmpty || selected.contains(benchmark.name) {
  do {
    figures += try await benchmark.run(options)
  } catch {
    printError("hearth-bench: \(benchmark.name) failed: \(error)")
    exit(1)
  }
}

func pad(_ text: String, _ width: Int) -> String {
  text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}
printError(pad("benchmark", 34) + pad("ours", 12) + pad("baseline", 12) + pad("ratio", 8) + "unit")
for figure in figures {
  printError(
    pad(figure.bench, 34) + pad(String(format: "%.3f", figure.ours), 12)
      + pad(String(format: "%.3f", figure.baseline), 12)
      + pad(String(format: "%.3f", figure.ratio), 8)
      + figure.unit)
}
for figure in figures { print(figure.json) }
if !markdownFiles.isEmpty {
  do {
    // The command that reproduces the figures: this one, less where it wrote them.
    var words = ["hearth-bench"]
    var arguments = CommandLine.arguments.dropFirst()[...]
    while let word = arguments.popFirst() {
      if word == "--markdown" {
        _ = arguments.popFirst()
      } else if !word.hasPrefix("--markdown=") {
        words.append(word)
      }
    }
    let command = words.joined(separator: " ")
    try FigureDocuments.write(figures, into: markdownFiles, command: command)
  } catch {
    printError("hearth-bench: \(error)")
    exit(1)
  }
}
