import SwiftDiagnostics
import SwiftSyntax

/// One stored property of a `@Table` (or `@Selection`) struct, as the macro understands it.
struct TableProperty {
  var name: String
  var columnName: String
  /// The Swift type of the property, declared or inferred from a literal.
  var type: String
  /// The `@Column(as:)` representation, when there is one.
  var representation: String?
  var isPrimaryKey: Bool
  var explicitPrimaryKey: Bool
  var initializer: ExprSyntax?
  var isLet: Bool
  var node: Syntax
  /// `@Column(generated: .virtual)` or `.stored`: the database computes it; rows read it,
  /// inserts and updates leave it out, and `Draft` has no such field.
  var isGenerated = false
  /// `@Column(lazyInitializable: true)`: optional in `Draft`, so the database (a default) or
  /// the code can fill it in later.
  var isLazyInitializable = false

  /// The type stored in the database: the representation, or the property's own type.
  var columnValueType: String { representation ?? type }

  var isOptional: Bool { type.hasSuffix("?") || type.hasPrefix("Optional<") }

  /// Reads the stored properties of `declaration`, reporting each form it cannot handle.
  /// `macro` names the attribute in the diagnostics.
  static func parse(
    _ declaration: StructDeclSyntax, macro: String = "@Table", diagnostics: inout [Diagnostic]
  ) -> [TableProperty] {
    var properties: [TableProperty] = []
    for member in declaration.memberBlock.members {
      guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
      if variable.modifiers.contains(where: {
        ["static", "class", "lazy"].contains($0.name.text)
      }) {
        continue
      }
      if variable.attributes.contains(where: { $0.attributeName == "Ephemeral" }) {
        for binding in variable.bindings where binding.initializer == nil && !binding.isComputed {
          diagnostics.append(
            .error(
              binding, "ephemeralWithoutDefault",
              "an @Ephemeral property needs a default value: rows are decoded without it"))
        }
        continue
      }
      let storedBindings = variable.bindings.filter { !$0.isComputed }
      guard !storedBindings.isEmpty else { continue }
      guard variable.bindings.count == 1, let binding = storedBindings.first else {
        diagnostics.append(
          .error(
            variable, "oneBindingPerLine",
            "\(macro) needs one stored property per declaration: split this line"))
        continue
      }
      guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else {
        diagnostics.append(
          .error(binding.pattern, "unsupportedPattern", "\(macro) supports only simple names here"))
        continue
      }
      let name = identifier.identifier.text.trimmingCharacters(in: ["`"])
      let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
      if isLet, binding.initializer != nil {
        diagnostics.append(
          .error(
            variable.bindingSpecifier, "letWithDefault",
            "a 'let' with a default value cannot be read from a row; use 'var', or mark it @Ephemeral"
          ))
        continue
      }
      let column = ColumnArguments(variable.attributes, diagnostics: &diagnostics)
      let type: String
      if let annotation = binding.typeAnnotation?.type {
        type = annotation.trimmedDescription
      } else if let initializer = binding.initializer?.value,
        let inferred = inferType(of: initializer)
      {
        type = inferred
      } else {
        diagnostics.append(
          .error(
            binding, "missingType",
            "\(macro) cannot infer the type of '\(name)': add a type annotation",
            fixIts: [annotationFixIt(binding)]))
        continue
      }
      properties.append(
        TableProperty(
          name: name, columnName: column.name ?? name, type: type,
          representation: column.representation, isPrimaryKey: column.primaryKey,
          explicitPrimaryKey: column.primaryKey, initializer: binding.initializer?.value,
          isLet: isLet, node: Syntax(variable), isGenerated: column.isGenerated,
          isLazyInitializable: column.isLazyInitializable
            ?? (lazyInitializableByDefault && binding.initializer == nil)))
    }
    return properties
  }

  /// Whether a property without a default value is lazily initialized unless its
  /// `@Column(lazyInitializable:)` says otherwise: the package trait
  /// `LazyInitializableByDefault`.
  static var lazyInitializableByDefault: Bool {
    #if LazyInitializableByDefault
      true
    #else
      false
    #endif
  }

