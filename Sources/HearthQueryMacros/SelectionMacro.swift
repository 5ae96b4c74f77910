import HearthNaming
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
///
/// On an enum whose cases each hold one value: a group stored one nullable column per case
/// (see the extension below).
public enum SelectionMacro: MemberMacro, ExtensionMacro {
  static func properties(_ declaration: some DeclGroupSyntax) throws -> (
    typeName: String, access: String, properties: [TableProperty], hasMemberwiseInitializer: Bool
  ) {
    guard let structDecl = declaration.as(StructDeclSyntax.self) else {
      throw DiagnosticsError(diagnostics: [
        .error(
          declaration.introducerToken, "notAStruct",
          "@Selection applies to a struct or an enum, not \(declaration.kindName)")
      ])
    }
    var diagnostics: [Diagnostic] = []
    let properties = TableProperty.parse(structDecl, macro: "@Selection", diagnostics: &diagnostics)
    if properties.isEmpty, diagnostics.isEmpty {
      diagnostics.append(
        .error(structDecl.name, "noColumns", "@Selection needs at least one stored property"))
    }
    guard diagnostics.isEmpty else { throw DiagnosticsError(diagnostics: diagnostics) }
    return (
      structDecl.name.text, structDecl.accessPrefix, properties,
      TableMacro.hasMemberwiseInitializer(structDecl)
    )
  }

  public static func expansion(
    of node: AttributeSyntax,
    providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    // Diagnostics come from the extension role, once. Beside `@Table` (a view's row type),
    // `@Table` writes everything.
    if let enumDecl = declaration.as(EnumDeclSyntax.self) {
      guard let cases = try? cases(enumDecl) else { return [] }
      var members = [
        enumColumnsDeclaration(enumDecl, cases: cases),
        selectionAlias(access: enumDecl.modifiers.accessPrefix),
      ]
      members += ColumnCoding.coding(enumDecl, cases: cases, attribute: "Selection", in: context)
      // The reference writes `@Selection enum Kind` with its CasePaths trait on; without
      // `@CasePathable` beside it, the case paths a group's columns need are written here.
      if !declaration.hasAttribute("CasePathable") {
        members += try CasePathableMacro.expansion(
          of: node, providingMembersOf: declaration, conformingTo: protocols, in: context)
      }
      return members
    }
    guard !declaration.hasTableAttribute,
      let (typeName, access, properties, _) = try? properties(declaration)
    else { return [] }
    // A selection is a table too, as the reference's is: a common table expression's rows
    // (`With { … } query: { HighPriorityList.select(\.id) }`), named like a table's.
    let tableName = SQLNaming.tableName(forTypeName: typeName)
    let codingKeys =
      declaration.as(StructDeclSyntax.self).map {
        ColumnCoding.codingKeys($0, properties: properties, attribute: "Selection", in: context)
      } ?? []
    return [
      columnsDeclaration(typeName: typeName, access: access, properties: properties),
      selectionAlias(access: access),
      DeclSyntax(
        stringLiteral: TableMacro.tableColumnsDeclaration(
          access: access, typeName: typeName, properties: properties, primaryKey: nil)),
      "\(raw: access)static let columns = TableColumns()",
      "\(raw: access)static var tableName: String { \(raw: TableMacro.stringLiteral(tableName)) }",
    ] + codingKeys
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
    // A property with a default value (or an optional one, nil) may be left out, as in the
    // reference: `StampedTag.Columns(name: "car")` selects the default `createdAt`.
    let parameters = properties.map { property -> String in
      let parameter =
        "\(TableMacro.backticked(property.name)): some HearthQuery.QueryExpression<\(property.columnValueType)>"
      if let initializer = property.initializer {
        let value = TableMacro.qualifySelf(initializer, typeName: typeName)
        return parameter
          + " = HearthQuery._columnDefault(\(value), as: \(property.columnValueType).self)"
      }
      if property.isOptional {
        return parameter
          + " = HearthQuery._columnDefault(nil, as: \(property.columnValueType).self)"
      }
      return parameter
    }
    let fragments = properties.map {
      "HearthQuery._columnFragments(\(TableMacro.backticked($0.name)))"
    }
    lines.append(
      """
      \(access)init(\(parameters.joined(separator: ", "))) {
      _columnFragments = [\(fragments.joined(separator: ", "))].flatMap { $0 }
      }
      """)
    return groupColumns(access: access, attributes: "@dynamicMemberLookup ", lines: lines)
  }

