import Foundation
import HearthData
import Testing

/// Runs `query` (in `database`, or the default database) and checks its rows against
/// `results`, a table drawn as SQLiteData's test support draws one: a column per selected
/// value, each value dumped as CustomDump writes it (strings quoted, rows as `Type(field:
/// value)`, one field a line when there are several), boxed:
///
/// ```swift
/// assertQuery(Values($exclaim("Blob")), database: database) {
///   """
///   ┌─────────┐
///   │ "Blob!" │
///   └─────────┘
///   """
/// }
/// ```
///
/// With `includeSQL`, the first closure is the query's SQL and the second the rows. No rows
/// draw as `(No results)`; an error, as its description. A missing table is an issue that
/// shows the table drawn (this does not write it into the source).
public func assertQuery<S: Statement>(
  includeSQL: Bool = false,
  _ query: S,
  database: (any DatabaseWriter)? = nil,
  sql: (() -> String)? = nil,
  results: (() -> String)? = nil,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  if includeSQL {
    let rendered = query.query.sql
    if let expected = sql?() {
      #expect(
        normalizedSQL(rendered) == normalizedSQL(expected), "Query did not match",
        sourceLocation: sourceLocation)
    } else {
      Issue.record("No SQL to compare; the query is:\n\(rendered)", sourceLocation: sourceLocation)
    }
  }
  let expected = (includeSQL ? results : sql)?()
  let drawn: String
  do {
    let writer = database ?? DependencyValues.current.defaultDatabase
    let rows = try writer.write { db in try query.fetchAll(db) }
    drawn = rows.isEmpty ? "(No results)" : resultsTable(rows)
  } catch {
    drawn = "\(error)"
  }
  guard let expected else {
    Issue.record("No results to compare; they are:\n\(drawn)", sourceLocation: sourceLocation)
    return
  }
  #expect(
    drawn == expected.trimmingCharacters(in: .newlines),
    "Results did not match:\n\(drawn)\nexpected:\n\(expected)", sourceLocation: sourceLocation)
}

/// SQL as text to compare: whitespace runs as one space.
private func normalizedSQL(_ sql: String) -> String {
  sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
}

/// The rows as a boxed table: a column per value of a tuple row (one for any other row).
func resultsTable(_ rows: [Any]) -> String {
  let cells: [[[Substring]]] = rows.map { row in
    let mirror = Mirror(reflecting: row)
    let values = mirror.displayStyle == .tuple ? mirror.children.map(\.value) : [row]
    return values.map { dumped($0).split(separator: "\n", omittingEmptySubsequences: false) }
  }
  let columnCount = cells.first?.count ?? 0
  var widths = Array(repeating: 0, count: columnCount)
  var hasMultiLineRows = false
  for row in cells {
    for (index, lines) in row.enumerated() {
      widths[index] = max(widths[index], lines.map(\.count).max() ?? 0)
      hasMultiLineRows = hasMultiLineRows || lines.count > 1
    }
  }
  func rule(_ left: String, _ middle: String, _ right: String) -> String {
    left + "─" + widths.map { String(repeating: "─", count: $0) }.joined(separator: "─\(middle)─")
      + "─" + right
  }
  var lines = [rule("┌", "┬", "┐")]
  for (offset, row) in cells.enumerated() {
    let height = row.map(\.count).max() ?? 1
    for lineIndex in 0..<height {
      let parts = zip(row, widths).map { column, width -> String in
        let text = lineIndex < column.count ? String(column[lineIndex]) : ""
        return text + String(repeating: " ", count: width - text.count)
      }
      lines.append("│ " + parts.joined(separator: " │ ") + " │")
    }
    if hasMultiLineRows, offset != cells.count - 1 { lines.append(rule("├", "┼", "┤")) }
  }
  lines.append(rule("└", "┴", "┘"))
  return lines.joined(separator: "\n")
}

/// A value as CustomDump writes the common ones: text quoted, numbers and booleans as
/// themselves, `nil`, `Date(…)` in UTC to the millisecond, `UUID(…)`, `URL(…)`, arrays one
/// element a line, a struct's fields (on its line when there is one field that fits in one
/// line, one a line otherwise), and an enum's case with its values.
func dumped(_ value: Any) -> String {
  switch value {
  case let text as String: return quoted(text)
  case let text as Substring: return quoted(String(text))
  case let flag as Bool: return String(flag)
  case let number as any BinaryInteger: return "\(number)"
  case let number as Double: return "\(number)"
  case let number as Float: return "\(number)"
  case let date as Date: return "Date(\(timestamp(date)))"
  case let uuid as UUID: return "UUID(\(uuid.uuidString))"
  case let url as URL: return "URL(\(url.absoluteString))"
  case let data as Data: return "Data(\(data.count) bytes)"
  default: break
  }
  let mirror = Mirror(reflecting: value)
  switch mirror.displayStyle {
  case .optional:
    guard let wrapped = mirror.children.first?.value else { return "nil" }
    return dumped(wrapped)
  case .collection, .set:
    let elements = mirror.children.enumerated().map {
      "[\($0.offset)]: " + dumped($0.element.value)
    }
    return elements.isEmpty ? "[]" : "[\n" + indented(elements.joined(separator: ",\n")) + "\n]"
  case .struct, .class:
    let fields = mirror.children.map { ($0.label ?? "_") + ": " + dumped($0.value) }
    return typeName(of: value) + parenthesized(fields)
  case .tuple:
    let fields = mirror.children.map { child -> String in
      let label = child.label.flatMap { $0.hasPrefix(".") ? nil : $0 }
      return (label.map { $0 + ": " } ?? "") + dumped(child.value)
    }
    return parenthesized(fields)
  case .enum:
    let name = typeName(of: value)
    guard let payload = mirror.children.first else { return name + "." + "\(value)" }
    let caseName = payload.label ?? "\(value)"
    let inner = Mirror(reflecting: payload.value)
    let values =
      inner.displayStyle == .tuple
      ? inner.children.map { child in
        (child.label.flatMap { $0.hasPrefix(".") ? nil : $0 }.map { $0 + ": " } ?? "")
          + dumped(child.value)
      } : [dumped(payload.value)]
    return name + "." + caseName + parenthesized(values)
  default:
    return "\(value)"
  }
}

/// `(a)` when there is one part of one line; `(\n  a,\n  b\n)` otherwise.
private func parenthesized(_ parts: [String]) -> String {
  if parts.isEmpty { return "()" }
  if parts.count == 1, !parts[0].contains("\n") { return "(" + parts[0] + ")" }
  return "(\n" + indented(parts.joined(separator: ",\n")) + "\n)"
}

private func indented(_ text: String) -> String {
  text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
    .joined(separator: "\n")
}

private func quoted(_ text: String) -> String {
  "\""
    + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
      of: "\"", with: "\\\"") + "\""
}

/// The type's name as a program writes it: its enclosing types, without the module.
private func typeName(of value: Any) -> String {
  String(reflecting: type(of: value)).split(separator: ".")
    .filter { !$0.hasPrefix("(") && !$0.hasSuffix(")") }
    .dropFirst()
    .joined(separator: ".")
}

private func timestamp(_ date: Date) -> String {
  let formatter = ISO8601DateFormatter()
  formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
  formatter.timeZone = TimeZone(identifier: "UTC")
  return formatter.string(from: date)
}
