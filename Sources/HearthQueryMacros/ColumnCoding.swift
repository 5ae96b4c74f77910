import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// The package trait `ColumnCoding`: a `Codable` table or selection encodes each column under
/// its column name (`@Column("is_completed") var isCompleted` as `"is_completed"`), so JSON
/// of a row says what the schema says.
enum ColumnCoding {
  static var isEnabled: Bool {
    #if ColumnCoding
      true
    #else
      false
    #endif
  }

  /// `private enum CodingKeys` naming each column, for a struct that declares `Codable`,
  /// `Encodable` or `Decodable` itself; nothing without the trait or without such a
  /// conformance. A struct with its own `CodingKeys` gets an error instead: the macro writes
  /// them.
  static func codingKeys(
    _ declaration: StructDeclSyntax, properties: [TableProperty], attribute: String,
    in context: some MacroExpansionContext
  ) -> [DeclSyntax] {
    guard isEnabled, declaresCodable(declaration) else { return [] }
    if let own = declaration.memberBlock.members.first(where: { isCodingKeys($0.decl) }) {
      context.diagnose(
        Diagnostic.error(
          own.decl, "customCodingKeys",
          "'@\(attribute)' writes 'CodingKeys' from its columns (trait ColumnCoding); "
            + "remove this one"))
      return []
    }
    let cases = properties.map { property -> String in
      property.columnName == property.name
        ? "case \(TableMacro.backticked(property.name))"
        : "case \(TableMacro.backticked(property.name)) = \(TableMacro.stringLiteral(property.columnName))"
    }
    return [
      DeclSyntax(
        stringLiteral: """
          private enum CodingKeys: Swift.String, Swift.CodingKey {
          \(cases.joined(separator: "\n"))
          }
          """)
    ]
  }

  static func declaresCodable(_ declaration: StructDeclSyntax) -> Bool {
    let names =
      declaration.inheritanceClause?.inheritedTypes.map {
        $0.type.trimmedDescription.replacingOccurrences(of: "Swift.", with: "")
      } ?? []
    return names.contains { ["Codable", "Encodable", "Decodable"].contains($0) }
  }

  static func isCodingKeys(_ decl: DeclSyntax) -> Bool {
    decl.as(EnumDeclSyntax.self)?.name.text == "CodingKeys"
      || decl.as(StructDeclSyntax.self)?.name.text == "CodingKeys"
      || decl.as(TypeAliasDeclSyntax.self)?.name.text == "CodingKeys"
  }
}
