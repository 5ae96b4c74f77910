// hearth-bench: every benchmark of the project, in one executable (release build).
//
//   hearth-bench [NAME…] [--quick]
//
// A table for people on stderr, then one JSON line per figure on stdout:
//   {"bench": …, "ours": …, "baseline": …, "ratio": …, "unit": …}
import Foundation

let benchmarks = [
  decodeRowsBenchmark, decodeTableBenchmark, joinGroupBenchmark, fetchAllLatencyBenchmark,
  hubWritesBenchmark, hubLatencyBenchmark, memoryBenchmark, startupBenchmark,
  remindersSearchBenchmark,
]

func printError(_ text: String) {
  FileHandle.standardError.write(Data((text + "\n").utf8))
}

var options = Options()
var selected: [String] = []
for argument in CommandLine.arguments.dropFirst() {
  switch argument {
  case "--quick": options.quick = true
  case "--help", "-h":
    print("usage: hearth-bench [NAME…] [--quick]\n\nbenchmarks:")
    for benchmark in benchmarks { print("  \(benchmark.name)  \(benchmark.summary)") }
    exit(0)
  case let name where name.hasPrefix("-"):
    printError("hearth-bench: unknown option \(name); see --help")
    exit(2)
  default: selected.append(argument)
  }
}
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
