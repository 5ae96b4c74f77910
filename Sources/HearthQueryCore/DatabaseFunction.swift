import HearthNaming
import HearthSQLite

/// A SQL function written in Swift, typed: `@DatabaseFunction` declares one from a Swift
/// function, as `$name`.
///
/// ```swift
/// @DatabaseFunction
/// func exclaim(_ text: String) -> String { text + "!" }
///
/// db.add(function: $exclaim)
/// let titles = try Reminder.select { $exclaim($0.title) }.fetchAll(db)
/// ```
///
/// A function runs in the process whose connection it was added to. A feature process's
/// reads run on its own connection, so its functions work there; its writes run in the hub,
/// which has only SQLite's and Hearth's functions: a write that calls one fails with SQLite's
/// "no such function".
public protocol DatabaseFunction<Input, Output>: SendableMetatype {
  /// The types of the arguments, as their query representations.
  associatedtype Input
  /// The type of the result, as its query representation.
  associatedtype Output
  /// The function's name in SQL.
  var name: String { get }
  /// How many arguments SQL passes (a table argument passes each of its columns); nil for any.
  var argumentCount: Int? { get }
  /// Whether equal arguments always give an equal result, which lets SQLite reuse results
  /// and use the function in indexes.
  var isDeterministic: Bool { get }
}

/// A function of one row's arguments.
public protocol ScalarDatabaseFunction<Input, Output>: DatabaseFunction {
  /// Reads the arguments from `decoder` and gives the result.
  func invoke(_ decoder: inout some QueryDecoder) throws -> QueryBinding
}

/// A function of a group of rows (`sum`, `group_concat`): each row's arguments are read into
/// an `Element`, and the result is computed from all of them at the end of the group.
public protocol AggregateDatabaseFunction<Input, Output>: DatabaseFunction {
  associatedtype Element = Input
  /// Reads one row's arguments.
  func step(_ decoder: inout some QueryDecoder) throws -> Element
  /// The result for a group's elements, in the order the rows came.
  func invoke(_ arguments: some Sequence<Element>) throws -> QueryBinding
}

extension ScalarDatabaseFunction {
  /// A call with its arguments in order and without their labels:
  /// `$concat("a", "b")` for `concat(first:second:)`.
  @_disfavoredOverload
  public func callAsFunction<each Argument: QueryExpression>(
    _ argument: repeat each Argument
  ) -> some QueryExpression<Output> where Input == (repeat (each Argument).QueryValue) {
    SQLQueryExpression(
      QueryFragment(raw: SQLNaming.quote(name) + "(")
        + argumentFragments(repeat each argument).joined() + ")", as: Output.self)
  }
}

extension AggregateDatabaseFunction {
  /// A call with its arguments in order and without their labels.
  @_disfavoredOverload
  public func callAsFunction<each Argument: QueryExpression>(
    _ argument: repeat each Argument, distinct isDistinct: Bool = false,
    filter: (some QueryExpression<Bool>)? = Bool?.none
  ) -> some QueryExpression<Output> where Input == (repeat (each Argument).QueryValue) {
    _aggregateCall(
      name, argumentFragments(repeat each argument), distinct: isDistinct,
      filter: filter?.queryFragment, as: Output.self)
  }
}

/// Each argument's SQL, in order.
private func argumentFragments<each Argument: QueryExpression>(
  _ argument: repeat each Argument
) -> [QueryFragment] {
  var fragments: [QueryFragment] = []
  for argument in repeat each argument { fragments.append(argument.queryFragment) }
  return fragments
}

/// How many SQL arguments a value of `type` passes: 1, or a table's column count.
public func _columnWidth<T: QueryDecodable>(_ type: T.Type) -> Int { T._columnWidth }

/// `"name"([DISTINCT] a, b) [FILTER (WHERE condition)]`: a call of an aggregate function.
public func _aggregateCall<Output>(
  _ name: String, _ arguments: [QueryFragment], distinct isDistinct: Bool,
  filter condition: QueryFragment?, as type: Output.Type
) -> SQLQueryExpression<Output> {
  var sql = QueryFragment(raw: SQLNaming.quote(name) + (isDistinct ? "(DISTINCT " : "("))
  sql += arguments.joined() + ")"
  if let condition { sql += " FILTER (WHERE " + condition + ")" }
  return SQLQueryExpression(sql)
}

extension Database {
  /// Adds a typed function to this connection: `db.add(function: $exclaim)`.
  public func add(function: some ScalarDatabaseFunction) {
    let function = UncheckedFunction(function)
    add(
      function: HearthSQLite.DatabaseFunction(
        function.value.name, argumentCount: Int32(function.value.argumentCount ?? -1),
        isDeterministic: function.value.isDeterministic
      ) { values in
        var decoder = argumentDecoder(values)
        return try function.value.invoke(&decoder)
      })
  }

  /// Removes a typed function (scalar or aggregate) from this connection:
  /// `db.remove(function: $exclaim)`.
  public func remove(function: some DatabaseFunction) {
    removeFunction(named: function.name, argumentCount: Int32(function.argumentCount ?? -1))
  }

  /// Adds a typed aggregate function to this connection: `db.add(function: $sum)`.
  public func add<F: AggregateDatabaseFunction>(function: F) {
    let function = UncheckedFunction(function)
    addAggregate(
      function.value.name, argumentCount: Int32(function.value.argumentCount ?? -1),
      isDeterministic: function.value.isDeterministic
    ) {
      AggregateElements(function: function.value)
    }
  }
}

/// One group's elements, gathered row by row and handed to the function at the end.
private final class AggregateElements<F: AggregateDatabaseFunction>: DatabaseAggregate {
  let function: F
  var elements: [F.Element] = []

  init(function: F) { self.function = function }

  func step(_ values: [DatabaseValue]) throws {
    var decoder = argumentDecoder(values)
    elements.append(try function.step(&decoder))
  }

  func finish() throws -> DatabaseValue { try function.invoke(elements) }
}

/// A decoder over a function call's arguments, read in order as a row's columns.
private func argumentDecoder(_ values: [DatabaseValue]) -> QueryRowDecoder {
  QueryRowDecoder(row: Row(columnNames: values.map { _ in "" }, values: values))
}

/// A function value handed to SQLite's callbacks.
private struct UncheckedFunction<F>: @unchecked Sendable {
  // Safe: SQLite calls a connection's functions only on the thread running that
  // connection's statement, one call at a time, so the value is never used from two threads.
  let value: F
  init(_ value: F) { self.value = value }
}
