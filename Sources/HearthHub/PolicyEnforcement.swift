import HearthSQLite

extension PluginPolicy {
  /// A statement that failed while a policy was the authorizer: refused by the policy, or by
  /// SQLite on its own.
  struct Failure: Error {
    var error: DatabaseError
    /// The policy's reason, when the policy refused.
    var refusal: String?

    /// Whether it is an authorization refusal (the policy's, or SQLite's own `SQLITE_AUTH`;
    /// a refused function surfaces as a plain SQLITE_ERROR, "not authorized to use…").
    var isRefused: Bool { refusal != nil || error.resultCode == .SQLITE_AUTH }
    var reason: String { refusal ?? error.message ?? "\(error)" }
  }

  /// Runs `body` with this policy as `db`'s authorizer (and no authorizer after): the one
  /// place a plugin's statements, and its migrations, are put under its policy. A failing
  /// statement throws `Failure`.
  func enforce<T>(on db: Database, _ body: () throws -> T) throws -> T {
    var refusal: String?
    db.setAuthorizer(
      { action in
        if let reason = self.refusal(of: action) {
          refusal = reason
          return false
        }
        return true
      }, scope: scope)
    defer { db.setAuthorizer(nil) }
    do {
      return try body()
    } catch let error as DatabaseError {
      throw Failure(error: error, refusal: refusal)
    }
  }
}
