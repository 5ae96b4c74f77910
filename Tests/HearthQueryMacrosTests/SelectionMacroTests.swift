import Foundation
import HearthQueryMacros
import SwiftDiagnostics
import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import Testing

@Suite struct SelectionMacroTests {
  @Test func expandsColumnsAndADecoderInPropertyOrder() {
    let (code, diagnostics) = expand(
      """
      @Selection
      struct Stats {
        var allCount = 0
        let list: RemindersList
      }
      """)
    #expect(diagnostics.isEmpty)
    let text = normalized(code)
    #expect(
      text.contains(
        "init(allCount: some HearthQuery.QueryExpression<Int> = HearthQuery._columnDefault(0, as: Int.self), list: some HearthQuery.QueryExpression<RemindersList>) { _columnFragments = [HearthQuery._columnFragments(allCount), HearthQuery._columnFragments(list)].flatMap { $0 } }"
      ))
    #expect(
      text.contains(
        "try self.init( allCount: decoder.decode(Columns._$allCount.self), list: decoder.decode(Columns._$list.self))"
      ))
    #expect(
      text.contains(
        "static var _columnWidth: Int { Columns._$allCount._columnWidth + Columns._$list._columnWidth }"
      ))
    #expect(text.contains("extension Stats: HearthQuery.QueryRepresentable"))
  }

  @Test func refusesWhatIsNotAStruct() {
    let (_, diagnostics) = expand(
      """
      @Selection
      class Stats {
        var count = 0
      }
      """)
    #expect(diagnostics == ["2:1: @Selection applies to a struct or an enum, not a class"])

    let (_, twoOnALine) = expand(
      """
      @Selection
      struct Stats {
        var a = 0, b = 0
      }
      """)
    #expect(
      twoOnALine == ["3:3: @Selection needs one stored property per declaration: split this line"])
  }

  @Test func expandsAnEnumIntoOneColumnPerCase() {
    let (code, diagnostics) = expand(
      """
      @Selection
      public enum Kind {
        case link(URL)
        case note(text: String)
      }
      """)
    #expect(diagnostics == [])
    let text = normalized(code)
    #expect(text.contains("public struct Columns: HearthQuery._GroupColumns"))
    #expect(
      text.contains(
        "public static func note(text value: some HearthQuery.QueryExpression<_$note>) -> Self { Self(_columnFragments: HearthQuery._caseFragments(QueryValue.self, case: 1, value)) }"
      ))
    #expect(
      text.contains(
        "let v0 = try decoder.decode(Optional<Columns._$link>.self) let v1 = try decoder.decode(Optional<Columns._$note>.self) if let v0 { self = .link(v0) } else if let v1 { self = .note(text: v1) } else { throw HearthQuery._noCaseError(Self.self) }"
      ))
    #expect(
      text.contains(
        "public static var _caseColumns: [(name: String, columns: [String])] { [(\"link\", HearthQuery._columnNames(\"link\", as: Columns._$link.self)), (\"note\", HearthQuery._columnNames(\"note\", as: Columns._$note.self))] }"
      ))
  }

  @Test func anEnumWritesItsOwnCasePathsUnlessCasePathableDoes() {
    let (alone, _) = expand("@Selection enum Kind { case link(URL) }")
    #expect(normalized(alone).contains("struct AllCasePaths"))
    #expect(normalized(alone).contains("extension Kind: HearthQuery.CasePathable"))
    let (beside, _) = expand("@CasePathable @Selection enum Kind { case link(URL) }")
    #expect(normalized(beside).components(separatedBy: "struct AllCasePaths").count == 2)
  }

  @Test func aStructSelectionIsATableNamedAfterIt() {
    let (code, diagnostics) = expand(
      "@Selection struct HighPriorityList { let id: Int; let list: RemindersList }")
    #expect(diagnostics == [])
    let text = normalized(code)
    #expect(text.contains("struct TableColumns: HearthQuery.TableDefinition"))
    #expect(text.contains("static var tableName: String { \"highPriorityLists\" }"))
    #expect(text.contains("HearthQuery.Table"))
    // Beside `@Table`, the table is `@Table`'s alone.
    let (table, _) = expand("@Table @Selection struct Row { let title: String }")
    #expect(normalized(table).components(separatedBy: "struct TableColumns").count == 2)
  }

  @Test func anEnumTableHasTheColumnsOfItsCases() {
    let (code, diagnostics) = expand("@Table enum Media { case note(String), image(URL) }")
    #expect(diagnostics == [])
    let text = normalized(code)
    #expect(text.contains("static var tableName: String { \"medias\" }"))
    #expect(
      text.contains(
        "let image = HearthQuery._caseColumn(\"image\", \\Media.[case: Media.allCasePaths.image], as: Columns._$image.self)"
      ))
    #expect(text.contains("extension Media: HearthQuery.Table, HearthQuery._ColumnGroup"))
  }

  @Test func refusesEnumCasesThatDoNotFitOneColumn() {
    let (_, diagnostics) = expand(
      """
      @Selection
      enum Kind {
        case none
        case pair(Int, Int)
        case maybe(String?)
      }
      """)
    #expect(
      diagnostics == [
        "3:8: each case of an enum @Selection holds exactly one value, stored in the case's column; 'none' holds 0",
        "4:8: each case of an enum @Selection holds exactly one value, stored in the case's column; 'pair' holds 2",
        "5:8: 'maybe' holds an optional: its NULL would read as another case; store a non-optional value",
      ])
    let (_, empty) = expand("@Selection\nenum Kind {}")
    #expect(empty == ["2:6: an enum @Selection needs at least one case"])
  }
}
