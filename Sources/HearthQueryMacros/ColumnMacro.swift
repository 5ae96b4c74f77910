import SwiftSyntax
import SwiftSyntaxMacros

/// `@Column(…)` only marks a property; `@Table` reads its arguments.
public enum ColumnMacro: PeerMacro {
  public static func expansion(
    of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] { [] }
}

/// `@Ephemeral` marks a stored property that is not a column; `@Table` skips it.
public enum EphemeralMacro: PeerMacro {
  public static func expansion(
    of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] { [] }
}