  /// `Selection`, the reference's other name for `Columns` (`Image.Selection(caption: …)`).
  static func selectionAlias(access: String) -> DeclSyntax {
    "\(raw: access)typealias Selection = Columns"
  }

  /// `Columns` with its column expressions and the initializer `update` uses.
  private static func groupColumns(access: String, attributes: String = "", lines: [String])
    -> DeclSyntax
  {
    """
    \(raw: attributes)\(raw: access)struct Columns: HearthQuery._GroupColumns {
    \(raw: lines.joined(separator: "\n"))
    \(raw: access)let _columnFragments: [HearthQuery.QueryFragment]
    \(raw: access)var _assignedColumns: [Int] = []
    \(raw: access)init(_columnFragments: [HearthQuery.QueryFragment]) {
    self._columnFragments = _columnFragments
    }
    }
    """
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
    if let enumDecl = declaration.as(EnumDeclSyntax.self) {
      var extensions = [try enumExtension(enumDecl, type: type.trimmedDescription)]
      if !declaration.hasAttribute("CasePathable") {
        extensions += try CasePathableMacro.expansion(
          of: node, attachedTo: declaration, providingExtensionsOf: type,
          conformingTo: protocols, in: context)
      }
      return extensions
    }
    let (_, declaredAccess, properties, memberwise) = try properties(declaration)
    let access = context.extensionAccess(declaredAccess)
    let typeName = type.trimmedDescription
    // A property that is a group of its own (or a table) stands for its columns: the names
    // are flattened, and a property's index is that of its first column.
    let names = properties.map {
      "HearthQuery._columnNames(\(TableMacro.stringLiteral($0.columnName)), as: Columns._$\($0.name).self)"
    }
    let indexes = properties.map { property in
      """
      if keyPath == \\\(typeName).\(TableMacro.backticked(property.name)) { return offset }
      offset += HearthQuery._columnNames(\(TableMacro.stringLiteral(property.columnName)), as: Columns._$\(property.name).self).count
      """
    }
    let bindings = properties.map {
      "HearthQuery._groupBindings(value.\(TableMacro.backticked($0.name)), as: Columns._$\($0.name).self)"
    }
    let generated = properties.filter(\.isGenerated).map { TableMacro.stringLiteral($0.columnName) }
    let source = """
      extension \(typeName): HearthQuery.QueryRepresentable, HearthQuery._ColumnGroup, HearthQuery.Table, HearthQuery._SelectionValue {
      \(access)typealias QueryValue = \(typeName)
      \(TableMacro.decodingMembers(access: access, properties: properties, types: "Columns", memberwise: memberwise))
      \(access)static var _columnNames: [String] { [\(names.joined(separator: ", "))].flatMap { $0 } }
      \(access)static func _columnIndex(_ keyPath: PartialKeyPath<Self>) -> Int? {
      var offset = 0
      \(indexes.joined(separator: "\n"))
      return nil
      }
      \(access)static func _bindings(_ value: Self) -> [HearthQuery.QueryBinding] {
      [\(bindings.joined(separator: ", "))].flatMap { $0 }
      }
      \(generated.isEmpty ? "" : "\(access)static var _generatedColumns: [String] { [\(generated.joined(separator: ", "))] }")
      }
      """
    return [try ExtensionDeclSyntax(SyntaxNodeString(stringLiteral: source))]
  }
}

// MARK: - Enums

// An enum `@Selection` is stored one nullable column per case (single-table inheritance):
// a row's case is the one whose column is not NULL.
extension SelectionMacro {
  /// The cases, each holding one non-optional value, or every diagnostic they deserve.
  static func cases(_ declaration: EnumDeclSyntax, attribute: String = "@Selection") throws
    -> [EnumCase]
  {
    let cases = EnumCase.parse(declaration)
    var diagnostics: [Diagnostic] = []
    for enumCase in cases {
      diagnostics += enumCase.columnDiagnostics
      if enumCase.values.count != 1 {
        diagnostics.append(
          .error(
            enumCase.node, "caseValues",
            "each case of an enum \(attribute) holds exactly one value, stored in the case's column; '\(enumCase.name)' holds \(enumCase.values.count)"
          ))
      } else if enumCase.values[0].type.hasSuffix("?")
        || enumCase.values[0].type.hasPrefix("Optional<")
      {
        diagnostics.append(
          .error(
            enumCase.node, "optionalCaseValue",
            "'\(enumCase.name)' holds an optional: its NULL would read as another case; store a non-optional value"
          ))
      }
    }
    if cases.isEmpty {
      diagnostics.append(
        .error(declaration.name, "noCases", "an enum \(attribute) needs at least one case"))
    }
    guard diagnostics.isEmpty else { throw DiagnosticsError(diagnostics: diagnostics) }
    return cases
  }

