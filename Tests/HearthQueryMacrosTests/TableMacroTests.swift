import Foundation
import HearthQueryMacros
import SwiftDiagnostics
import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import Testing

var macros: [String: any Macro.Type] {
  [
    "Table": TableMacro.self, "Column": ColumnMacro.self, "Ephemeral": EphemeralMacro.self,
    "sql": SQLMacro.self, "bind": BindMacro.self, "Selection": SelectionMacro.self,
    "CasePathable": CasePathableMacro.self,
  ]
}

/// Expands `source` and returns the expanded text and the diagnostics as
/// "line:column: message".
func expand(_ source: String) -> (code: String, diagnostics: [String]) {
  let file = Parser.parse(source: source)
  let context = BasicMacroExpansionContext(
    sourceFiles: [file: .init(moduleName: "Test", fullFilePath: "Test.swift")])
  let expanded = file.expand(
    macros: macros, contextGenerator: { _ in context }, indentationWidth: .spaces(2))
  let converter = SourceLocationConverter(fileName: "Test.swift", tree: file)
  let diagnostics = context.diagnostics.map { diagnostic in
    let location = diagnostic.location(converter: converter)
    return "\(location.line):\(location.column): \(diagnostic.message)"
  }
  return (expanded.formatted().description, diagnostics)
}

/// Whitespace-insensitive comparison of generated code.
func normalized(_ code: String) -> String {
  code.split(whereSeparator: \.isWhitespace).joined(separator: " ")
}

