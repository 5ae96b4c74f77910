import Foundation

/// A daemon's config file: `key = value` lines, blank lines skipped, a comment from a `#`
/// at the start of a line or after a space to the end of the line
/// (`wal-limit-mb = 64   # the default is 32`).
public enum SettingsFile {
  /// A line that is not `key = value`, or a key set twice.
  public struct Problem: Error, Sendable {
    public var key: String
    public var problem: String
    public var line: Int
  }

  /// Each key's value and line number (from 1).
  public static func lines(_ text: String) throws(Problem) -> [String: (value: String, number: Int)]
  {
    var settings: [String: (value: String, number: Int)] = [:]
    for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
    {
      var content = Substring(line)
      if content.hasPrefix("#") {
        content = ""
      } else if let comment = content.firstRange(of: " #") ?? content.firstRange(of: "\t#") {
        content = content[..<comment.lowerBound]
      }
      let trimmed = content.trimmingSpaces
      guard !trimmed.isEmpty else { continue }
      guard let equals = trimmed.firstIndex(of: "="), !trimmed[..<equals].trimmingSpaces.isEmpty
      else {
        throw Problem(
          key: "line \(index + 1)", problem: "not `key = value`: \(trimmed)", line: index + 1)
      }
      let key = String(trimmed[..<equals].trimmingSpaces)
      if let earlier = settings[key] {
        throw Problem(
          key: key, problem: "set twice (first on line \(earlier.number))", line: index + 1)
      }
      settings[key] = (String(trimmed[trimmed.index(after: equals)...].trimmingSpaces), index + 1)
    }
    return settings
  }
}

extension Substring {
  fileprivate var trimmingSpaces: Substring {
    Substring(trimmingCharacters(in: .whitespaces))
  }
}
