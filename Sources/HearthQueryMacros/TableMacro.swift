import HearthNaming
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Table` and `@Table("name")`: makes a struct a table.
///
/// As members (inside the struct, so that every type name resolves as in the struct's own
/// body, nested types included): `TableColumns` (one typed column per stored property),
/// `columns`, `tableName`, and for a table with a primary key a `Draft` whose key is
/// optional. In an extension (so that the memberwise initializer survives): the
/// conformances and the row decoder `init(decoder:)`, which names no type.
public enum TableMacro: MemberMacro, ExtensionMacro {
  struct Model {
    var typeName: String
    var tableName: String
    /// `@Table(schema: "…")`: the attached database the table lives in.
    var schemaName: String?
    var properties: [TableProperty]
    var access: String
    /// Whether `init(decoder:)` can call the memberwise initializer.
    var hasMemberwiseInitializer: Bool
    /// Whether the struct is generic, where a static stored property cannot be.
    var isGeneric = false
    /// Whether the struct declares its own `static let all` (a default scope).
    var hasDefaultScope = false
    var primaryKey: TableProperty? { properties.first(where: \.isPrimaryKey) }
  }

  /// Reads the struct, or throws every diagnostic it deserves.
  static func model(_ node: AttributeSyntax, _ declaration: some DeclGroupSyntax) throws -> Model {
    guard let structDecl = declaration.as(StructDeclSyntax.self) else {
      let kind = declaration.kindName
      throw DiagnosticsError(diagnostics: [
        .error(
          declaration.introducerToken, "notAStruct",
          "@Table applies to a struct or an enum, not \(kind): a row is a value")
      ])
    }
    var diagnostics: [Diagnostic] = []
    let typeName = structDecl.name.text
    let tableName = try explicitTableName(node) ?? SQLNaming.tableName(forTypeName: typeName)
    var properties = TableProperty.parse(structDecl, diagnostics: &diagnostics)

    let explicitKeys = properties.filter(\.explicitPrimaryKey)
    for duplicate in explicitKeys.dropFirst() {
      diagnostics.append(
        .error(
          duplicate.node, "twoPrimaryKeys",
          "'\(duplicate.name)' is a second primary key; a table has one "
            + "(first: '\(explicitKeys[0].name)')"))
    }
    if explicitKeys.isEmpty, let index = properties.firstIndex(where: { $0.name == "id" }) {
      properties[index].isPrimaryKey = true
    }
    if properties.isEmpty, diagnostics.isEmpty {
      diagnostics.append(
        .error(structDecl.name, "noColumns", "@Table needs at least one stored property"))
    }
    guard diagnostics.isEmpty else { throw DiagnosticsError(diagnostics: diagnostics) }
    return Model(
      typeName: typeName, tableName: tableName, schemaName: try schemaName(node),
      properties: properties,
      access: structDecl.accessPrefix,
      hasMemberwiseInitializer: hasMemberwiseInitializer(structDecl),
      isGeneric: structDecl.genericParameterClause != nil,
      hasDefaultScope: declaresAll(structDecl))
  }

  public static func expansion(
    of node: AttributeSyntax,
    providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    if let enumDecl = declaration.as(EnumDeclSyntax.self) {
      return try enumMembers(node, enumDecl, conformingTo: protocols, in: context)
    }
    // Diagnostics come from the extension role, once.
    guard let model = try? model(node, declaration) else { return [] }
    let access = model.access
    var members: [String] = [
      tableColumnsDeclaration(
        access: access, typeName: model.typeName, properties: model.properties,
        primaryKey: model.primaryKey),
      columnsProperty(access: access, isGeneric: model.isGeneric),
      "\(access)static var tableName: String { \(stringLiteral(model.tableName)) }",
      model.schemaName.map {
        "\(access)static var schemaName: String? { \(stringLiteral($0)) }"
      } ?? "",
      SelectionMacro.columnsDeclaration(
        typeName: model.typeName, access: access, properties: model.properties
      ).description,
      SelectionMacro.selectionAlias(access: access).description,
    ]
    // A draft is a row whose key, or whose lazily initialized columns, the database may
    // fill: a table with neither has none.
    let written = model.properties.filter { !$0.isGenerated }
    if model.primaryKey != nil || written.contains(where: \.isLazyInitializable) {
      members.append(
        draftDeclaration(
          access: access, typeName: model.typeName, tableName: model.tableName,
          isGeneric: model.isGeneric,
          schemaName: model.schemaName,
          properties: written, hasDefaultScope: model.hasDefaultScope))
    }
    var declarations = members.map { DeclSyntax(stringLiteral: $0) }
    if let structDecl = declaration.as(StructDeclSyntax.self) {
      declarations += ColumnCoding.codingKeys(
        structDecl, properties: model.properties, attribute: "Table", in: context)
    }
    return declarations
  }

  public static func expansion(
    of node: AttributeSyntax,
    attachedTo declaration: some DeclGroupSyntax,
    providingExtensionsOf type: some TypeSyntaxProtocol,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [ExtensionDeclSyntax] {
    if let enumDecl = declaration.as(EnumDeclSyntax.self) {
      return try enumExtensions(
        node, enumDecl, type: type, conformingTo: protocols, in: context)
    }
    var model = try model(node, declaration)
    model.access = context.extensionAccess(model.access)
    var conformances = ["HearthQuery.Table"]
    if model.primaryKey != nil { conformances.append("HearthQuery.PrimaryKeyedTable") }
    let source = """
      extension \(type.trimmedDescription): \(conformances.joined(separator: ", ")) {
      \(decodingMembers(access: model.access, properties: model.properties, memberwise: model.hasMemberwiseInitializer))
      }
      """
    return [try ExtensionDeclSyntax(SyntaxNodeString(stringLiteral: source))]
  }

  static func tableColumnsDeclaration(
    access: String, typeName: String, properties: [TableProperty], primaryKey: TableProperty?
  ) -> String {
    var lines: [String] = []
    for property in properties {
      // The column's stored type, named for the decoder in the extension (which cannot name
      // the struct's types itself, and should not read `columns` for every row).
      lines.append("\(access)typealias _$\(property.name) = \(property.columnValueType)")
      // One column, or a group of them when the type is a `@Selection`: the overload of
      // `_tableColumn` that the type picks decides.
      lines.append(
        "\(access)let \(backticked(property.name)) = HearthQuery._tableColumn("
          + "\(stringLiteral(property.columnName)), \\\(typeName).\(backticked(property.name)), "
          + "as: \(property.columnValueType).self)"
      )
    }
    let all = properties.map {
      "HearthQuery._flatColumns(\(typeName).columns.\(backticked($0.name)))"
    }
    .joined(separator: ", ")
    lines.append(
      "\(access)static var allColumns: [any HearthQuery.TableColumnExpression<\(typeName)>] { [\(all)].flatMap { $0 } }"
    )
    if properties.contains(where: \.isGenerated) {
      let writable = properties.filter { !$0.isGenerated }.map {
        "HearthQuery._flatColumns(\(typeName).columns.\(backticked($0.name)))"
      }
      lines.append(
        "\(access)static var writableColumns: [any HearthQuery.TableColumnExpression<\(typeName)>] { [\(writable.joined(separator: ", "))].flatMap { $0 }.filter { !$0._isGenerated } }"
      )
    }
    var protocols = ["HearthQuery.TableDefinition"]
    if let primaryKey {
      protocols.append("HearthQuery.PrimaryKeyedTableDefinition")
      lines.append(
        "\(access)var primaryKey: some HearthQuery._PrimaryKeyColumns<\(typeName), \(primaryKey.columnValueType)> { \(backticked(primaryKey.name)) }"
      )
    }
    return """
      \(access)struct TableColumns: \(protocols.joined(separator: ", ")) {
      \(access)typealias QueryValue = \(typeName)
      \(lines.joined(separator: "\n"))
      }
      """
  }

  /// `init(decoder:)` and `_columnWidth`: reads the columns in order, each as the type
  /// aliased `_$name` in `types` (the `TableColumns` of a table, the `Columns` of a
  /// selection), so the initializer compiles wherever it is generated and costs nothing more
  /// than reading the columns; the width is a sum the compiler folds (no walk of
  /// `allColumns` for each row an outer join decodes).
  ///
  /// With `memberwise`, the values go straight to the struct's memberwise initializer. An
  /// initializer that assigns the properties one by one makes the optimizer build the value
  /// in a temporary and copy it out (Swift 6.3, from six fields: a retain and a release of
  /// every reference in the row, each row); the memberwise one writes the result in place.
  static func decodingMembers(
    access: String, properties: [TableProperty], types: String = "TableColumns",
    memberwise: Bool = false
  )
    -> String
  {
    func read(_ property: TableProperty) -> String {
      "decoder.decode(\(types)._$\(property.name).self)"
    }
    let body =
      memberwise
      ? "try self.init(\n"
        + properties.map { "\(backticked($0.name)): \(read($0))" }.joined(separator: ",\n")
        + ")"
      : properties.map { "self.\(backticked($0.name)) = try \(read($0))" }
        .joined(separator: "\n")
    let widths = properties.map { "\(types)._$\($0.name)._columnWidth" }
    return """
      \(access)init(decoder: inout HearthQuery.QueryRowDecoder) throws {
      \(body)
      }
      \(access)static var _columnWidth: Int { \(widths.joined(separator: " + ")) }
      """
  }

  /// Whether Swift gives `declaration` a memberwise initializer whose parameters are exactly
  /// `properties` (the columns) plus parameters with default values, so that a decoder can
  /// call it with the columns alone. Answers no whenever it cannot be sure: an initializer
  /// in the body (there is then no memberwise one), a stored property it cannot see through
  /// (`#if`, a macro expansion, an attribute that may be a property wrapper, `lazy`), a
  /// private one (the memberwise initializer would be private too), or another attribute on
  /// the struct (a macro that may add an initializer, a global actor).
  static func hasMemberwiseInitializer(_ declaration: StructDeclSyntax) -> Bool {
    let ownAttributes: Set<String> = [
      "Table", "HearthQuery.Table", "Selection", "HearthQuery.Selection",
    ]
    for attribute in declaration.attributes {
      guard let name = attribute.attributeName, ownAttributes.contains(name) else { return false }
    }
    for member in declaration.memberBlock.members {
      let decl = member.decl
      if decl.is(InitializerDeclSyntax.self) || decl.is(IfConfigDeclSyntax.self)
        || decl.is(MacroExpansionDeclSyntax.self)
      {
        return false
      }
      guard let variable = decl.as(VariableDeclSyntax.self),
        variable.bindings.contains(where: { !$0.isComputed }),
        !variable.modifiers.contains(where: { ["static", "class"].contains($0.name.text) })
      else { continue }
      let hiding: Set<String> = ["lazy", "private", "fileprivate"]
      if variable.modifiers.contains(where: { hiding.contains($0.name.text) }) { return false }
      for attribute in variable.attributes {
        guard let name = attribute.attributeName, ["Column", "Ephemeral"].contains(name) else {
          return false
        }
      }
    }
    return true
  }

  /// Whether the struct declares `static let all` or `static var all`.
  static func declaresAll(_ declaration: StructDeclSyntax) -> Bool {
    declaration.memberBlock.members.contains { member in
      guard let variable = member.decl.as(VariableDeclSyntax.self),
        variable.modifiers.contains(where: { $0.name.text == "static" })
      else { return false }
      return variable.bindings.contains {
        $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == "all"
      }
    }
  }

  /// `Draft`: the same columns with an optional primary key, an initializer with the
  /// struct's defaults, and an initializer from a full row.
  private static func draftDeclaration(
    access: String, typeName: String, tableName: String, isGeneric: Bool, schemaName: String?,
    properties: [TableProperty], hasDefaultScope: Bool
  ) -> String {
    let draftType = "\(typeName).Draft"
    var stored: [String] = []
    var parameters: [String] = []
    var assignments: [String] = []
    var fromRow: [String] = []
    for property in properties {
      let isFilledLater = property.isPrimaryKey || property.isLazyInitializable
      let type = isFilledLater && !property.isOptional ? optional(property.type) : property.type
      let name = backticked(property.name)
      stored.append("\(access)var \(name): \(type)")
      var defaultValue = ""
      if isFilledLater {
        defaultValue = " = nil"
      } else if let initializer = property.initializer {
        defaultValue = " = " + qualifySelf(initializer, typeName: typeName)
      } else if property.isOptional {
        defaultValue = " = nil"
      }
      parameters.append("\(name): \(type)\(defaultValue)")
      assignments.append("self.\(name) = \(name)")
      fromRow.append("self.\(name) = row.\(name)")
    }
    let draftProperties = properties.map { property -> TableProperty in
      var draft = property
      if (property.isPrimaryKey || property.isLazyInitializable) && !property.isOptional {
        draft.type = optional(property.type)
        draft.representation = property.representation.map(optional)
      }
      draft.isPrimaryKey = false
      return draft
    }
    return """
      \(access)struct Draft: HearthQuery.Table, HearthQuery._TableDraft {
      /// A draft has no draft of its own.
      \(access)typealias Draft = Never
      \(stored.joined(separator: "\n"))
      \(access)init(\(parameters.joined(separator: ", "))) {
      \(assignments.joined(separator: "\n"))
      }
      /// A draft holding every value of `row`.
      \(access)init(_ row: \(typeName)) {
      \(fromRow.joined(separator: "\n"))
      }
      @dynamicMemberLookup \(tableColumnsDeclaration(access: access, typeName: draftType, properties: draftProperties, primaryKey: nil))
      \(columnsProperty(access: access, isGeneric: isGeneric))
      \(access)static var tableName: String { \(stringLiteral(tableName)) }
      \(schemaName.map { "\(access)static var schemaName: String? { \(stringLiteral($0)) }" } ?? "")
      \(hasDefaultScope ? "\(access)static var all: HearthQuery.Select<\(draftType), \(draftType), ()> { HearthQuery._draftScope(of: \(typeName).self, for: \(draftType).self) }" : "")
      \(decodingMembers(access: access, properties: draftProperties))
      }
      """
  }

  /// `columns`: stored once, or, in a generic type (which cannot store a static), made on
  /// each use.
  static func columnsProperty(access: String, isGeneric: Bool) -> String {
    isGeneric
      ? "\(access)static var columns: TableColumns { TableColumns() }"
      : "\(access)static let columns = TableColumns()"
  }

  private static func optional(_ type: String) -> String {
    type.contains(where: { " &->".contains($0) }) ? "(\(type))?" : "\(type)?"
  }

  /// Default values move into `Draft`, where `Self` would mean the draft: name the table.
  static func qualifySelf(_ expression: ExprSyntax, typeName: String) -> String {
    let rewritten = SelfRewriter(typeName: typeName).rewrite(expression)
    return rewritten.trimmedDescription
  }

  static func stringLiteral(_ text: String) -> String {
    "\""
      + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
        of: "\"", with: "\\\"") + "\""
  }

  static func backticked(_ name: String) -> String {
    let keywords: Set<String> = [
      "default", "where", "in", "is", "as", "case", "class", "func", "let", "var", "return",
      "static", "struct", "switch", "self", "Self", "protocol", "operator", "import", "init",
      "repeat", "while", "for", "if", "else", "guard", "do", "catch", "throw", "try", "enum",
      "extension", "internal", "private", "public", "fileprivate", "subscript", "typealias",
      "associatedtype", "inout", "nil", "true", "false", "super", "deinit", "break", "continue",
      "fallthrough", "defer",
    ]
    return keywords.contains(name) ? "`\(name)`" : name
  }
}

