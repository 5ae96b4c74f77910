import Foundation

/// The parsed command line of one command: positional arguments, options and flags.
public struct CommandInput: Sendable {
  public private(set) var positionals: [String] = []
  private var options: [String: [String]] = [:]
  private var flags: Set<String> = []
  /// Whether the output should be JSON (`--json`).
  public let json: Bool

  /// Parses `arguments`: `--name value` (or `--name=value`) for the options `valued` names,
  /// `--name` alone for flags, `--json`, and positionals (everything after `--` is one).
  public init(_ arguments: [String], valued: Set<String>) throws {
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
            throw CommandError.usage("--\(name) needs a value")
          }
          value = arguments[index]
          index += 1
        }
        options[name, default: []].append(value!)
      } else if value == nil {
        flags.insert(name)
      } else {
        throw CommandError.usage("--\(name) takes no value")
      }
    }
    self.json = json
  }

  /// Throws a usage error naming the first flag given that is not one of `allowed` (a
  /// misspelt option must not pass silently), with the nearest of `known` (the command's
  /// options) when one is close.
  public func checkFlags(_ allowed: Set<String>, known: Set<String> = []) throws {
    guard let unknown = flags.sorted().first(where: { !allowed.contains($0) }) else { return }
    // The one option it begins (`--prio` for `--priority`), else the closest by a few typos.
    let begun = known.union(allowed).filter { $0.hasPrefix(unknown) }
    let nearest =
      begun.count == 1
      ? begun.first
      : known.union(allowed).map { ($0, Self.distance($0, unknown)) }
        .filter { $0.1 <= max(2, unknown.count / 3) }.min { ($0.1, $0.0) < ($1.1, $1.0) }?.0
    let hint: String
    if let nearest {
      hint = "; did you mean --\(nearest)?"
    } else if !known.union(allowed).isEmpty {
      hint = "; it takes " + known.union(allowed).sorted().map { "--\($0)" }.joined(separator: ", ")
    } else {
      hint = "; it takes none"
    }
    throw CommandError.usage("unknown option --\(unknown)\(hint)")
  }

  /// How many characters to insert, delete or replace to turn `a` into `b`.
  static func distance(_ a: String, _ b: String) -> Int {
    let (a, b) = (Array(a), Array(b))
    var previous = Array(0...b.count)
    for (i, x) in a.enumerated() {
      var current = [i + 1]
      for (j, y) in b.enumerated() {
        current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
      }
      previous = current
    }
    return previous[b.count]
  }

  /// `--name N` as a whole number within `range`, or nil when not given.
  public func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
    guard let text = option(name) else { return nil }
    guard let value = Int(text), range.contains(value) else {
      throw CommandError.usage(
        "--\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'"
      )
    }
    return value
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
      throw CommandError.usage(
        "--\(name) takes seconds from \(String(format: "%g", range.lowerBound)) to \(String(format: "%g", range.upperBound)), not '\(text)'"
      )
    }
    return value
  }

  /// Positional argument `index`, or a usage error naming it.
  public func positional(_ index: Int, name: String) throws -> String {
    guard index < positionals.count else { throw CommandError.usage("missing \(name)") }
    return positionals[index]
  }

  /// Positional argument `index` as a number (an id), or a usage error naming it.
  public func positional(_ index: Int, as type: Int.Type, name: String) throws -> Int {
    let text = try positional(index, name: name)
    guard let value = Int(text) else {
      throw CommandError.usage("\(name) must be a number, not '\(text)'")
    }
    return value
  }

  /// The positional arguments from `index` on, joined by spaces (a title typed unquoted).
  public func text(from index: Int, name: String) throws -> String {
    guard index < positionals.count else { throw CommandError.usage("missing \(name)") }
    return positionals[index...].joined(separator: " ")
  }
}
