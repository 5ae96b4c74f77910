/// Anything that renders to SQL and has a Swift type: a column, a bound value, a function
/// call, a subquery. `QueryValue` is the Swift type of the value it stands for.
///
/// ```swift
/// extension Reminder.TableColumns {
///   var isCompleted: some QueryExpression<Bool> { status.neq(Reminder.Status.incomplete) }
/// }
/// ```
public protocol QueryExpression<QueryValue>: SendableMetatype {
  associatedtype QueryValue
  /// The SQL of this expression.
  var queryFragment: QueryFragment { get }
}

/// The SQL of each expression, in order.
func queryFragments<each C: QueryExpression>(_ expressions: repeat each C) -> [QueryFragment] {
  var fragments: [QueryFragment] = []
  for expression in repeat each expressions { fragments.append(expression.queryFragment) }
  return fragments
}

/// The names of the columns, in order.
func columnNames<Root, each V>(_ columns: repeat TableColumn<Root, each V>) -> [String] {
  var names: [String] = []
  for column in repeat each columns { names.append(column.name) }
  return names
}

/// An expression written as SQL, typed by the caller. `#sql("…")` makes one.
///
/// ```swift
/// let isOverdue = SQLQueryExpression("date(\(Reminder.columns.dueDate)) < date('now')", as: Bool.self)
/// ```
public struct SQLQueryExpression<QueryValue>: QueryExpression, Sendable {
  public let queryFragment: QueryFragment
  /// How a row of this SQL decodes when `QueryValue` is a tuple (which the type alone cannot
  /// say at run time); nil for every other type.
  let decodeTuple: (@Sendable (inout QueryRowDecoder) throws -> QueryValue)?

  public init(_ queryFragment: QueryFragment, as type: QueryValue.Type = QueryValue.self) {
    self.queryFragment = queryFragment
    decodeTuple = nil
  }

  /// SQL whose rows are several values, read in order: `#sql("SELECT \(Reminder.columns),
  /// \(RemindersList.columns) FROM …", as: (Reminder, RemindersList).self)` (the macro
  /// passes a tuple type here).
  public init<V1: QueryDecodable, V2: QueryDecodable, each V: QueryDecodable>(
    _ queryFragment: QueryFragment, tupleOf type: (V1, V2, repeat each V).Type
  ) where QueryValue == (V1, V2, repeat each V) {
    self.queryFragment = queryFragment
    decodeTuple = { decoder in
      (try V1(decoder: &decoder), try V2(decoder: &decoder), repeat try (each V)(decoder: &decoder))
    }
  }

  /// Another expression, retyped. (Labeled: a string literal must never be taken for a
  /// `String` value here.)
  public init(expression: some QueryExpression, as type: QueryValue.Type = QueryValue.self) {
    queryFragment = expression.queryFragment
    decodeTuple = nil
  }
}

/// A value bound as a parameter, typed as itself. `#bind(value)` makes one.
///
/// ```swift
/// Reminder.where { $0.status.eq(#bind(.completing)) }
/// ```
public struct BindQueryExpression<QueryValue: QueryBindable>: QueryExpression, Sendable {
  public let queryFragment: QueryFragment

  public init(_ value: QueryValue) {
    queryFragment = QueryFragment(binding: value.queryBinding)
  }

  /// A value bound as its representation binds it: `#bind(["a"])` where the context is a
  /// JSON column.
  public init(queryOutput value: QueryValue.QueryOutput) {
    queryFragment = QueryFragment(binding: QueryValue(queryOutput: value).queryBinding)
  }

  /// A value of a custom representation: `#bind(color, as: Color.HexRepresentation.self)`.
  public init(_ value: QueryValue.QueryOutput, as type: QueryValue.Type) {
    queryFragment = QueryFragment(binding: QueryValue(queryOutput: value).queryBinding)
  }
}