  /// The type of a default value, as Swift infers it, where the syntax alone says it: a
  /// literal (`""`, `0`, `0x1F`, `-2`, `0.5`, `true`), or a call of a type's initializer
  /// (`Date(timeIntervalSince1970: 0)`, `UUID()`, `Status()`, `Foundation.Date()`,
  /// `Set<String>()`, `[Int]()`), force-unwrapped or not (`URL(string: "…")!`). Nil for the
  /// rest (`Theme.blue`, `.init()`, `makeDate()`): those need an annotation, as they do for
  /// the reference's macros.
  static func inferType(of expression: ExprSyntax) -> String? {
    if expression.is(StringLiteralExprSyntax.self) { return "String" }
    if expression.is(IntegerLiteralExprSyntax.self) { return "Int" }
    if expression.is(FloatLiteralExprSyntax.self) { return "Double" }
    if expression.is(BooleanLiteralExprSyntax.self) { return "Bool" }
    if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
      return inferType(of: prefix.expression)
    }
    if let forced = expression.as(ForceUnwrapExprSyntax.self),
      let call = forced.expression.as(FunctionCallExprSyntax.self)
    {
      return typeName(call.calledExpression)
    }
    if let call = expression.as(FunctionCallExprSyntax.self) {
      return typeName(call.calledExpression)
    }
    return nil
  }

  /// The type an expression names when it is called as an initializer: a capitalized name,
  /// a path of them, a generic specialization, or an array or dictionary type.
  static func typeName(_ expression: ExprSyntax) -> String? {
    if let reference = expression.as(DeclReferenceExprSyntax.self) {
      return reference.baseName.text.first?.isUppercase == true ? reference.trimmedDescription : nil
    }
    if let member = expression.as(MemberAccessExprSyntax.self), let base = member.base {
      guard member.declName.baseName.text.first?.isUppercase == true, typeName(base) != nil
      else { return nil }
      return member.trimmedDescription
    }
    if let generic = expression.as(GenericSpecializationExprSyntax.self) {
      return typeName(generic.expression) != nil ? generic.trimmedDescription : nil
    }
    if let array = expression.as(ArrayExprSyntax.self), array.elements.count == 1,
      let element = array.elements.first, typeName(element.expression) != nil
    {
      return array.trimmedDescription
    }
    if let dictionary = expression.as(DictionaryExprSyntax.self),
      case .elements(let elements) = dictionary.content, elements.count == 1,
      let element = elements.first, typeName(element.key) != nil, typeName(element.value) != nil
    {
      return dictionary.trimmedDescription
    }
    return nil
  }

  /// Adds `: <#Type#>` after the property's name.
  static func annotationFixIt(_ binding: PatternBindingSyntax) -> FixIt {
    let annotated =
      binding
      .with(\.pattern, binding.pattern.with(\.trailingTrivia, []))
      .with(
        \.typeAnnotation,
        TypeAnnotationSyntax(
          colon: .colonToken(trailingTrivia: .space),
          type: IdentifierTypeSyntax(name: .identifier("<#Type#>"), trailingTrivia: .space)))
    return FixIt(
      message: MacroMessage(message: "add a type annotation", id: "addType", severity: .error),
      changes: [.replace(oldNode: Syntax(binding), newNode: Syntax(annotated))])
  }
}

/// The arguments of a property's `@Column(…)` attribute.
struct ColumnArguments {
  var name: String?
  var representation: String?
  var primaryKey = false
  var isGenerated = false
  /// `@Column(lazyInitializable:)`, nil where it is not written.
  var isLazyInitializable: Bool?

  init(_ attributes: AttributeListSyntax, diagnostics: inout [Diagnostic]) {
    for element in attributes {
      guard let attribute = element.as(AttributeSyntax.self),
        attribute.attributeName.trimmedDescription == "Column",
        let arguments = attribute.arguments?.as(LabeledExprListSyntax.self)
      else { continue }
      for argument in arguments {
        switch argument.label?.text {
        case nil:
          guard let literal = argument.expression.as(StringLiteralExprSyntax.self),
            let text = literal.representedLiteralValue, !text.isEmpty
          else {
            diagnostics.append(
              .error(argument, "columnName", "the column name must be a non-empty string literal"))
            continue
          }
          name = text
        case "as":
          let text = argument.expression.trimmedDescription
          guard text.hasSuffix(".self") else {
            diagnostics.append(
              .error(argument, "columnAs", "write the representation as 'SomeType.self'"))
            continue
          }
          representation = String(text.dropLast(5))
        case "primaryKey":
          primaryKey = argument.expression.trimmedDescription == "true"
        case "generated":
          isGenerated = argument.expression.trimmedDescription != "nil"
        case "lazyInitializable":
          isLazyInitializable = argument.expression.trimmedDescription == "true"
        default:
          diagnostics.append(.error(argument, "columnArgument", "unknown @Column argument"))
        }
      }
    }
  }
}

extension PatternBindingSyntax {
  /// True for `var x: T { … }` and `var x: T { get … }`; false for stored properties, even
  /// with `willSet`/`didSet`.
  var isComputed: Bool {
    guard let accessors = accessorBlock?.accessors else { return false }
    switch accessors {
    case .getter: return true
    case .accessors(let list):
      return list.contains {
        ["get", "_read", "unsafeAddress"].contains($0.accessorSpecifier.text)
      }
    @unknown default:
      return false
    }
  }
}

extension AttributeListSyntax.Element {
  var attributeName: String? {
    self.as(AttributeSyntax.self)?.attributeName.trimmedDescription
  }
}

extension String {
  func trimmingCharacters(in set: Set<Character>) -> String {
    String(drop(while: set.contains).reversed().drop(while: set.contains).reversed())
  }
}
