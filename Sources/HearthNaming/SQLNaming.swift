/// Table-name inflection and identifier quoting, shared by the `@Table` macro (at compile
/// time) and HearthQuery (at run time), so that both always agree.
public enum SQLNaming {
  /// The table name the reference derives from a type name: lower camel case, plural.
  ///
  /// `Reminder` → `reminders`, `RemindersList` → `remindersLists`, `SyncUp` → `syncUps`,
  /// `Category` → `categories`, `URLBox` → `urlBoxes`.
  public static func tableName(forTypeName typeName: String) -> String {
    pluralize(lowerCamelCase(typeName))
  }

  /// `"Reminder"` → `"reminder"`, `"URLItem"` → `"urlItem"`.
  public static func lowerCamelCase(_ name: String) -> String {
    let characters = Array(name)
    var leadingUppercase = 0
    while leadingUppercase < characters.count, characters[leadingUppercase].isUppercase {
      leadingUppercase += 1
    }
    guard leadingUppercase > 0 else { return name }
    // In "URLItem" the "I" starts the next word: keep it.
    let lowered =
      leadingUppercase > 1 && leadingUppercase < characters.count
      ? leadingUppercase - 1 : leadingUppercase
    return characters[..<lowered].map { $0.lowercased() }.joined()
      + String(characters[lowered...])
  }

  /// English plural of the last word of a camel-case name.
  public static func pluralize(_ name: String) -> String {
    guard let last = name.last else { return name }
    let lower = name.lowercased()
    if last == "y", name.count > 1 {
      let beforeLast = lower[lower.index(lower.endIndex, offsetBy: -2)]
      if !"aeiou".contains(beforeLast) { return String(name.dropLast()) + "ies" }
    }
    for ending in ["s", "x", "z", "ch", "sh"] where lower.hasSuffix(ending) {
      return name + "es"
    }
    return name + "s"
  }

  /// `name` as a SQL identifier: in double quotes, inner double quotes doubled.
  public static func quote(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }
}

extension String {
  fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
    guard contains(target) else { return self }
    return split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
  }
}
