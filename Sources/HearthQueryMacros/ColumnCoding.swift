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
    let cases = properties.map { property -> String in
      property.columnName == property.name
        ? "case \(TableMacro.backticked(property.name))"
        : "case \(TableMacro.backticked(property.name)) = \(TableMacro.stringLiteral(property.columnName))"
    }
    let keys = properties.map {
      "if keyPath == \\Self.\(TableMacro.backticked($0.name)) { return "
        + "\(TableMacro.stringLiteral($0.columnName)) }"
    }
    return [
      DeclSyntax(
        stringLiteral: """
          private enum CodingKeys: Swift.String, Swift.CodingKey {
          \(cases.joined(separator: "\n"))
          }
          """),
      jsonKeys(keys, access: declaration.modifiers.accessPrefix),
    ]
  }

  /// `_jsonKey(_:)`: the JSON key of each property a JSON path may name.
  static func jsonKeys(_ lines: [String], access: String) -> DeclSyntax {
    DeclSyntax(
      stringLiteral: """
        \(access)static func _jsonKey(_ keyPath: Swift.AnyKeyPath) -> Swift.String? {
        \(lines.joined(separator: "\n"))
        return nil
        }
        """)
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
    let keys = cases.map { enumCase -> String in
      let name = TableMacro.backticked(enumCase.name)
      return enumCase.column == enumCase.name
        ? "case \(name)" : "case \(name) = \(TableMacro.stringLiteral(enumCase.column))"
    }
    var members = [
      """
      private enum CodingKeys: Swift.String, Swift.CodingKey {
      \(keys.joined(separator: "\n"))
      }
      """
    ]
    if decodes {
      let decodeCases = cases.map { enumCase -> String in
        let name = TableMacro.backticked(enumCase.name)
        let label = enumCase.values[0].label.map { "\($0): " } ?? ""
        return "case .\(name): self = .\(name)(\(label)try container.decode("
          + "\(enumCase.values[0].type).self, forKey: .\(name)))"
      }
      members.append(
        """
        \(access)init(from decoder: any Swift.Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
        throw Swift.DecodingError.dataCorrupted(Swift.DecodingError.Context(
        codingPath: container.codingPath,
        debugDescription: "expected one key, the column of the value's case"))
        }
        switch key {
        \(decodeCases.joined(separator: "\n"))
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
        \(access)func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        \(encodeCases.joined(separator: "\n"))
        }
        }
        """)
    }
    let jsonKeyLines = cases.map {
      "if keyPath == \\Self.\(TableMacro.backticked($0.name)) { return "
        + "\(TableMacro.stringLiteral($0.column)) }"
    }
    return members.map { DeclSyntax(stringLiteral: $0) } + [jsonKeys(jsonKeyLines, access: access)]
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