@Suite struct TableMacroTests {
  @Test func expandsATableWithAPrimaryKey() {
    let (code, diagnostics) = expand(
      """
      @Table
      struct RemindersList {
        let id: Int
        var title = ""
        @Column("colour", as: Color.HexRepresentation.self)
        var color: Color = Self.defaultColor
        var position: Int?
        @Ephemeral var isExpanded = false
        var summary: String { title }
        static let defaultColor = Color.blue
      }
      """)
    #expect(diagnostics == [])
    let members = """
        struct TableColumns: HearthQuery.TableDefinition, HearthQuery.PrimaryKeyedTableDefinition {
          typealias QueryValue = RemindersList
          typealias _$id = Int
          let id = HearthQuery._tableColumn("id", \\RemindersList.id, as: Int.self)
          typealias _$title = String
          let title = HearthQuery._tableColumn("title", \\RemindersList.title, as: String.self)
          typealias _$color = Color.HexRepresentation
          let color = HearthQuery._tableColumn("colour", \\RemindersList.color, as: Color.HexRepresentation.self)
          typealias _$position = Int?
          let position = HearthQuery._tableColumn("position", \\RemindersList.position, as: Int?.self)
          static var allColumns: [any HearthQuery.TableColumnExpression<RemindersList>] {
            [HearthQuery._flatColumns(RemindersList.columns.id), HearthQuery._flatColumns(RemindersList.columns.title), HearthQuery._flatColumns(RemindersList.columns.color), HearthQuery._flatColumns(RemindersList.columns.position)].flatMap {
              $0
            }
          }
          var primaryKey: HearthQuery.TableColumn<RemindersList, Int> {
            id
          }
        }
        static let columns = TableColumns()
        static var tableName: String {
          "remindersLists"
        }
      """
    #expect(normalized(code).contains(normalized(members)))
    // The draft, inside the struct: optional key, the struct's defaults, `Self` named.
    #expect(
      normalized(code).contains(
        normalized(
          """
          struct Draft: HearthQuery.Table {
            var id: Int?
            var title: String
            var color: Color
            var position: Int?
            init(id: Int? = nil, title: String = "", color: Color = RemindersList.defaultColor, position: Int? = nil) {
          """)))
    #expect(
      normalized(code).contains(
        normalized(
          "let id = HearthQuery._tableColumn(\"id\", \\RemindersList.Draft.id, as: Int?.self)"
        )))
    // The conformance, the decoder and the width, in an extension that names no column type.
    #expect(
      normalized(code).hasSuffix(
        normalized(
          """
          extension RemindersList: HearthQuery.Table, HearthQuery.PrimaryKeyedTable {
            init(decoder: inout HearthQuery.QueryDecoder) throws {
              try self.init(
                id: decoder.decode(TableColumns._$id.self),
                title: decoder.decode(TableColumns._$title.self),
                color: decoder.decode(TableColumns._$color.self),
                position: decoder.decode(TableColumns._$position.self))
            }
            static var _columnWidth: Int {
              TableColumns._$id._columnWidth + TableColumns._$title._columnWidth + TableColumns._$color._columnWidth + TableColumns._$position._columnWidth
            }
          }
          """)))
  }

  /// The decoder calls the memberwise initializer only where Swift surely writes one with
  /// the columns as parameters; anywhere else it assigns the properties itself.
  @Test func decodesThroughTheMemberwiseInitializerOnlyWhereItSurelyExists() {
    let assigning = "self.name = try decoder.decode(TableColumns._$name.self)"
    let delegating = "try self.init( name: decoder.decode(TableColumns._$name.self))"
    let cases: [(body: String, attributes: String, memberwise: Bool)] = [
      ("var name: String", "", true),
      ("var name: String\n@Ephemeral var draft = false\nvar upper: String { name }", "", true),
      ("var name: String\ninit(name: String) { self.name = name }", "", false),
      ("var name: String\n#if DEBUG\nvar debug = 0\n#endif", "", false),
      ("private var name: String", "", false),
      ("private(set) var name: String", "", false),
      ("var name: String\n@Ephemeral lazy var cache = [Int]()", "", false),
      ("var name: String\n@Ephemeral @Wrapped var extra = 0", "", false),
      ("var name: String", "@MainActor", false),
    ]
    for (body, attributes, memberwise) in cases {
      let (code, diagnostics) = expand("\(attributes) @Table struct Item {\n\(body)\n}")
      #expect(diagnostics == [], "\(body)")
      let text = normalized(code)
      #expect(text.contains(memberwise ? delegating : assigning), "\(attributes) \(body)")
    }
  }

  @Test func derivesTableNamesAsTheReferenceDoes() {
    for (type, table) in [
      ("Reminder", "reminders"), ("RemindersList", "remindersLists"), ("SyncUp", "syncUps"),
      ("Category", "categories"), ("Box", "boxes"), ("URLItem", "urlItems"), ("Day", "days"),
    ] {
      let (code, _) = expand("@Table struct \(type) { var name: String }")
      #expect(code.contains("\"\(table)\""), "\(type)")
    }
    let (explicit, _) = expand(#"@Table("remindersTags") struct ReminderTag { var tagID: Int }"#)
    #expect(explicit.contains(#""remindersTags""#))
  }

  @Test func explicitPrimaryKeyAndNoKey() {
    let (tagged, _) = expand(
      """
      @Table struct Tag {
        @Column(primaryKey: true) var title: String
        var id: String { title }
      }
      """)
    #expect(tagged.contains("var primaryKey: HearthQuery.TableColumn<Tag, String>"))
    let (junction, _) = expand("@Table struct ReminderTag { let reminderID: Int; let tagID: Int }")
    #expect(!junction.contains("PrimaryKeyedTable"))
    #expect(!junction.contains("Draft"))
  }

  @Test func publicTablesGetPublicMembers() {
    let (code, _) = expand(
      "@Table public struct Fact { public let id: Int; public var body = \"\" }")
    #expect(code.contains("public struct TableColumns"))
    #expect(code.contains("public init(decoder: inout HearthQuery.QueryDecoder) throws"))
  }

  @Test func infersColumnTypesFromDefaultValuesAsSwiftDoes() {
    let (code, diagnostics) = expand(
      """
      @Table struct Reminder {
        let id: Int
        var createdAt = Date(timeIntervalSince1970: 0)
        var token = UUID()
        var link = URL(string: "https://example.com")!
        var status = Status()
        var moment = Foundation.Date()
        var priority = Reminder.Priority(rawValue: 1)
        var tags = Set<String>()
        var scores = [Int]()
        var counts = [String: Int]()
        var mask = 0x1F
        var offset = -3
        var ratio = -0.5
        var done = false
        var title = "untitled"
      }
      """)
    #expect(diagnostics == [])
    for (name, type) in [
      ("createdAt", "Date"), ("token", "UUID"), ("link", "URL"), ("status", "Status"),
      ("moment", "Foundation.Date"), ("priority", "Reminder.Priority"), ("tags", "Set<String>"),
      ("scores", "[Int]"), ("counts", "[String: Int]"), ("mask", "Int"), ("offset", "Int"),
      ("ratio", "Double"), ("done", "Bool"), ("title", "String"),
    ] {
      #expect(
        normalized(code).contains(
          normalized(
            "let \(name) = HearthQuery._tableColumn(\"\(name)\", \\Reminder.\(name), as: \(type).self)"
          )), "\(name): \(type)")
    }
  }

  @Test func asksForAnAnnotationWithAFixItOnlyWhereTheSyntaxCannotTell() {
    for (declaration, name) in [
      ("var theme = Theme.blue", "theme"), ("var when = Date.now", "when"),
      ("var made = makeDate()", "made"), ("var other = .init()", "other"),
      ("var nothing = nil", "nothing"), ("var built = Factory.make()", "built"),
    ] {
      let file = Parser.parse(source: "@Table struct Item {\n  let id: Int\n  \(declaration)\n}")
      let context = BasicMacroExpansionContext(
        sourceFiles: [file: .init(moduleName: "Test", fullFilePath: "Test.swift")])
      _ = file.expand(
        macros: macros, contextGenerator: { _ in context }, indentationWidth: .spaces(2))
      let diagnostic = context.diagnostics.first
      #expect(
        diagnostic?.message == "@Table cannot infer the type of '\(name)': add a type annotation")
      let fixIt = diagnostic?.fixIts.first
      #expect(fixIt?.message.message == "add a type annotation")
      guard case .replace(_, let newNode)? = fixIt?.changes.first else {
        Issue.record("no replacement in the fix-it for \(declaration)")
        continue
      }
      let fixed = String(declaration.dropFirst(4)).replacingOccurrences(
        of: " = ", with: ": <#Type#> = ")
      #expect(newNode.description == fixed)
    }
  }

  @Test func diagnosesMisuseAtTheOffendingLine() {
    #expect(
      expand("@Table\nclass Reminder { var id = 0 }").diagnostics == [
        "2:1: @Table applies to a struct, not a class: a row is a value"
      ])
    #expect(
      expand("@Table\nenum Reminder { case a }").diagnostics == [
        "2:1: @Table applies to a struct, not an enum: a row is a value"
      ])
    #expect(
      expand(
        """
        @Table struct Tag {
          @Column(primaryKey: true) var title: String
          @Column(primaryKey: true) var slug: String
        }
        """
      ).diagnostics == [
        "3:3: 'slug' is a second primary key; a table has one (first: 'title')"
      ])
    #expect(
      expand(
        """
        @Table struct Item {
          let id: Int
          var theme = Theme.blue
        }
        """
      ).diagnostics == ["3:7: @Table cannot infer the type of 'theme': add a type annotation"])
    #expect(
      expand(
        """
        @Table struct Item {
          var a, b: Int
        }
        """
      ).diagnostics == ["2:3: @Table needs one stored property per declaration: split this line"])
    #expect(
      expand(
        """
        @Table struct Item {
          let id: Int
          let kind = "fixed"
        }
        """
      ).diagnostics == [
        "3:3: a 'let' with a default value cannot be read from a row; use 'var', or mark it @Ephemeral"
      ])
    #expect(
      expand(
        """
        @Table struct Item {
          let id: Int
          @Ephemeral var cache: [Int]
        }
        """
      ).diagnostics == [
        "3:18: an @Ephemeral property needs a default value: rows are decoded without it"
      ])
  }
}

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
        "init(allCount: some HearthQuery.QueryExpression<Int>, list: some HearthQuery.QueryExpression<RemindersList>) { _columnFragments = [HearthQuery._columnFragments(allCount), HearthQuery._columnFragments(list)].flatMap { $0 } }"
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
        "public static func note(text value: some HearthQuery.QueryExpression<_$note>) -> Self { Self(_columnFragments: [HearthQuery.QueryFragment(raw: \"NULL\"), value.queryFragment]) }"
      ))
    #expect(
      text.contains(
        "let v0 = try decoder.decode(Optional<Columns._$link>.self) let v1 = try decoder.decode(Optional<Columns._$note>.self) if let v0 { self = .link(v0) } else if let v1 { self = .note(text: v1) } else { throw HearthQuery._noCaseError(Self.self) }"
      ))
    #expect(text.contains("public static var _columnNames: [String] { [\"link\", \"note\"] }"))
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
