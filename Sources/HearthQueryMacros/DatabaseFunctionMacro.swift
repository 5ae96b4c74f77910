import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@DatabaseFunction` on a Swift function declares a SQL function that calls it: a peer
/// `$name` value to call in queries (`$exclaim(\.title)`) and to add to a connection
/// (`db.add(function: $exclaim)`).
///
/// A function of one `some Sequence<Element>` parameter is an aggregate: it is handed every
/// row's `Element` (a tuple for several arguments) at the end of each group.
public enum DatabaseFunctionMacro: PeerMacro {
  public static func expansion(
    of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    if let property = declaration.as(VariableDeclSyntax.self) {
      return try propertyExpansion(of: node, property, in: context)
    }
    guard let function = declaration.as(FunctionDeclSyntax.self) else {
      throw DiagnosticsError(diagnostics: [
        .error(
          node, "databaseFunctionTarget",
          "@DatabaseFunction applies to a function or a computed property")
      ])
    }
    let arguments = node.arguments?.as(LabeledExprListSyntax.self) ?? []
    let swiftName = function.name.text.replacingOccurrences(of: "`", with: "")
    var sqlName = swiftName
    var isDeterministic = "false"
    var representation: (inputs: [String]?, output: String)?
    for argument in arguments {
      switch argument.label?.text {
      case nil:
        guard let literal = argument.expression.as(StringLiteralExprSyntax.self),
          let name = literal.representedLiteralValue, !name.isEmpty
        else {
          throw DiagnosticsError(diagnostics: [
            .error(argument, "functionName", "the function's name must be a string literal")
          ])
        }
        sqlName = name
      case "isDeterministic":
        isDeterministic = argument.expression.trimmedDescription
      case "as":
        representation = try representationTypes(argument.expression)
      default:
        break
      }
    }

    let parameters = function.signature.parameterClause.parameters.map(Parameter.init)
    let returnType = function.signature.returnClause?.type.trimmedDescription ?? "Void"
    let isVoid = ["Void", "()"].contains(returnType)
    let effects = function.signature.effectSpecifiers?.throwsClause != nil ? " throws" : ""
    let typeName = context.makeUniqueName(swiftName).text
    let access = function.modifiers.contains { $0.name.text == "public" } ? "public " : ""
    let isStatic = function.modifiers.contains { ["static", "class"].contains($0.name.text) }
    let staticKeyword = isStatic ? "static " : ""

    if parameters.count == 1, let element = sequenceElement(parameters[0].type) {
      return try aggregate(
        function: function, swiftName: swiftName, sqlName: sqlName, element: element,
        parameter: parameters[0], representation: representation, returnType: returnType,
        effects: effects, typeName: typeName, access: access, staticKeyword: staticKeyword,
        isDeterministic: isDeterministic)
    }

    let inputTypes = representation?.inputs ?? parameters.map { $0.type }
    guard inputTypes.count == parameters.count else {
      throw DiagnosticsError(diagnostics: [
        .error(node, "representationCount", "`as:` must give a type for each parameter")
      ])
    }
    let outputType = representation?.output ?? (isVoid ? "Void" : returnType)
    let swiftTypes = parameters.map(\.type)
    let callParameters = zip(parameters, inputTypes).map { parameter, type in
      "\(declared(parameter.label, parameter.name)): some HearthQuery.QueryExpression<\(type)>"
        + (parameter.defaultValue.map { " = \(expressionDefault($0, type: type))" } ?? "")
    }
    let interpolations = parameters.map { "\\(\($0.name))" }.joined(separator: ", ")
    let decodes = zip(parameters, inputTypes).map { parameter, type in
      "let \(parameter.name) = try decoder._decodeValue((\(type)).self).queryOutput"
    }
    let call =
      (effects.isEmpty ? "" : "try ")
      + "self.body(\(parameters.map(\.name).joined(separator: ", ")))"
    let result =
      isVoid
      ? "\(call)\nreturn HearthQuery.QueryBinding(storage: .null)"
      : "return (\(outputType))(queryOutput: \(call)).queryBinding"
    let widths =
      inputTypes.isEmpty
      ? "0" : inputTypes.map { "HearthQuery._columnWidth((\($0)).self)" }.joined(separator: " + ")
    return [
      """
      \(raw: access)nonisolated \(raw: staticKeyword)var $\(raw: swiftName): \(raw: typeName) {
        \(raw: typeName)(\(raw: function.name.text))
      }
      """,
      """
      \(raw: access)nonisolated struct \(raw: typeName): HearthQuery.ScalarDatabaseFunction {
        \(raw: access)typealias Input = (\(raw: inputTypes.joined(separator: ", ")))
        \(raw: access)typealias Output = \(raw: outputType)
        \(raw: access)let name = \(raw: TableMacro.stringLiteral(sqlName))
        \(raw: access)var argumentCount: Int? { \(raw: widths) }
        \(raw: access)let isDeterministic = \(raw: isDeterministic)
        \(raw: access)let body: (\(raw: swiftTypes.joined(separator: ", ")))\(raw: effects) -> \(raw: returnType)
        \(raw: access)init(_ body: @escaping (\(raw: swiftTypes.joined(separator: ", ")))\(raw: effects) -> \(raw: returnType)) {
          self.body = body
        }
        \(raw: access)func callAsFunction(\(raw: callParameters.joined(separator: ", "))) -> some HearthQuery.QueryExpression<\(raw: outputType)> {
          HearthQuery.SQLQueryExpression("\\(quote: self.name)(\(raw: interpolations))", as: \(raw: outputType).self)
        }
        \(raw: access)func invoke(_ decoder: inout some HearthQuery.QueryDecoder) throws -> HearthQuery.QueryBinding {
          \(raw: decodes.joined(separator: "\n"))
          \(raw: result)
        }
      }
      """,
    ]
  }

  private static func aggregate(
    function: FunctionDeclSyntax, swiftName: String, sqlName: String, element: TypeSyntax,
    parameter: Parameter, representation: (inputs: [String]?, output: String)?,
    returnType: String, effects: String, typeName: String, access: String,
    staticKeyword: String, isDeterministic: String
  ) throws -> [DeclSyntax] {
    // The element: one type, or a tuple whose members are the arguments (labels kept).
    var members: [(label: String?, type: String)]
    if let tuple = element.as(TupleTypeSyntax.self), tuple.elements.count > 1 {
      members = tuple.elements.map { ($0.firstName?.text, $0.type.trimmedDescription) }
    } else {
      members = [(nil, element.trimmedDescription)]
    }
    var inputTypes = members.map(\.type)
    if let inputs = representation?.inputs {
      // `(any Sequence<(A, B)>) -> R`: the element's types.
      if inputs.count == 1, let represented = sequenceElement(inputs[0]) {
        if let tuple = represented.as(TupleTypeSyntax.self), tuple.elements.count > 1 {
          inputTypes = tuple.elements.map { $0.type.trimmedDescription }
        } else {
          inputTypes = [represented.trimmedDescription]
        }
      } else {
        inputTypes = inputs
      }
    }
    let outputType = representation?.output ?? returnType
    let elementType = element.trimmedDescription
    let names = members.indices.map { members.count == 1 ? parameter.name : "argument\($0)" }
    let callParameters = zip(names, inputTypes).enumerated().map { index, pair in
      let label = index == 0 ? parameter.label : (members[index].label ?? "_")
      return "\(declared(label, pair.0)): some HearthQuery.QueryExpression<\(pair.1)>"
    }
    let decodes = zip(names, inputTypes).map { name, type in
      "let \(name) = try decoder._decodeValue((\(type)).self).queryOutput"
    }
    let tupleValue =
      members.count == 1
      ? names[0]
      : "("
        + zip(members, names).map { ($0.label.map { "\($0): " } ?? "") + $1 }.joined(
          separator: ", ") + ")"
    let widths = inputTypes.map { "HearthQuery._columnWidth((\($0)).self)" }.joined(
      separator: " + ")
    return [
      """
      \(raw: access)nonisolated \(raw: staticKeyword)var $\(raw: swiftName): \(raw: typeName) {
        \(raw: typeName)(\(raw: function.name.text))
      }
      """,
      """
      \(raw: access)nonisolated struct \(raw: typeName): HearthQuery.AggregateDatabaseFunction {
        \(raw: access)typealias Input = (\(raw: inputTypes.joined(separator: ", ")))
        \(raw: access)typealias Element = \(raw: elementType)
        \(raw: access)typealias Output = \(raw: outputType)
        \(raw: access)let name = \(raw: TableMacro.stringLiteral(sqlName))
        \(raw: access)var argumentCount: Int? { \(raw: widths) }
        \(raw: access)let isDeterministic = \(raw: isDeterministic)
        \(raw: access)let body: ([\(raw: elementType)])\(raw: effects) -> \(raw: returnType)
        \(raw: access)init(_ body: @escaping ([\(raw: elementType)])\(raw: effects) -> \(raw: returnType)) {
          self.body = body
        }
        \(raw: access)func callAsFunction(\(raw: callParameters.joined(separator: ", ")), distinct isDistinct: Bool = false, filter: (some HearthQuery.QueryExpression<Bool>)? = Bool?.none) -> some HearthQuery.QueryExpression<\(raw: outputType)> {
          HearthQuery._aggregateCall(self.name, [\(raw: names.map { "\($0).queryFragment" }.joined(separator: ", "))], distinct: isDistinct, filter: filter?.queryFragment, as: \(raw: outputType).self)
        }
        \(raw: access)func step(_ decoder: inout some HearthQuery.QueryDecoder) throws -> Element {
          \(raw: decodes.joined(separator: "\n"))
          return \(raw: tupleValue)
        }
        \(raw: access)func invoke(_ arguments: some Sequence<Element>) throws -> HearthQuery.QueryBinding {
          (\(raw: outputType))(queryOutput: \(raw: effects.isEmpty ? "" : "try ")self.body(Array(arguments))).queryBinding
        }
      }
      """,
    ]
  }

  /// A computed property: a function of no arguments, and `$name` is itself the call
  /// (`Values($epoch)` is `SELECT "epoch"()`).
  private static func propertyExpansion(
    of node: AttributeSyntax, _ property: VariableDeclSyntax,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    guard property.bindings.count == 1, let binding = property.bindings.first,
      let identifier = binding.pattern.as(IdentifierPatternSyntax.self),
      let type = binding.typeAnnotation?.type.trimmedDescription, binding.isComputed
    else {
      throw DiagnosticsError(diagnostics: [
        .error(
          property, "databaseFunctionProperty",
          "@DatabaseFunction applies to a computed property with a declared type")
      ])
    }
    let swiftName = identifier.identifier.text.replacingOccurrences(of: "`", with: "")
    var sqlName = swiftName
    var isDeterministic = "false"
    var outputType = type
    for argument in node.arguments?.as(LabeledExprListSyntax.self) ?? [] {
      switch argument.label?.text {
      case nil:
        if let name = argument.expression.as(StringLiteralExprSyntax.self)?
          .representedLiteralValue, !name.isEmpty
        {
          sqlName = name
        }
      case "isDeterministic": isDeterministic = argument.expression.trimmedDescription
      case "as": outputType = try representationTypes(argument.expression).output
      default: break
      }
    }
    var throwing = ""
    if case .accessors(let accessors) = binding.accessorBlock?.accessors,
      accessors.contains(where: { $0.effectSpecifiers?.throwsClause != nil })
    {
      throwing = " throws"
    }
    let typeName = context.makeUniqueName(swiftName).text
    let access = property.modifiers.contains { $0.name.text == "public" } ? "public " : ""
    let isStatic = property.modifiers.contains { ["static", "class"].contains($0.name.text) }
    let read = (throwing.isEmpty ? "" : "try ") + identifier.identifier.text
    return [
      """
      \(raw: access)nonisolated \(raw: isStatic ? "static " : "")var $\(raw: swiftName): \(raw: typeName) {
        \(raw: typeName) { \(raw: read) }
      }
      """,
      """
      \(raw: access)nonisolated struct \(raw: typeName): HearthQuery.ScalarDatabaseFunction, HearthQuery.QueryExpression {
        \(raw: access)typealias Input = ()
        \(raw: access)typealias Output = \(raw: outputType)
        \(raw: access)typealias QueryValue = \(raw: outputType)
        \(raw: access)let name = \(raw: TableMacro.stringLiteral(sqlName))
        \(raw: access)var argumentCount: Int? { 0 }
        \(raw: access)let isDeterministic = \(raw: isDeterministic)
        \(raw: access)let body: ()\(raw: throwing) -> \(raw: type)
        \(raw: access)init(_ body: @escaping ()\(raw: throwing) -> \(raw: type)) {
          self.body = body
        }
        \(raw: access)var queryFragment: HearthQuery.QueryFragment { "\\(quote: self.name)()" }
        \(raw: access)func callAsFunction() -> some HearthQuery.QueryExpression<\(raw: outputType)> {
          HearthQuery.SQLQueryExpression(queryFragment, as: \(raw: outputType).self)
        }
        \(raw: access)func invoke(_ decoder: inout some HearthQuery.QueryDecoder) throws -> HearthQuery.QueryBinding {
          (\(raw: outputType))(queryOutput: \(raw: throwing.isEmpty ? "" : "try ")self.body()).queryBinding
        }
      }
      """,
    ]
  }

  /// The element of `some Sequence<Element>`, or nil for any other type.
  private static func sequenceElement(_ type: String) -> TypeSyntax? {
    let parsed = TypeSyntax(stringLiteral: type)
    guard let opaque = parsed.as(SomeOrAnyTypeSyntax.self),
      let base = opaque.constraint.as(IdentifierTypeSyntax.self), base.name.text == "Sequence",
      let argument = base.genericArgumentClause?.arguments.first
    else { return nil }
    return TypeSyntax(stringLiteral: argument.argument.trimmedDescription)
  }

  /// `as: ((A, B) -> R).self`: the types the arguments and result are represented by.
  private static func representationTypes(_ expression: ExprSyntax) throws -> (
    inputs: [String]?, output: String
  ) {
    var text = expression.trimmedDescription
    if text.hasSuffix(".self") { text = String(text.dropLast(5)) }
    var type = TypeSyntax(stringLiteral: text)
    while let tuple = type.as(TupleTypeSyntax.self), tuple.elements.count == 1,
      let only = tuple.elements.first
    {
      type = only.type
    }
    // `as: R.self`: the result's representation alone.
    guard let function = type.as(FunctionTypeSyntax.self) else {
      return (nil, type.trimmedDescription)
    }
    return (
      function.parameters.map { $0.type.trimmedDescription },
      function.returnClause.type.trimmedDescription
    )
  }

  /// `label name`, or the name alone where they are the same.
  private static func declared(_ label: String, _ name: String) -> String {
    label == name ? name : "\(label) \(name)"
  }

  /// A parameter's default as a default of its query expression: `nil` is the typed NULL.
  private static func expressionDefault(_ value: String, type: String) -> String {
    value == "nil" ? "(\(type)).none" : value
  }

  private struct Parameter {
    let label: String
    let name: String
    let type: String
    let defaultValue: String?

    init(_ syntax: FunctionParameterSyntax) {
      label = syntax.firstName.text
      name = (syntax.secondName ?? syntax.firstName).text
      type = syntax.type.trimmedDescription
      defaultValue = syntax.defaultValue?.value.trimmedDescription
    }
  }
}
