import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `#sql("…")`: a SQL expression or statement written as text. Interpolations bind values
/// (`\(value)` becomes `?`), or splice columns and tables (`\(Reminder.columns)`,
/// `\(Reminder.self)`, `\($0.title)`); raw text goes in only as `\(raw: text)`.
///
/// The macro checks the literal text at compile time: quotes and parentheses must balance,
/// and values must not be pasted in as `?` placeholders.
public enum SQLMacro: ExpressionMacro {
  public static func expansion(
    of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
  ) throws -> ExprSyntax {
    guard let first = node.arguments.first,
      let literal = first.expression.as(StringLiteralExprSyntax.self)
    else {
      throw DiagnosticsError(diagnostics: [
        .error(node, "sqlLiteral", "#sql takes a string literal; build dynamic SQL with \\(raw:)")
      ])
    }
    try validate(literal)
    var arguments = node.arguments
    arguments[arguments.startIndex].expression = ExprSyntax(literal.trimmed)
    // `as: (A, B).self`: rows of several values, which only the tuple form can read.
    if let type = arguments.dropFirst().first, type.label?.text == "as",
      let member = type.expression.as(MemberAccessExprSyntax.self),
      member.declName.baseName.text == "self",
      let tuple = member.base?.as(TupleExprSyntax.self), tuple.elements.count > 1
    {
      let index = arguments.index(after: arguments.startIndex)
      arguments[index].label = .identifier("tupleOf")
    }
    return "HearthQuery.SQLQueryExpression(\(raw: arguments.trimmedDescription))"
  }

  /// Walks the literal text (not the interpolations) the way SQLite's tokenizer would.
  static func validate(_ literal: StringLiteralExprSyntax) throws {
    var diagnostics: [Diagnostic] = []
    var openQuote: (character: Character, segment: Syntax)?
    var depth = 0
    var lastParenthesis: Syntax?
    var inLineComment = false
    var inBlockComment = false
    for segment in literal.segments {
      guard case .stringSegment(let text) = segment else {
        inLineComment = false
        continue
      }
      var previous: Character?
      for character in text.content.text {
        defer { previous = character }
        if inLineComment {
          if character == "\n" { inLineComment = false }
          continue
        }
        if inBlockComment {
          if previous == "*" && character == "/" { inBlockComment = false }
          continue
        }
        if let quote = openQuote {
          if character == quote.character { openQuote = nil }
          continue
        }
        switch character {
        case "'", "\"", "`", "[":
          openQuote = (character == "[" ? "]" : character, Syntax(text))
        case "-" where previous == "-": inLineComment = true
        case "*" where previous == "/": inBlockComment = true
        case "(":
          depth += 1
          lastParenthesis = Syntax(text)
        case ")":
          depth -= 1
          if depth < 0 {
            diagnostics.append(.error(text, "sqlParenthesis", "this ')' closes nothing"))
            depth = 0
          }
        case "?":
          diagnostics.append(
            .error(
              text, "sqlPlaceholder",
              "do not write '?' in #sql: interpolate the value, \\(value), and it is bound"))
        default:
          break
        }
      }
    }
    if let quote = openQuote {
      diagnostics.append(
        .error(quote.segment, "sqlQuote", "unterminated \(quote.character) quote in SQL"))
    }
    if depth > 0, let lastParenthesis {
      diagnostics.append(.error(lastParenthesis, "sqlParenthesis", "unbalanced '(' in SQL"))
    }
    guard diagnostics.isEmpty else { throw DiagnosticsError(diagnostics: diagnostics) }
  }
}

/// `#bind(value)`: `value` as a bound parameter (`?`), typed as its query value.
public enum BindMacro: ExpressionMacro {
  public static func expansion(
    of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
  ) throws -> ExprSyntax {
    return "HearthQuery.BindQueryExpression(\(raw: node.arguments.trimmedDescription))"
  }
}

/// `#bind(value, as: Representation.self)`, or `#bind(value)` of a representation the
/// context names: the value bound as its representation binds it.
public enum BindRepresentationMacro: ExpressionMacro {
  public static func expansion(
    of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
  ) throws -> ExprSyntax {
    if node.arguments.count > 1 {
      return "HearthQuery.BindQueryExpression(\(raw: node.arguments.trimmedDescription))"
    }
    return "HearthQuery.BindQueryExpression(queryOutput: \(raw: node.arguments.trimmedDescription))"
  }
}
