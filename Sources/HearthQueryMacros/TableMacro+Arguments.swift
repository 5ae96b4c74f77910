import SwiftDiagnostics
import SwiftSyntax

// The arguments of `@Table`: `@Table("name", schema: "archive")`.
extension TableMacro {
  static func explicitTableName(_ node: AttributeSyntax) throws -> String? {
    guard let argument = node.arguments?.as(LabeledExprListSyntax.self)?.first,
      argument.label == nil
    else {
      return nil
    }
    guard let literal = argument.expression.as(StringLiteralExprSyntax.self),
      let name = literal.representedLiteralValue, !name.isEmpty
    else {
      throw DiagnosticsError(diagnostics: [
        .error(argument, "tableName", "the table name must be a non-empty string literal")
      ])
    }
    return name
  }

  /// `schema: "…"`, if given: a non-empty string literal.
  static func schemaName(_ node: AttributeSyntax) throws -> String? {
    guard
      let argument = node.arguments?.as(LabeledExprListSyntax.self)?.first(where: {
        $0.label?.text == "schema"
      })
    else { return nil }
    guard let literal = argument.expression.as(StringLiteralExprSyntax.self),
      let name = literal.representedLiteralValue
    else {
      throw DiagnosticsError(diagnostics: [
        .error(argument, "schemaName", "the schema name must be a string literal")
      ])
    }
    return name.isEmpty ? nil : name
  }
}
