import HearthQuery
import Testing

/// Checks the SQL a statement renders (and its bound values), then hands it back so the
/// test can run it on a real database.
@discardableResult
func expectSQL<S: Statement>(
  _ statement: S, _ sql: String, bindings: [QueryBinding]? = nil,
  sourceLocation: SourceLocation = #_sourceLocation
) -> S {
  #expect(statement.query.sql == sql, sourceLocation: sourceLocation)
  if let bindings {
    #expect(statement.query.bindings == bindings, sourceLocation: sourceLocation)
  }
  return statement
}

/// Checks the SQL of an expression.
func expectSQL(
  _ expression: some QueryExpression, _ sql: String, bindings: [QueryBinding]? = nil,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  #expect(expression.queryFragment.sql == sql, sourceLocation: sourceLocation)
  if let bindings {
    #expect(expression.queryFragment.bindings == bindings, sourceLocation: sourceLocation)
  }
}
