import Foundation

// SQLite's date and time functions, typed, as the reference spells them: the time now, a date
// moved by modifiers, its components, and `strftime`. Each works in the storage of the date
// it is given (text, Unix time, Julian day) and gives back a date in that storage.
//
// ```swift
// Reminder.where { $0.createdAt > .now(.days(-7)) }
// Reminder.select { $0.createdAt(.startOfDay.days(-7)) }
// Reminder.select { ($0.createdAt.year, $0.createdAt.strftime("%Y-%m")) }
// ```

/// A way a date is stored, which SQLite's date functions read and write.
public protocol _DateRepresentation: QueryRepresentable {
  /// What follows a stored value for SQLite to read it as a time (`'unixepoch'`).
  static var _timeValueModifiers: [QueryFragment] { get }
  /// A date function of these arguments giving the date in this storage.
  static func _dateStorage(_ arguments: [QueryFragment]) -> QueryFragment
}

extension Date: _DateRepresentation {
  public static var _timeValueModifiers: [QueryFragment] { [] }

  /// The text a `Date` column stores: `yyyy-MM-dd HH:mm:ss.SSS`. (SQLite's
  /// `datetime(…, 'subsec')` gives the same from 3.42; Debian 12 has 3.40.)
  public static func _dateStorage(_ arguments: [QueryFragment]) -> QueryFragment {
    "strftime(" + (["'%Y-%m-%d %H:%M:%f'"] + arguments).joined() + ")"
  }
}

extension Date.ISO8601Representation: _DateRepresentation {
  public static var _timeValueModifiers: [QueryFragment] { [] }
  public static func _dateStorage(_ arguments: [QueryFragment]) -> QueryFragment {
    Date._dateStorage(arguments)
  }
}

extension Date.UnixTimeRepresentation: _DateRepresentation {
  public static var _timeValueModifiers: [QueryFragment] { ["'unixepoch'"] }
  public static func _dateStorage(_ arguments: [QueryFragment]) -> QueryFragment {
    "unixepoch(" + arguments.joined() + ")"
  }
}

extension Date.JulianDayRepresentation: _DateRepresentation {
  public static var _timeValueModifiers: [QueryFragment] { [] }
  public static func _dateStorage(_ arguments: [QueryFragment]) -> QueryFragment {
    "julianday(" + arguments.joined() + ")"
  }
}

extension Optional: _DateRepresentation where Wrapped: _DateRepresentation {
  public static var _timeValueModifiers: [QueryFragment] { Wrapped._timeValueModifiers }
  public static func _dateStorage(_ arguments: [QueryFragment]) -> QueryFragment {
    Wrapped._dateStorage(arguments)
  }
}

extension QueryExpression where QueryValue: _DateRepresentation {
  /// The date moved by `modifier`: `$0.dueDate(.days(1))`, `$0.createdAt(.startOfDay)`.
  public func callAsFunction(_ modifier: DateTimeModifier) -> _ModifiedDate<QueryValue> {
    _ModifiedDate(arguments: timeValueArguments + modifier.fragments)
  }

  /// `strftime(format, date)`: the date as text (`%Y`, `%m`, `%d`, `%H`, `%M`, `%S`, `%f`,
  /// `%j`, `%w`, …); NULL for a NULL date.
  public func strftime(_ format: String) -> SQLQueryExpression<String?> {
    SQLQueryExpression("strftime(" + ([format.queryFragment] + timeValueArguments).joined() + ")")
  }

  /// The year.
  public var year: SQLQueryExpression<Int> { component("%Y") }
  /// The month, 1–12.
  public var month: SQLQueryExpression<Int> { component("%m") }
  /// The day of the month, 1–31.
  public var day: SQLQueryExpression<Int> { component("%d") }
  /// The hour, 0–23.
  public var hour: SQLQueryExpression<Int> { component("%H") }
  /// The minute, 0–59.
  public var minute: SQLQueryExpression<Int> { component("%M") }
  /// The whole second, 0–59.
  public var second: SQLQueryExpression<Int> { component("%S") }
  /// The second with its fraction, `SS.SSS`.
  public var fractionalSecond: SQLQueryExpression<Double> {
    SQLQueryExpression("CAST(strftime('%f', " + timeValueArguments.joined() + ") AS REAL)")
  }
  /// The day of the week, 0 (Sunday)–6.
  public var weekday: SQLQueryExpression<Int> { component("%w") }
  /// The day of the year, 1–366.
  public var dayOfYear: SQLQueryExpression<Int> { component("%j") }

  /// The arguments SQLite's date functions read this date from.
  var timeValueArguments: [QueryFragment] {
    (self as? _ModifiedDate<QueryValue>)?.arguments
      ?? [queryFragment] + QueryValue._timeValueModifiers
  }

