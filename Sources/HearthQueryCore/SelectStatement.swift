/// A statement that is a `SELECT`. A type of one's own that renders one (with `query`)
/// conforms with no more code: its rows decode by their type.
///
/// ```swift
/// struct Now: PartialSelectStatement {
///   typealias QueryValue = String
///   var query: QueryFragment { "SELECT datetime('now')" }
/// }
/// ```
public protocol PartialSelectStatement<QueryValue>: Statement {}

extension PartialSelectStatement {
  /// Reads a row as `QueryValue`, which must be decodable from a row (a column's type, a
  /// table, a `@Selection`).
  public func _decodeRow(_ decoder: inout QueryRowDecoder) throws -> QueryValue {
    guard let type = QueryValue.self as? any QueryDecodable.Type else {
      throw QueryDecodingError(
        type: "\(QueryValue.self)", value: "a row",
        reason: "a select of this type decodes only a QueryDecodable type")
    }
    return try type.init(decoder: &decoder) as! QueryValue
  }
}

/// A select from `From` with the tables `Joins`, whose rows decode into `QueryValue`: `all`,
/// a `Where`, a `Select`. What a function returns to be refined by its callers:
///
/// ```swift
/// func overdue() -> some SelectStatementOf<Reminder> {
///   Reminder.where { $0.dueDate < Date() }
/// }
/// let titles = overdue().select(\.title)   // via asSelect()
/// ```
public protocol SelectStatement<QueryValue, From, Joins>: PartialSelectStatement {
  associatedtype From: Table
  associatedtype Joins
  /// The statement as a `Select`, to go on with any clause.
  func asSelect() -> Select<QueryValue, From, Joins>
}

/// A select of whole rows of `From` and of each joined table.
public typealias SelectStatementOf<From: Table, each Join: Table> = SelectStatement<
  (From, repeat each Join), From, (repeat each Join)
>

extension Select: SelectStatement {}
extension Where: SelectStatement {}
