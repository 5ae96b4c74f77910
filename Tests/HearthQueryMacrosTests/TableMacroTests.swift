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
          var primaryKey: some HearthQuery._PrimaryKeyColumns<RemindersList, Int> {
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
          struct Draft: HearthQuery.Table, HearthQuery._TableDraft {
            /// A draft has no draft of its own.
            typealias Draft = Never
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
            init(decoder: inout HearthQuery.QueryRowDecoder) throws {
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
    #expect(!explicit.contains("schemaName"))
  }

  @Test func aSchemaNamesTheAttachedDatabaseForTheTableAndItsDraft() {
    // The expansion without its whitespace, for lookups that ignore line breaks.
    func compact(_ source: String) -> (code: String, diagnostics: [String]) {
      let (code, diagnostics) = expand(source)
      return (code.filter { !$0.isWhitespace }, diagnostics)
    }
    let (code, diagnostics) = compact(
      #"@Table("notes", schema: "archive") struct Note { let id: Int; var body = "" }"#)
    #expect(diagnostics == [])
    #expect(code.contains(#"staticvartableName:String{"notes"}"#))
    // Once for the table, once for its draft.
    #expect(code.components(separatedBy: #"staticvarschemaName:String?{"archive"}"#).count == 3)
    let (unnamed, _) = compact(#"@Table(schema: "archive") struct Note { let id: Int }"#)
    #expect(unnamed.contains(#"staticvartableName:String{"notes"}"#))
    #expect(unnamed.contains(#"staticvarschemaName:String?{"archive"}"#))
    let (bad, errors) = expand(#"@Table(schema: name) struct Note { let id: Int }"#)
    #expect(!bad.contains("schemaName"))
    #expect(errors.contains { $0.hasSuffix("the schema name must be a string literal") })
  }

  @Test func explicitPrimaryKeyAndNoKey() {
    let (tagged, _) = expand(
      """
      @Table struct Tag {
        @Column(primaryKey: true) var title: String
        var id: String { title }
      }
      """)
    #expect(tagged.contains("var primaryKey: some HearthQuery._PrimaryKeyColumns<Tag, String>"))
    let (junction, _) = expand("@Table struct ReminderTag { let reminderID: Int; let tagID: Int }")
    #expect(!junction.contains("PrimaryKeyedTable"))
    #expect(!junction.contains("Draft"))
  }

  @Test func publicTablesGetPublicMembers() {
    let (code, _) = expand(
      "@Table public struct Fact { public let id: Int; public var body = \"\" }")
    #expect(code.contains("public struct TableColumns"))
    #expect(code.contains("public init(decoder: inout HearthQuery.QueryRowDecoder) throws"))
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
        "2:1: @Table applies to a struct or an enum, not a class: a row is a value"
      ])
    #expect(
      expand("@Table\nenum Reminder { case a }").diagnostics == [
        "2:22: each case of an enum @Table holds exactly one value, stored in the case's column; 'a' holds 0"
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

@Suite struct ColumnCodingTraitTests {
  @Test func aCodableTableGetsCodingKeysNamedAfterItsColumns() {
    let (code, diagnostics) = ColumnCoding.$enabledForTesting.withValue(true) {
      expand(
        """
        @Table struct Reminder: Codable {
          let id: Int
          @Column("is_completed") var isCompleted = false
        }
        """)
    }
    #expect(diagnostics == [])
    #expect(
      normalized(code).contains(
        normalized(
          """
          private enum CodingKeys: Swift.String, Swift.CodingKey {
            case id
            case isCompleted = "is_completed"
          }
          """)))
  }

  @Test func aTableWithItsOwnCodingKeysIsAnErrorAndOneNotCodableGetsNone() {
    let (_, diagnostics) = ColumnCoding.$enabledForTesting.withValue(true) {
      expand(
        """
        @Table struct Reminder: Codable {
          let id: Int
          enum CodingKeys: String, CodingKey { case id }
        }
        """)
    }
    #expect(diagnostics.count == 1)
    #expect(diagnostics.first?.contains("writes 'CodingKeys' from its columns") == true)
    let (plain, _) = ColumnCoding.$enabledForTesting.withValue(true) {
      expand("@Table struct Tag { let id: Int }")
    }
    #expect(!plain.contains("CodingKeys"))
    let (off, _) = expand("@Table struct Reminder: Codable { let id: Int }")
    #expect(!off.contains("CodingKeys"))
  }

  @Test func aCodableEnumCodesItsCaseUnderTheCasesColumn() {
    let (code, diagnostics) = ColumnCoding.$enabledForTesting.withValue(true) {
      expand(
        """
        @Selection enum Kind: Codable {
          @Column("link_url") case link(URL)
          case note(String)
        }
        """)
    }
    #expect(diagnostics == [])
    let text = normalized(code)
    #expect(text.contains(normalized(#"case link = "link_url" case note"#)))
    #expect(text.contains("init(from decoder: any Swift.Decoder) throws"))
    #expect(text.contains("case .link(let value): try container.encode(value, forKey: .link)"))
    let (_, refused) = ColumnCoding.$enabledForTesting.withValue(true) {
      expand(
        """
        @Selection enum Kind: Encodable {
          case note(String)
          func encode(to encoder: any Encoder) throws {}
        }
        """)
    }
    #expect(refused.count == 1)
  }
}