  private func component(_ format: String) -> SQLQueryExpression<Int> {
    SQLQueryExpression(
      QueryFragment(raw: "CAST(strftime('\(format)', ") + timeValueArguments.joined()
        + ") AS INTEGER)")
  }
}

/// A date computed by SQLite: the time now, or a date moved by modifiers.
public struct _ModifiedDate<QueryValue: _DateRepresentation>: QueryExpression, Sendable {
  /// The date functions' arguments: a time value and its modifiers.
  let arguments: [QueryFragment]

  public var queryFragment: QueryFragment { QueryValue._dateStorage(arguments) }

  /// This date moved further: `.now(.days(-7))`.
  public func callAsFunction(_ modifier: DateTimeModifier) -> Self {
    Self(arguments: arguments + modifier.fragments)
  }
}

extension QueryExpression where Self == _ModifiedDate<Date> {
  /// The time now, as a `Date` column stores it: `$0.dueDate < .now`.
  public static var now: Self { Self(arguments: ["'now'"]) }
}

extension QueryExpression where Self == _ModifiedDate<Date.UnixTimeRepresentation> {
  /// The time now, in Unix time.
  public static var now: Self { Self(arguments: ["'now'"]) }
}

extension QueryExpression where Self == _ModifiedDate<Date.JulianDayRepresentation> {
  /// The time now, as a Julian day.
  public static var now: Self { Self(arguments: ["'now'"]) }
}

/// Modifiers of SQLite's date functions, chained: `.startOfDay.days(-7)`, `.months(1)`.
@dynamicMemberLookup
public struct DateTimeModifier: Sendable {
  var fragments: [QueryFragment] = []

  /// What a month or year added to a day that the target month lacks (January 31st plus a
  /// month) becomes: the next month's start (`ceiling`), or the target month's end (`floor`).
  public enum Overflow: String, Sendable {
    case ceiling
    case floor
  }

  public static func years(_ count: Int) -> Self { Self().years(count) }
  public static func years(_ count: Int, _ overflow: Overflow) -> Self {
    Self().years(count, overflow)
  }
  public static func months(_ count: Int) -> Self { Self().months(count) }
  public static func months(_ count: Int, _ overflow: Overflow) -> Self {
    Self().months(count, overflow)
  }
  public static func days(_ count: Int) -> Self { Self().days(count) }
  public static func hours(_ count: Int) -> Self { Self().hours(count) }
  public static func minutes(_ count: Int) -> Self { Self().minutes(count) }
  public static func seconds(_ count: Double) -> Self { Self().seconds(count) }
  public static func milliseconds(_ count: Int) -> Self { Self().milliseconds(count) }
  public static var startOfDay: Self { Self().startOfDay }
  public static var startOfMonth: Self { Self().startOfMonth }
  public static var startOfYear: Self { Self().startOfYear }
  /// The next day that is weekday `day` (0 is Sunday), or the date itself if it is one.
  public static func weekday(_ day: Int) -> Self { Self().weekday(day) }

  public func years(_ count: Int) -> Self { adding("\(count) years") }
  public func years(_ count: Int, _ overflow: Overflow) -> Self {
    adding("\(count) years").adding(overflow.rawValue)
  }
  public func months(_ count: Int) -> Self { adding("\(count) months") }
  public func months(_ count: Int, _ overflow: Overflow) -> Self {
    adding("\(count) months").adding(overflow.rawValue)
  }
  public func days(_ count: Int) -> Self { adding("\(count) days") }
  public func hours(_ count: Int) -> Self { adding("\(count) hours") }
  public func minutes(_ count: Int) -> Self { adding("\(count) minutes") }
  public func seconds(_ count: Double) -> Self { adding("\(count) seconds") }
  public func milliseconds(_ count: Int) -> Self {
    adding("\(Double(count) / 1000) seconds")
  }
  public var startOfDay: Self { adding("start of day") }
  public var startOfMonth: Self { adding("start of month") }
  public var startOfYear: Self { adding("start of year") }
  public func weekday(_ day: Int) -> Self { adding("weekday \(day)") }

  /// A modifier of the program's own, chained: `.months(1).endOfMonth` for
  /// `static let endOfMonth = Self.startOfMonth.months(1).days(-1)`.
  public subscript(dynamicMember modifier: KeyPath<Self.Type, Self>) -> Self {
    Self(fragments: fragments + Self.self[keyPath: modifier].fragments)
  }

  /// One more modifier, as an SQL string literal (its text is the program's, never input).
  private func adding(_ modifier: String) -> Self {
    Self(fragments: fragments + [QueryFragment(raw: "'" + modifier + "'")])
  }
}
