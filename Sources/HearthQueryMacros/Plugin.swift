import Foundation
// The compiler plugin's entry point. `SwiftCompilerPlugin` (which normally supplies `@main`)
// is not in the toolchain, so this file answers the compiler's messages itself, over
// stdin/stdout, each framed as an 8-byte little-endian length followed by JSON.
@_spi(PluginMessage) import SwiftCompilerPluginMessageHandling
import SwiftSyntaxMacros

struct HearthQueryMacrosProvider: PluginProvider {
  func resolveMacro(moduleName: String, typeName: String) throws -> any Macro.Type {
    switch typeName {
    case "TableMacro": return TableMacro.self
    case "ColumnMacro": return ColumnMacro.self
    case "EphemeralMacro": return EphemeralMacro.self
    case "SQLMacro": return SQLMacro.self
    case "BindMacro": return BindMacro.self
    default: throw UnknownMacro(name: typeName)
    }
  }
}

struct UnknownMacro: Error, CustomStringConvertible {
  let name: String
  var description: String { "HearthQueryMacros has no macro named \(name)" }
}

struct StandardIOConnection: MessageConnection {
  func sendMessage<TX: Encodable>(_ message: TX) throws {
    let body = try JSONEncoder().encode(message)
    var length = UInt64(body.count).littleEndian
    FileHandle.standardOutput.write(withUnsafeBytes(of: &length) { Data($0) } + body)
  }

  func waitForNextMessage<RX: Decodable>(_ type: RX.Type) throws -> RX? {
    guard let header = try readExactly(8) else { return nil }
    let length = header.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }.littleEndian
    guard let body = try readExactly(Int(length)) else { return nil }
    return try JSONDecoder().decode(RX.self, from: body)
  }

  private func readExactly(_ count: Int) throws -> Data? {
    var data = Data()
    while data.count < count {
      guard let chunk = try FileHandle.standardInput.read(upToCount: count - data.count),
        !chunk.isEmpty
      else { return nil }
      data += chunk
    }
    return data
  }
}

@main
enum HearthQueryMacrosPlugin {
  static func main() throws {
    try CompilerPluginMessageListener(
      connection: StandardIOConnection(), provider: HearthQueryMacrosProvider()
    ).main()
  }
}
