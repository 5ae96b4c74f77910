// The compiler plugin's entry point. `SwiftCompilerPlugin` (which normally supplies `@main`)
// is not in the toolchain; its message handling module is, with the standard-I/O connection
// and the JSON coder that read what the compiler sends.
@_spi(PluginMessage) import SwiftCompilerPluginMessageHandling
import SwiftSyntaxMacros

struct HearthQueryMacrosProvider: PluginProvider {
  func resolveMacro(moduleName: String, typeName: String) throws -> any Macro.Type {
    switch typeName {
    case "TableMacro": return TableMacro.self
    case "SelectionMacro": return SelectionMacro.self
    case "CasePathableMacro": return CasePathableMacro.self
    case "ColumnMacro": return ColumnMacro.self
    case "EphemeralMacro": return EphemeralMacro.self
    case "SQLMacro": return SQLMacro.self
    case "BindMacro": return BindMacro.self
    case "BindRepresentationMacro": return BindRepresentationMacro.self
    case "DatabaseFunctionMacro": return DatabaseFunctionMacro.self
    default: throw UnknownMacro(name: typeName)
    }
  }
}

struct UnknownMacro: Error, CustomStringConvertible {
  let name: String
  var description: String { "HearthQueryMacros has no macro named \(name)" }
}

@main
enum HearthQueryMacrosPlugin {
  static func main() throws {
    try CompilerPluginMessageListener(
      connection: StandardIOMessageConnection(), provider: HearthQueryMacrosProvider()
    ).main()
  }
}
