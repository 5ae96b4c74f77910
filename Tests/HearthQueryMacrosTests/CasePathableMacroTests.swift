import Foundation
import HearthQueryMacros
import SwiftDiagnostics
import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import Testing

@Suite struct CasePathableMacroTests {
  @Test func writesOneCasePathPerCase() {
    let (code, diagnostics) = expand(
      """
      @CasePathable
      enum Event {
        case tick
        case move(x: Int, y: Int)
      }
      """)
    #expect(diagnostics == [])
    let text = normalized(code)
    #expect(text.contains("var tick: HearthQuery.AnyCasePath<Event, Void>"))
    #expect(text.contains("var move: HearthQuery.AnyCasePath<Event, (x: Int, y: Int)>"))
    #expect(text.contains("embed: { Event.move(x: $0.0, y: $0.1) }"))
    #expect(
      text.contains(
        "extract: { if case .move(let v0, let v1) = $0 { return (v0, v1) } else { return nil } }"))
    #expect(text.contains("extension Event: HearthQuery.CasePathable { }"))
  }

  @Test func refusesAStruct() {
    let (_, diagnostics) = expand("@CasePathable\nstruct Event {}")
    #expect(diagnostics == ["2:1: @CasePathable applies to an enum, not a struct"])
  }
}
