/// Text that may be someone else's bytes (a shared list's titles), made safe to print: no
/// character of it can move the cursor, change colours or break a one-row-per-line listing.
extension String {
  /// One line: a newline shows as `⏎`, other control characters as their escape
  /// (`\e`, `\t`, `\u{7f}`, …), as `git` shows a path with them.
  public var shownOnOneLine: String { escapingControls(keepingNewlines: false) }

  /// Several lines: newlines stay, every other control character shows as its escape.
  public var shownAsText: String { escapingControls(keepingNewlines: true) }

  func escapingControls(keepingNewlines: Bool) -> String {
    guard unicodeScalars.contains(where: { $0.isControl }) else { return self }
    var shown = ""
    for scalar in unicodeScalars {
      switch scalar {
      case "\n": shown += keepingNewlines ? "\n" : "⏎"
      case "\t": shown += "\\t"
      case "\r": shown += "\\r"
      case "\u{1B}": shown += "\\e"
      case _ where scalar.isControl:
        shown += "\\u{" + String(scalar.value, radix: 16) + "}"
      default: shown.unicodeScalars.append(scalar)
      }
    }
    return shown
  }
}

extension Unicode.Scalar {
  /// C0 and C1 controls and DEL: what a terminal acts on instead of showing.
  var isControl: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }
}
