import HearthNaming
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

// `@Table` on an enum, as the reference allows: a table whose rows are the enum's cases,
// stored as an enum `@Selection` stores them (a nullable column per case, or the columns of
// the group a case holds).
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
    var members = [
      SelectionMacro.enumColumnsDeclaration(enumDecl, cases: cases),
      SelectionMacro.selectionAlias(access: access),
    ]
    members += ColumnCoding.coding(enumDecl, cases: cases, attribute: "Table", in: context)
    if !enumDecl.hasAttribute("CasePathable") {
      members += try CasePathableMacro.expansion(
        of: node, providingMembersOf: enumDecl, conformingTo: protocols, in: context)
    }
    let columns = cases.map { enumCase in
      let name = backticked(enumCase.name)
      return """
        \(access)let \(name) = HearthQuery._caseColumn(\
        \(stringLiteral(enumCase.column)), \\\(typeName).[case: \(typeName).allCasePaths.\(name)], \
        as: Columns._$\(enumCase.name).self)
        """
    }
    let all = cases.map { "HearthQuery._flatColumns(\(typeName).columns.\(backticked($0.name)))" }
    members.append(
      """
      \(raw: access)struct TableColumns: HearthQuery.TableDefinition {
      \(raw: access)typealias QueryValue = \(raw: typeName)
      \(raw: columns.joined(separator: "\n"))
      \(raw: access)static var allColumns: [any HearthQuery.TableColumnExpression<\(raw: typeName)>] { [\(raw: all.joined(separator: ", "))].flatMap { $0 } }
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
