import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Selection`: makes a struct a result type that a query can select into.
///
/// As a member: `Columns`, an expression with one argument per stored property, in order
/// (`Stats.Columns(allCount: $0.count(), flaggedCount: $0.count(filter: $0.isFlagged))`).
/// In an extension: the conformance and `init(decoder:)`, which reads the properties in the
/// same order.
public enum SelectionMacro: MemberMacro, ExtensionMacro {
  static func properties(_ declaration: some DeclGroupSyntax) throws -> (
    typeName: String, access: String, properties: [TableProperty]
  ) {
    guard let structDecl = declaration.as(StructDeclSyntax.self) else {
      throw DiagnosticsError(diagnostics: [
        .error(
          declaration.introducerToken, "notAStruct",
          "@Selection applies to a struct, not \(declaration.kindName)")
      ])
    }
    var diagnostics: [Diagnostic] = []
    let properties = TableProperty.parse(structDecl, macro: "@Selection", diagnostics: &diagnostics)
    if properties.isEmpty, diagnostics.isEmpty {
      diagnostics.append(
        .error(structDecl.name, "noColumns", "@Selection needs at least one stored property"))
    }
    guard diagnostics.isEmpty else { throw DiagnosticsError(diagnostics: diagnostics) }
    return (structDecl.name.text, structDecl.accessPrefix, properties)
  }

  public static func expansion(
    of node: AttributeSyntax,
    providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    // Diagnostics come from the extension role, once. Beside `@Table` (a view's row type),
    // `@Table` writes everything.
    guard !declaration.hasTableAttribute,
      let (typeName, access, properties) = try? properties(declaration)
    else { return [] }
    return [columnsDeclaration(typeName: typeName, access: access, properties: properties)]
  }

  /// `Columns`: an expression of the whole type, one argument per stored property. `@Table`
  /// writes it too (for `insert { T.Columns(…) }` and views).
  static func columnsDeclaration(typeName: String, access: String, properties: [TableProperty])
    -> DeclSyntax
  {
    var lines = ["\(access)typealias QueryValue = \(typeName)"]
    for property in properties {
      lines.append("\(access)typealias _$\(property.name) = \(property.columnValueType)")
    }
    lines.append("\(access)let queryFragment: HearthQuery.QueryFragment")
    let parameters = properties.map {
      "\(TableMacro.backticked($0.name)): some HearthQuery.QueryExpression<\($0.columnValueType)>"
    }
    let fragments = properties.map { "\(TableMacro.backticked($0.name)).queryFragment" }
    lines.append(
      """
      \(access)init(\(parameters.joined(separator: ", "))) {
      queryFragment = [\(fragments.joined(separator: ", "))].joined()
      }
      """)
    let columns = """
      \(access)struct Columns: HearthQuery.QueryExpression {
      \(lines.joined(separator: "\n"))
      }
      """
    return DeclSyntax(stringLiteral: columns)
  }

  public static func expansion(
    of node: AttributeSyntax,
    attachedTo declaration: some DeclGroupSyntax,
    providingExtensionsOf type: some TypeSyntaxProtocol,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [ExtensionDeclSyntax] {
    if declaration.hasTableAttribute {
      // `@Table` writes the decoder; the compiler still looks to this role for the
      // conformance it declares.
      return [
        try ExtensionDeclSyntax(
          SyntaxNodeString(
            stringLiteral: "extension \(type.trimmedDescription): HearthQuery.QueryRepresentable {}"
          ))
      ]
    }
    let (_, access, properties) = try properties(declaration)
    let typeName = type.trimmedDescription
    let names = properties.map { TableMacro.stringLiteral($0.columnName) }
    let indexes = properties.enumerated().map { index, property in
      "if keyPath == \\\(typeName).\(TableMacro.backticked(property.name)) { return \(index) }"
    }
    let bindings = properties.map {
      "HearthQuery._groupBindings(value.\(TableMacro.backticked($0.name)), as: Columns._$\($0.name).self)"
    }
    let source = """
      extension \(typeName): HearthQuery.QueryRepresentable, HearthQuery._ColumnGroup {
      \(TableMacro.decodingMembers(access: access, properties: properties, types: "Columns"))
      \(access)static var _columnNames: [String] { [\(names.joined(separator: ", "))] }
      \(access)static func _columnIndex(_ keyPath: PartialKeyPath<Self>) -> Int? {
      \(indexes.joined(separator: "\n"))
      return nil
      }
      \(access)static func _bindings(_ value: Self) -> [HearthQuery.QueryBinding] {
      [\(bindings.joined(separator: ", "))].flatMap { $0 }
      }
      }
      """
    return [try ExtensionDeclSyntax(SyntaxNodeString(stringLiteral: source))]
  }
}

extension DeclGroupSyntax {
  /// Whether `@Table` is attached too.
  var hasTableAttribute: Bool {
    attributes.contains {
      $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "Table"
    }
  }
}