/// Replaces `Self` in an expression with the table's type name.
private final class SelfRewriter: SyntaxRewriter {
  let typeName: String
  init(typeName: String) { self.typeName = typeName }

  override func visit(_ token: TokenSyntax) -> TokenSyntax {
    if token.tokenKind == .keyword(.Self) {
      return token.with(\.tokenKind, .identifier(typeName))
    }
    return token
  }
}

extension DeclGroupSyntax {
  var kindName: String {
    switch self.kind {
    case .classDecl: return "a class"
    case .enumDecl: return "an enum"
    case .structDecl: return "a struct"
    case .actorDecl: return "an actor"
    case .protocolDecl: return "a protocol"
    case .extensionDecl: return "an extension"
    default: return "this declaration"
    }
  }

  var introducerToken: TokenSyntax {
    if let decl = self.as(ClassDeclSyntax.self) { return decl.classKeyword }
    if let decl = self.as(EnumDeclSyntax.self) { return decl.enumKeyword }
    if let decl = self.as(StructDeclSyntax.self) { return decl.structKeyword }
    if let decl = self.as(ActorDeclSyntax.self) { return decl.actorKeyword }
    if let decl = self.as(ProtocolDeclSyntax.self) { return decl.protocolKeyword }
    if let decl = self.as(ExtensionDeclSyntax.self) { return decl.extensionKeyword }
    return firstToken(viewMode: .sourceAccurate)!
  }
}

