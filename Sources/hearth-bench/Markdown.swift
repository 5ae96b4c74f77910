import CSQLite
import Foundation

/// The figures as Markdown, written into documents so that no figure is ever typed by hand.
///
/// A document holds blocks between two comments:
///
///     <!-- hearth-bench figures: hub-writes-16-tps = 16 writers, tx/s; sync-first-100k -->
///     …replaced…
///     <!-- hearth-bench end -->
///
/// Each block is replaced by a table of the figures it names, each with the label given after
/// `=` (all of this run's, by name, when it names none), then a line saying which run printed
/// them: the command, the commit, the machine.
enum FigureDocuments {
  static let begin = "<!-- hearth-bench figures"
  static let end = "<!-- hearth-bench end -->"

  /// Rewrites every block of the files at `paths`; throws, changing nothing, when a file has
  /// no block or a block names a figure this run did not print.
  static func write(_ figures: [Figure], into paths: [String], command: String) throws {
    var rewritten: [(String, String)] = []
    for path in paths {
      let text = try String(contentsOfFile: path, encoding: .utf8)
      rewritten.append((path, try replacingBlocks(in: text, file: path, figures, command: command)))
    }
    for (path, text) in rewritten {
      try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
  }

  static func replacingBlocks(in text: String, file: String, _ figures: [Figure], command: String)
    throws -> String
  {
    let lines = text.components(separatedBy: "\n")
    var output: [String] = []
    var blocks = 0
    var index = 0
    while index < lines.count {
      let line = lines[index]
      guard line.hasPrefix(begin) else {
        output.append(line)
        index += 1
        continue
      }
      guard let close = lines[index...].firstIndex(of: end) else {
        throw MarkdownError("\(file):\(index + 1): no `\(end)` after this block's start")
      }
      var list = line.dropFirst(begin.count)
      if let tail = list.range(of: "-->") { list = list[..<tail.lowerBound] }
      if list.hasPrefix(":") { list = list.dropFirst() }
      let entries = list.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty }
      let chosen: [(label: String, figure: Figure)] =
        try entries.isEmpty
        ? figures.map { ("`\($0.bench)`", $0) }
        : entries.map { entry in
          let parts = entry.split(separator: "=", maxSplits: 1)
          let name = parts[0].trimmingCharacters(in: .whitespaces)
          guard let figure = figures.first(where: { $0.bench == name }) else {
            throw MarkdownError("\(file):\(index + 1): this run printed no figure '\(name)'")
          }
          let label = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "`\(name)`"
          return (label, figure)
        }
      output.append(line)
      output.append(contentsOf: table(chosen, command: command))
      output.append(end)
      blocks += 1
      index = close + 1
    }
    guard blocks > 0 else { throw MarkdownError("\(file): no `\(begin) … -->` block") }
    return output.joined(separator: "\n")
  }

  static func table(_ figures: [(label: String, figure: Figure)], command: String) -> [String] {
    ["", "| figure | ours | baseline | ratio |", "| --- | ---: | ---: | ---: |"]
      + figures.map { label, figure in
        "| \(label) | \(format(figure.ours, figure.unit)) | "
          + "\(format(figure.baseline, figure.unit)) | \(String(format: "%.2f", figure.ratio)) |"
      } + ["", "Printed by `\(command)` on \(machine()), at \(commit()).", ""]
  }

  /// A value with its unit: no decimals from 100 up (thousands separated), one from 10, two
  /// below.
  static func format(_ value: Double, _ unit: String) -> String {
    let magnitude = abs(value)
    let digits = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2
    var number = String(format: "%.\(digits)f", value)
    // Thousands separators in the whole part.
    let whole = number.prefix { $0 != "." }
    let sign = whole.hasPrefix("-") ? "-" : ""
    let digitsOnly = Array(whole.drop { $0 == "-" })
    var grouped = ""
    for (index, digit) in digitsOnly.enumerated() {
      if index > 0, (digitsOnly.count - index) % 3 == 0 { grouped += "," }
      grouped.append(digit)
    }
    number = sign + grouped + number.dropFirst(whole.count)
    return "\(number) \(unit == "us" ? "µs" : unit)"
  }

  /// The machine in a phrase: cores, memory, system, SQLite.
  static func machine() -> String {
    let cores = ProcessInfo.processInfo.activeProcessorCount
    let memory = Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824
    let release = (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8))?
      .components(separatedBy: "\n").first { $0.hasPrefix("PRETTY_NAME=") }?
      .dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
    let sqlite = String(cString: sqlite3_libversion())
    return "\(cores) cores, \(Int(memory.rounded())) GiB, \(release ?? "Linux"), SQLite \(sqlite)"
  }

  /// The commit this build came from (`git describe`), marked when the tree had changes.
  static func commit() -> String {
    let git = Process()
    git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    git.arguments = ["git", "describe", "--always", "--dirty", "--abbrev=10"]
    let pipe = Pipe()
    git.standardOutput = pipe
    git.standardError = FileHandle.nullDevice
    guard (try? git.run()) != nil else { return "an unknown commit" }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    git.waitUntilExit()
    let described = String(decoding: data, as: UTF8.self).trimmingCharacters(
      in: .whitespacesAndNewlines)
    return git.terminationStatus == 0 && !described.isEmpty
      ? "commit `\(described)`" : "an unknown commit"
  }
}

struct MarkdownError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
