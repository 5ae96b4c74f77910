import Foundation
import HearthQueryMacros
import SwiftDiagnostics
import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import Testing

@Suite struct SQLMacroExpansionTests {
  @Test func expandsToAnExpressionWithTheLiteralIntact() {
    let (code, diagnostics) = expand(
      #"let x = #sql("SELECT \(Reminder.columns) FROM \(Reminder.self) WHERE id = \(id)", as: Int.self)"#
    )
    #expect(diagnostics == [])
    #expect(
      code
        == #"let x = HearthQuery.SQLQueryExpression("SELECT \(Reminder.columns) FROM \(Reminder.self) WHERE id = \(id)", as: Int.self)"#
    )
    #expect(
      expand("let y = #bind(.completed)").code
        == "let y = HearthQuery.BindQueryExpression(.completed)")
  }

  @Test func aTupleTypeReadsRowsOfSeveralValues() {
    let (code, diagnostics) = expand(
      #"let x = #sql("SELECT \(A.columns), \(B.columns) FROM a, b", as: (A, B).self)"#)
    #expect(diagnostics == [])
    #expect(
      code
        == #"let x = HearthQuery.SQLQueryExpression("SELECT \(A.columns), \(B.columns) FROM a, b", tupleOf: (A, B).self)"#
    )
    // One type in parentheses is not a tuple.
    #expect(expand(#"let y = #sql("SELECT 1", as: (Int).self)"#).code.contains("as: (Int).self"))
  }

  /// Positions are those the test harness reports for a detached macro node: line 1,
  /// column 7 is the start of the literal's text inside `#sql(`.
  @Test func refusesPlaceholdersAndUnbalancedText() {
    #expect(
      expand(#"let x = #sql("SELECT * FROM t WHERE id = ?")"#).diagnostics == [
        #"1:7: do not write '?' in #sql: interpolate the value, \(value), and it is bound"#
      ])
    #expect(
      expand(#"let x = #sql("SELECT 'unterminated FROM t")"#).diagnostics == [
        "1:7: unterminated ' quote in SQL"
      ])
    #expect(
      expand(#"let x = #sql("SELECT count(* FROM t")"#).diagnostics == [
        "1:7: unbalanced '(' in SQL"
      ])
    #expect(expand(#"let x = #sql("SELECT 1)")"#).diagnostics == ["1:7: this ')' closes nothing"])
    // Quotes, comments and interpolations are not mistaken for placeholders.
    #expect(
      expand(#"let x = #sql("SELECT '?', \"a?\" -- why?\n FROM t WHERE x = \(y)")"#).diagnostics
        == [])
    #expect(
      expand("let x = #sql(text)").diagnostics == [
        #"1:1: #sql takes a string literal; build dynamic SQL with \(raw:)"#
      ])
  }
}