  /// `Columns`: one static function per case, which sets that case's columns and NULLs the
  /// others' (`$0.kind = .link(url)`), and, through the case paths, one settable member per
  /// case (`$0.kind.note = #bind("Hi")`).
  static func enumColumnsDeclaration(_ declaration: EnumDeclSyntax, cases: [EnumCase])
    -> DeclSyntax
  {
    let access = declaration.modifiers.accessPrefix
    var lines = ["\(access)typealias QueryValue = \(declaration.name.text)"]
    for enumCase in cases {
      lines.append(
        "\(access)typealias _$\(enumCase.name) = \(enumCase.representation ?? enumCase.values[0].type)"
      )
    }
    for (index, enumCase) in cases.enumerated() {
      let label = enumCase.values[0].label ?? "_"
      lines.append(
        """
        \(access)static func \(TableMacro.backticked(enumCase.name))(\(label) value: some HearthQuery.QueryExpression<_$\(enumCase.name)>) -> Self {
        Self(_columnFragments: HearthQuery._caseFragments(QueryValue.self, case: \(index), value))
        }
        """)
    }
    return groupColumns(access: access, attributes: "@dynamicMemberLookup ", lines: lines)
  }

  /// The conformances, and a decoder that takes the case whose column is not NULL.
  static func enumExtension(
    _ declaration: EnumDeclSyntax, type: String,
    conformances: String = "HearthQuery.QueryRepresentable, HearthQuery._ColumnGroup",
    attribute: String = "@Selection"
  ) throws
    -> ExtensionDeclSyntax
  {
    let cases = try cases(declaration, attribute: attribute)
    let access = declaration.modifiers.accessPrefix
    let reads = cases.enumerated().map { index, enumCase in
      "let v\(index) = try decoder.decode(Optional<Columns._$\(enumCase.name)>.self)"
    }
    let choices = cases.enumerated().map { index, enumCase in
      "if let v\(index) { self = \(enumCase.construct(["v\(index)"])) }"
    }
    let caseColumns = cases.map {
      let name = TableMacro.stringLiteral($0.name)
      let column = TableMacro.stringLiteral($0.column)
      return "(\(name), HearthQuery._columnNames(\(column), as: Columns._$\($0.name).self))"
    }
    let widths = cases.map { "Columns._$\($0.name)._columnWidth" }
    let bindings = cases.enumerated().map { index, enumCase in
      """
      case \(enumCase.pattern(["value"])):
      return HearthQuery._caseBindings(Self.self, case: \(index), HearthQuery._groupBindings(value, as: Columns._$\(enumCase.name).self))
      """
    }
    let source = """
      extension \(type): \(conformances), HearthQuery._CaseGroup {
      \(access)init(decoder: inout HearthQuery.QueryRowDecoder) throws {
      \(reads.joined(separator: "\n"))
      \(choices.joined(separator: " else "))
      else { throw HearthQuery._noCaseError(Self.self) }
      }
      \(access)static var _columnWidth: Int { \(widths.joined(separator: " + ")) }
      \(access)static var _caseColumns: [(name: String, columns: [String])] { [\(caseColumns.joined(separator: ", "))] }
      \(access)static func _columnIndex(_ keyPath: PartialKeyPath<Self>) -> Int? { nil }
      \(access)static func _bindings(_ value: Self) -> [HearthQuery.QueryBinding] {
      switch value {
      \(bindings.joined(separator: "\n"))
      }
      }
      }
      """
    return try ExtensionDeclSyntax(SyntaxNodeString(stringLiteral: source))
  }
}

extension DeclGroupSyntax {
  /// Whether `@Table` is attached too.
  var hasTableAttribute: Bool { hasAttribute("Table") }

  /// Whether the declaration carries `@name` (or `@Module.name`).
  func hasAttribute(_ name: String) -> Bool {
    attributes.contains {
      let attribute = $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription
      return attribute == name || attribute?.hasSuffix("." + name) == true
    }
  }
}
