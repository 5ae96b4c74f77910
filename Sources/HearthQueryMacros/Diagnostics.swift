import SwiftDiagnostics
import SwiftSyntax

/// The macros' diagnostics: each says what is wrong and what to do.
struct MacroMessage: DiagnosticMessage, FixItMessage {
  let message: String
  let id: String
  let severity: DiagnosticSeverity

  var diagnosticID: MessageID { MessageID(domain: "HearthQuery", id: id) }
  var fixItID: MessageID { diagnosticID }

  static func error(_ id: String, _ message: String) -> MacroMessage {
    MacroMessage(message: message, id: id, severity: .error)
  }
}

extension Diagnostic {
  static func error(
    _ node: some SyntaxProtocol, _ id: String, _ message: String, fixIts: [FixIt] = []
  ) -> Diagnostic {
    Diagnostic(node: Syntax(node), message: MacroMessage.error(id, message), fixIts: fixIts)
  }
}