extension StructDeclSyntax {
  var accessPrefix: String { modifiers.accessPrefix }
}

extension MacroExpansionContext {
  /// The access of members written in an extension of the type: as declared, except inside a
  /// private or fileprivate type, where an extension's members would otherwise be internal
  /// and name a type they cannot (`private struct Metadata { @Selection struct ID {…} }`).
  func extensionAccess(_ declared: String) -> String {
    let isInsidePrivateType = lexicalContext.contains { context in
      let modifiers =
        context.as(StructDeclSyntax.self)?.modifiers ?? context.as(EnumDeclSyntax.self)?.modifiers
        ?? context.as(ClassDeclSyntax.self)?.modifiers
        ?? context.as(ExtensionDeclSyntax.self)?.modifiers
      return modifiers?.contains { ["private", "fileprivate"].contains($0.name.text) } ?? false
    }
    return isInsidePrivateType ? "fileprivate " : declared
  }
}

extension DeclModifierListSyntax {
  /// `"public "` for a public or package type (so the generated members can satisfy
  /// public requirements), else nothing.
  var accessPrefix: String {
    for modifier in self {
      switch modifier.name.text {
      case "public", "open": return "public "
      case "package": return "package "
      default: continue
      }
    }
    return ""
  }
}

extension String {
  func replacingOccurrences(of target: String, with replacement: String) -> String {
    guard contains(target) else { return self }
    return split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
  }
}
