import Foundation

/// The user's home: `$HOME` when set, as every Unix program reads it (a user may point it
/// elsewhere for a test or a second setup), else the password database's entry.
public func homeDirectory(
  _ environment: [String: String] = ProcessInfo.processInfo.environment
) -> String {
  if let home = environment["HOME"], !home.isEmpty { return home }
  return NSHomeDirectory()
}
