import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// One case of an enum, as `@CasePathable` and an enum `@Selection` read it.
struct EnumCase {
  struct Value {
    var label: String?
    var type: String
  }

  var name: String
  var values: [Value]
  var node: Syntax
  /// `@Column("name", as: R.self)` on the case: its column's name and the representation
  /// its value is stored as.
  var columnArguments: ColumnArguments
  /// What is wrong with those arguments, for an enum `@Selection` to report.
  var columnDiagnostics: [Diagnostic]

  /// The name of the case's column.
  var column: String { columnArguments.name ?? name }
  /// The representation the case's value is stored as, where `@Column(as:)` names one.
  var representation: String? { columnArguments.representation }

  /// The type a case path of this case extracts: `Void`, the one value's, or a tuple.
  var valueType: String {
    switch values.count {
    case 0: return "Void"
    case 1: return values[0].type
    default:
      return "("
        + values.map { ($0.label.map { "\($0): " } ?? "") + $0.type }.joined(separator: ", ")
        + ")"
    }
  }

  /// `.name(label: a, b)` with the values named `names`.
  func construct(_ names: [String]) -> String {
    let name = TableMacro.backticked(self.name)
    guard !values.isEmpty else { return ".\(name)" }
    let arguments = zip(values, names).map { value, argument in
      (value.label.map { "\($0): " } ?? "") + argument
    }
    return ".\(name)(\(arguments.joined(separator: ", ")))"
  }

  /// `case .name(let a, let b)` binding the values to `names`.
  func pattern(_ names: [String]) -> String {
    let name = TableMacro.backticked(self.name)
    guard !values.isEmpty else { return ".\(name)" }
    return ".\(name)(\(names.map { "let \($0)" }.joined(separator: ", ")))"
  }

  static func parse(_ declaration: EnumDeclSyntax) -> [EnumCase] {
    declaration.memberBlock.members.flatMap { member -> [EnumCase] in
      guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { return [] }
      return caseDecl.elements.map { element in
        let values =
          element.parameterClause?.parameters.map { parameter in
            Value(
              label: parameter.firstName.flatMap { $0.text == "_" ? nil : $0.text },
              type: parameter.type.trimmedDescription)
          } ?? []
        var diagnostics: [Diagnostic] = []
        let arguments = ColumnArguments(caseDecl.attributes, diagnostics: &diagnostics)
        return EnumCase(
          name: element.name.text.trimmingCharacters(in: ["`"]), values: values,
          node: Syntax(element), columnArguments: arguments, columnDiagnostics: diagnostics)
      }
    }
  }
}

/// `@CasePathable`: gives an enum `AllCasePaths`, one `AnyCasePath` per case, and the
/// `CasePathable` conformance (`kind.is(\.note)`, `kind[case: \.link]`, and `kind.link`
/// when the enum is also `@dynamicMemberLookup`). In an enum table, `$0.kind.image` names the
/// column of the `image` case through it.
public enum CasePathableMacro: MemberMacro, ExtensionMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    guard let enumDecl = declaration.as(EnumDeclSyntax.self) else { return [] }
    let access = enumDecl.modifiers.accessPrefix
    let typeName = enumDecl.name.text
    let paths = EnumCase.parse(enumDecl).map { enumCase -> String in
      let names = enumCase.values.indices.map { "v\($0)" }
      let embed: String
      switch enumCase.values.count {
      case 0: embed = "{ _ in \(typeName)\(enumCase.construct([])) }"
      case 1: embed = "{ \(typeName)\(enumCase.construct(["$0"])) }"
      default:
        embed = "{ \(typeName)\(enumCase.construct(names.indices.map { "$0.\($0)" })) }"
      }
      let extracted =
        switch enumCase.values.count {
        case 0: "()"
        case 1: names[0]
        default: "(" + names.joined(separator: ", ") + ")"
        }
      return """
        \(access)var \(TableMacro.backticked(enumCase.name)): HearthQuery.AnyCasePath<\(typeName), \(enumCase.valueType)> {
        HearthQuery.AnyCasePath(
        \(TableMacro.stringLiteral(enumCase.name)),
        embed: \(embed),
        extract: { if case \(enumCase.pattern(names)) = $0 { return \(extracted) } else { return nil } })
        }
        """
    }
    return [
      """
      \(raw: access)struct AllCasePaths: Sendable {
      \(raw: paths.joined(separator: "\n"))
      }
      """,
      "\(raw: access)static var allCasePaths: AllCasePaths { AllCasePaths() }",
    ]
  }

  public static func expansion(
    of node: AttributeSyntax,
    attachedTo declaration: some DeclGroupSyntax,
    providingExtensionsOf type: some TypeSyntaxProtocol,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [ExtensionDeclSyntax] {
    guard declaration.is(EnumDeclSyntax.self) else {
      throw DiagnosticsError(diagnostics: [
        .error(
          declaration.introducerToken, "notAnEnum",
          "@CasePathable applies to an enum, not \(declaration.kindName)")
      ])
    }
    return [
      try ExtensionDeclSyntax(
        SyntaxNodeString(
          stringLiteral: "extension \(type.trimmedDescription): HearthQuery.CasePathable {}"))
    ]
  }
}
