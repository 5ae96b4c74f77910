import HearthNaming
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

// `@Table` on an enum, as the reference allows: a table whose rows are the enum's cases,
// stored one nullable column per case as an enum `@Selection` stores them.
//
// ```swift
// @Table enum Media { case note(String), image(URL) }
// // CREATE TABLE "medias" ("note" TEXT, "image" TEXT)
// Media.where { $0.image.isNot(nil) }
// ```
extension TableMacro {
  /// The enum's members: what an enum `@Selection` writes (its `Columns`, and its case
  /// paths unless `@CasePathable` writes them), then the table's columns and name.
  static func enumMembers(
    _ node: AttributeSyntax, _ enumDecl: EnumDeclSyntax, conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    guard let cases = try? SelectionMacro.cases(enumDecl),
      let tableName = try? explicitTableName(node)
        ?? SQLNaming.tableName(forTypeName: enumDecl.name.text)
    else { return [] }
    let access = enumDecl.modifiers.accessPrefix
    let typeName = enumDecl.name.text
    var members = [SelectionMacro.enumColumnsDeclaration(enumDecl, cases: cases)]
    if !enumDecl.hasAttribute("CasePathable") {
      members += try CasePathableMacro.expansion(
        of: node, providingMembersOf: enumDecl, conformingTo: protocols, in: context)
    }
    let columns = cases.map { enumCase in
      let name = backticked(enumCase.name)
      return """
        \(access)let \(name) = HearthQuery.TableColumn<\(typeName), Columns._$\(enumCase.name)?>(\
        \(stringLiteral(enumCase.name)), keyPath: \\\(typeName).[case: \(typeName).allCasePaths.\(name)])
        """
    }
    let all = cases.map { "\(typeName).columns.\(backticked($0.name))" }
    members.append(
      """
      \(raw: access)struct TableColumns: HearthQuery.TableDefinition {
      \(raw: access)typealias QueryValue = \(raw: typeName)
      \(raw: columns.joined(separator: "\n"))
      \(raw: access)static var allColumns: [any HearthQuery.TableColumnExpression<\(raw: typeName)>] { [\(raw: all.joined(separator: ", "))] }
      }
      """)
    members.append("\(raw: access)static let columns = TableColumns()")
    members.append(
      "\(raw: access)static var tableName: String { \(raw: stringLiteral(tableName)) }")
    return members
  }

  /// The enum's extensions: the table conformance with an enum `@Selection`'s decoder, and
  /// the case paths'.
  static func enumExtensions(
    _ node: AttributeSyntax, _ enumDecl: EnumDeclSyntax, type: some TypeSyntaxProtocol,
    conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
  ) throws -> [ExtensionDeclSyntax] {
    _ = try explicitTableName(node)
    var extensions = [
      try SelectionMacro.enumExtension(
        enumDecl, type: type.trimmedDescription,
        conformances: "HearthQuery.Table, HearthQuery._ColumnGroup", attribute: "@Table")
    ]
    if !enumDecl.hasAttribute("CasePathable") {
      extensions += try CasePathableMacro.expansion(
        of: node, attachedTo: enumDecl, providingExtensionsOf: type, conformingTo: protocols,
        in: context)
    }
    return extensions
  }
}
