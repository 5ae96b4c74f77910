import HearthNaming
import HearthSQLite

/// A bound value: the SQLite value a query parameter (`?`) carries.
public typealias QueryBinding = DatabaseValue

/// A piece of SQL: text and bound values, in order. Every query renders to one; its text
/// has `?` where a value is bound, so values never become SQL text.
///
/// Written as a string literal, the literal parts are SQL and each interpolation is safe:
///
/// ```swift
/// let fragment: QueryFragment = "SELECT \(Reminder.columns) FROM \(Reminder.self) WHERE \(Reminder.columns.title) = \(title)"
/// fragment.sql       // SELECT "reminders"."id", … FROM "reminders" WHERE "reminders"."title" = ?
/// fragment.bindings  // [.text(title)]
/// ```
public struct QueryFragment: Hashable, Sendable, CustomStringConvertible,
  CustomDebugStringConvertible
{
  public enum Segment: Hashable, Sendable {
    case sql(String)
    case binding(QueryBinding)
  }

  public private(set) var segments: [Segment]

  public init() { segments = [] }

  /// SQL text, as is. Only for text the program wrote, never for input.
  public init(raw sql: String) { segments = sql.isEmpty ? [] : [.sql(sql)] }

  /// One bound value: `?`.
  public init(binding: QueryBinding) { segments = [.binding(binding)] }

  public var isEmpty: Bool { segments.isEmpty }

  public mutating func append(_ other: QueryFragment) {
    for segment in other.segments { append(segment) }
  }

  public mutating func append(raw sql: String) { append(.sql(sql)) }

  private mutating func append(_ segment: Segment) {
    if case .sql(let text) = segment, case .sql(let previous)? = segments.last {
      segments[segments.count - 1] = .sql(previous + text)
    } else if case .sql(let text) = segment, text.isEmpty {
      return
    } else {
      segments.append(segment)
    }
  }

  public static func + (lhs: QueryFragment, rhs: QueryFragment) -> QueryFragment {
    var result = lhs
    result.append(rhs)
    return result
  }

  public static func += (lhs: inout QueryFragment, rhs: QueryFragment) { lhs.append(rhs) }

  /// The SQL text, with `?` for each bound value.
  public var sql: String {
    var text = ""
    for segment in segments {
      switch segment {
      case .sql(let sql): text += sql
      case .binding: text += "?"
      }
    }
    return text
  }

  /// The bound values, in the order of their `?`.
  public var bindings: [QueryBinding] {
    segments.compactMap {
      if case .binding(let value) = $0 { return value }
      return nil
    }
  }

  /// The SQL with each bound value's placeholder written by `placeholder` (given the
  /// value's position, from 1), and the values: for a driver whose placeholders are not `?`
  /// (`prepare { "$\($0)" }` for PostgreSQL's `$1`, `$2`).
  public func prepare(_ placeholder: (Int) -> String) -> (sql: String, bindings: [QueryBinding]) {
    var text = ""
    var bindings: [QueryBinding] = []
    for segment in segments {
      switch segment {
      case .sql(let sql): text += sql
      case .binding(let value):
        bindings.append(value)
        text += placeholder(bindings.count)
      }
    }
    return (text, bindings)
  }

  public var description: String { sql }

  /// The SQL with each value written in place as a literal: for logs, never to run.
  public var debugDescription: String {
    segments.map {
      switch $0 {
      case .sql(let sql): return sql
      case .binding(let value): return value.description
      }
    }.joined()
  }
}

extension Sequence<QueryFragment> {
  /// The fragments joined with `separator` between them.
  public func joined(separator: QueryFragment = QueryFragment(raw: ", ")) -> QueryFragment {
    var result = QueryFragment()
    var first = true
    for fragment in self {
      if !first { result.append(separator) }
      result.append(fragment)
      first = false
    }
    return result
  }
}

extension QueryFragment: ExpressibleByStringInterpolation {
  public init(stringLiteral value: String) { self.init(raw: value) }

  public init(stringInterpolation: StringInterpolation) { self = stringInterpolation.fragment }

  public struct StringInterpolation: StringInterpolationProtocol {
    var fragment = QueryFragment()

    public init(literalCapacity: Int, interpolationCount: Int) {}

    /// Literal text of the string: SQL.
    public mutating func appendLiteral(_ literal: String) { fragment.append(raw: literal) }

    /// An expression: a column, a table's columns, a bound value, a subquery…
    public mutating func appendInterpolation(_ expression: some QueryExpression) {
      fragment.append(expression.queryFragment)
    }

    /// An expression whose type is not known statically: a column in an `update` closure
    /// (`#sql("min(\($0.priority) + 1, 3)")`).
    @_disfavoredOverload
    public mutating func appendInterpolation(_ expression: any QueryExpression) {
      fragment.append(expression.queryFragment)
    }

    /// Another fragment, as is.
    public mutating func appendInterpolation(_ other: QueryFragment) { fragment.append(other) }

    /// A value, bound as a parameter.
    public mutating func appendInterpolation(bind value: some QueryBindable) {
      fragment.append(QueryFragment(binding: value.queryBinding))
    }

    /// A table's quoted name: `\(Reminder.self)` → `"reminders"`.
    public mutating func appendInterpolation<T: Table>(_ table: T.Type) {
      fragment.append(T.quotedTableName)
    }

    /// A row's values as a one-row select, each named after its column:
    /// `\(EmployeeReport(id: 1, name: "Alice"))` → `SELECT ? AS "id", ? AS "name"`.
    public mutating func appendInterpolation<T: Table>(_ row: T) {
      fragment.append(row.selectedValues.query)
    }

    /// An identifier, quoted: `\(quote: name)` → `"name"`; or text, as a string literal:
    /// `\(quote: name, delimiter: .text)` → `'name'`.
    public mutating func appendInterpolation(
      quote identifier: String, delimiter: QuoteDelimiter = .identifier
    ) {
      fragment.append(raw: delimiter.quote(identifier))
    }

    /// Raw SQL text. Never pass input here: it is not escaped.
    public mutating func appendInterpolation(raw sql: some CustomStringConvertible) {
      fragment.append(raw: sql.description)
    }
  }
}

/// How `\(quote:delimiter:)` quotes text: as an identifier (`"…"`) or a string literal
/// (`'…'`), the quote doubled inside.
public enum QuoteDelimiter: String, Sendable {
  case identifier = "\""
  case text = "'"

  func quote(_ text: String) -> String {
    rawValue + text.replacingOccurrences(of: rawValue, with: rawValue + rawValue) + rawValue
  }
}
