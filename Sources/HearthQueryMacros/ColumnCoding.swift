import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// The package trait `ColumnCoding`: a `Codable` table or selection encodes each column under
/// its column name (`@Column("is_completed") var isCompleted` as `"is_completed"`; an enum's
/// case under its case's column), so JSON of a row says what the schema says.
package enum ColumnCoding {
  static var isEnabled: Bool {
    #if ColumnCoding
      true
    #else
      enabledForTesting
    #endif
  }

  /// Turns the trait on for expansions inside `withValue`, for the macros' own tests (whose
  /// build has no traits).
  @TaskLocal package static var enabledForTesting = false

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
    return keyDeclarations(
      properties.map { ($0.name, $0.columnName) }, access: declaration.modifiers.accessPrefix)
  }

  /// `CodingKeys`, each property (or case) under its column's name, and `_jsonKey(_:)`, the
  /// same keys for the JSON paths that name them.
  static func keyDeclarations(_ keys: [(name: String, column: String)], access: String)
    -> [DeclSyntax]
  {
    let cases = keys.map { name, column in
      let label = "case \(TableMacro.backticked(name))"
      return column == name ? label : "\(label) = \(TableMacro.stringLiteral(column))"
    }
    let paths = keys.map { name, column in
      "if keyPath == \\Self.\(TableMacro.backticked(name)) { return "
        + "\(TableMacro.stringLiteral(column)) }"
    }
    return [
      """
      private enum CodingKeys: Swift.String, Swift.CodingKey {
      \(raw: cases.joined(separator: "\n"))
      }
      """,
      """
      \(raw: access)static func _jsonKey(_ keyPath: Swift.AnyKeyPath) -> Swift.String? {
      \(raw: paths.joined(separator: "\n"))
      return nil
      }
      """,
    ]
  }

  /// For an enum table or selection that declares `Codable` (or one half of it): `CodingKeys`
  /// naming each case's column, and the coding itself, a one-key object holding the case's
  /// value under its column name (`{"note": "Hi"}`). An enum with its own `CodingKeys`,
  /// `init(from:)` or `encode(to:)` gets an error instead.
  static func coding(
    _ declaration: EnumDeclSyntax, cases: [EnumCase], attribute: String,
    in context: some MacroExpansionContext
  ) -> [DeclSyntax] {
    let names = conformances(declaration.inheritanceClause)
    let decodes = names.contains("Codable") || names.contains("Decodable")
    let encodes = names.contains("Codable") || names.contains("Encodable")
    guard isEnabled, decodes || encodes else { return [] }
    let own = declaration.memberBlock.members.first { member in
      isCodingKeys(member.decl)
        || (decodes
          && member.decl.as(InitializerDeclSyntax.self)?.signature.parameterClause.parameters
            .first?.firstName.text == "from")
        || (encodes && member.decl.as(FunctionDeclSyntax.self)?.name.text == "encode")
    }
    if let own {
      context.diagnose(
        Diagnostic.error(
          own.decl, "customCoding",
          "'@\(attribute)' writes the coding of its cases from their columns (trait "
            + "ColumnCoding); remove this"))
      return []
    }
    let access = declaration.modifiers.accessPrefix
    var members: [DeclSyntax] = keyDeclarations(
      cases.map { ($0.name, $0.column) }, access: access)
    if decodes {
      let decodeCases = cases.map { enumCase -> String in
        let name = TableMacro.backticked(enumCase.name)
        let label = enumCase.values[0].label.map { "\($0): " } ?? ""
        return "case .\(name): self = .\(name)(\(label)try container.decode("
          + "\(enumCase.values[0].type).self, forKey: .\(name)))"
      }
      members.append(
        """
        \(raw: access)init(from decoder: any Swift.Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
        throw Swift.DecodingError.dataCorrupted(Swift.DecodingError.Context(
        codingPath: container.codingPath,
        debugDescription: "expected one key, the column of the value's case"))
        }
        switch key {
        \(raw: decodeCases.joined(separator: "\n"))
        }
        }
        """)
    }
    if encodes {
      let encodeCases = cases.map { enumCase -> String in
        let name = TableMacro.backticked(enumCase.name)
        return "case .\(name)(let value): try container.encode(value, forKey: .\(name))"
      }
      members.append(
        """
        \(raw: access)func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        \(raw: encodeCases.joined(separator: "\n"))
        }
        }
        """)
    }
    return members
  }

  static func declaresCodable(_ declaration: StructDeclSyntax) -> Bool {
    conformances(declaration.inheritanceClause).contains {
      ["Codable", "Encodable", "Decodable"].contains($0)
    }
  }

  static func conformances(_ clause: InheritanceClauseSyntax?) -> [String] {
    (clause?.inheritedTypes ?? []).map {
      $0.type.trimmedDescription.replacingOccurrences(of: "Swift.", with: "")
    }
  }

  static func isCodingKeys(_ decl: DeclSyntax) -> Bool {
    decl.as(EnumDeclSyntax.self)?.name.text == "CodingKeys"
      || decl.as(StructDeclSyntax.self)?.name.text == "CodingKeys"
      || decl.as(TypeAliasDeclSyntax.self)?.name.text == "CodingKeys"
  }
}
