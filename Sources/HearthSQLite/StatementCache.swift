/// A connection's prepared statements, by SQL text and authorizer scope (a statement is
/// reused only under the policy it was authorized under), with the last one found kept
/// aside: a bulk write runs one statement again and again and finds it without hashing its
/// SQL each time. Emptying it forgets that one too.
struct StatementCache {
  struct Key: Hashable {
    var scope: String
    var sql: String
  }

  private var statements: [Key: PreparedStatement] = [:]
  private var last: (key: Key, statement: PreparedStatement)?

  var count: Int { statements.count }

  subscript(key: Key) -> PreparedStatement? {
    mutating get {
      if let last, last.key == key { return last.statement }
      guard let found = statements[key] else { return nil }
      last = (key, found)
      return found
    }
    set {
      statements[key] = newValue
      last = nil
    }
  }

  mutating func removeAll() {
    statements.removeAll()
    last = nil
  }
}
