import Foundation
import HearthData

/// Handles a person can type for rows keyed by UUIDs, as git abbreviates commits: commands
/// show the first `length` characters of an id, and accept any prefix of at least
/// `minimumLength` characters (or the whole id) that names one row.
///
/// ```swift
/// let id = try ShortID.resolve(input.positional(0, name: "ID"), what: "reminder",
///                              in: Reminder.tableName, db)
/// ```
public enum ShortID {
  /// How many characters commands show.
  public static let length = 8
  /// The shortest prefix accepted.
  public static let minimumLength = 4

  /// The handle shown for `id`: its first `length` characters, lowercase.
  public static func of(_ id: UUID) -> String {
    String(id.uuidString.lowercased().prefix(length))
  }

  /// A typed handle as a `LIKE` pattern (`"4a9f%"`), or a usage error saying what a handle
  /// is. Hyphens may be typed or left out only where the id has them.
  public static func pattern(_ text: String, what: String) throws -> String {
    let handle = text.lowercased()
    guard handle.count >= minimumLength, handle.count <= 36,
      handle.allSatisfy({ $0.isHexDigit || $0 == "-" })
    else {
      throw CommandError.usage(
        "'\(text)' is not a \(what) id: type at least \(minimumLength) of the characters "
          + "commands show (e.g. 4a9f)")
    }
    return handle + "%"
  }

  /// The one id a typed handle names, among those `candidates` finds for its pattern (at
  /// most two are needed). Throws not-found for none, a usage error for several.
  public static func resolve<ID>(
    _ text: String, what: String, candidates: (String) throws -> [ID]
  ) throws -> ID {
    let found = try candidates(try pattern(text, what: what))
    guard let first = found.first else {
      throw CommandError.notFound("no \(what) \(text)")
    }
    guard found.count == 1 else {
      throw CommandError.usage("'\(text)' names more than one \(what); type more of its id")
    }
    return first
  }

  /// The one id of `table` (its UUID column `column`) a typed handle names.
  public static func resolve(
    _ text: String, what: String, in table: String, column: String = "id", _ db: Database
  ) throws -> UUID {
    try resolve(text, what: what) { pattern in
      try UUID.fetchAll(
        db,
        sql: "SELECT \(quoteIdentifier(column)) FROM \(quoteIdentifier(table)) "
          + "WHERE \(quoteIdentifier(column)) LIKE ? LIMIT 2",
        arguments: [pattern])
    }
  }
}
