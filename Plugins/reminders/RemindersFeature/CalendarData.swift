import CICal
import Foundation

/// A reminder as a CalDAV client sees it: a VTODO in a VCALENDAR, read and written by
/// libical. What the reminders feature models — UID, SUMMARY, DESCRIPTION, DUE, STATUS and
/// COMPLETED, PRIORITY, CATEGORIES (its tags), X-HEARTH-FLAGGED — is taken from the row;
/// every other property and component (a client's VALARMs, its own X- properties) is kept
/// as the client last sent it.
struct CalendarTask: Equatable {
  var uid: String
  var title: String
  var notes: String
  var due: Date?
  /// Whether DUE was a date without a time (`DUE;VALUE=DATE:20270115`).
  var dueIsDate = false
  var completed: Bool
  var priority: Reminder.Priority?
  var flagged: Bool
  var tags: [String]
}

enum CalendarDataError: Error, CustomStringConvertible {
  case notICalendar
  case noTask
  case noTitle

  var description: String {
    switch self {
    case .notICalendar: "the body is not iCalendar text"
    case .noTask: "the calendar holds no VTODO (this collection holds tasks only)"
    case .noTitle: "the VTODO has no SUMMARY"
    }
  }
}

enum CalendarData {
  static let productID = "-//Hearth//reminders//EN"

  /// The task in iCalendar text (a VCALENDAR with one VTODO, or a bare VTODO).
  static func parse(_ text: String) throws -> CalendarTask {
    guard let root = icalparser_parse_string(text) else { throw CalendarDataError.notICalendar }
    defer { icalcomponent_free(root) }
    guard let todo = firstTask(root) else { throw CalendarDataError.noTask }
    let summary = icalcomponent_get_summary(todo).map { String(cString: $0) } ?? ""
    guard !summary.isEmpty else { throw CalendarDataError.noTitle }
    var task = CalendarTask(
      uid: icalcomponent_get_uid(todo).map { String(cString: $0) } ?? "",
      title: summary,
      notes: icalcomponent_get_description(todo).map { String(cString: $0) } ?? "",
      due: nil, completed: false, priority: nil, flagged: false, tags: [])
    if icalcomponent_get_first_property(todo, ICAL_DUE_PROPERTY) != nil {
      let due = icalcomponent_get_due(todo)
      if icaltime_is_null_time(due) == 0 {
        task.dueIsDate = due.is_date != 0
        task.due = date(of: due)
      }
    }
    let status = icalcomponent_get_status(todo)
    task.completed =
      status == ICAL_STATUS_COMPLETED
      || (status != ICAL_STATUS_NEEDSACTION && status != ICAL_STATUS_INPROCESS
        && icalcomponent_get_first_property(todo, ICAL_COMPLETED_PROPERTY) != nil)
    if let property = icalcomponent_get_first_property(todo, ICAL_PRIORITY_PROPERTY) {
      task.priority = priority(fromICalendar: Int(icalproperty_get_priority(property)))
    }
    var property = icalcomponent_get_first_property(todo, ICAL_CATEGORIES_PROPERTY)
    while let current = property {
      if let text = icalproperty_get_categories(current) {
        for tag in String(cString: text).split(separator: ",") {
          let trimmed = tag.trimmingCharacters(in: .whitespaces)
          if !trimmed.isEmpty, !task.tags.contains(trimmed) { task.tags.append(trimmed) }
        }
      }
      property = icalcomponent_get_next_property(todo, ICAL_CATEGORIES_PROPERTY)
    }
    if let flag = xProperty(todo, flaggedName) {
      task.flagged = String(cString: icalproperty_get_x(flag)).uppercased() == "TRUE"
    }
    return task
  }

  static let flaggedName = "X-HEARTH-FLAGGED"

  /// The reminder as a VCALENDAR: `stored` (what a client last sent, nil for none) with
  /// the modelled properties set from `task`.
  /// `stamp` is the DTSTAMP when the stored text has none (the text is the same for the same
  /// row, whenever it is read).
  static func render(_ task: CalendarTask, stored: String?, completedAt: Date?, stamp: Date)
    -> String
  {
    var root = stored.flatMap { icalparser_parse_string($0) }
    if let parsed = root, firstTask(parsed) == nil {
      icalcomponent_free(parsed)
      root = nil
    }
    if let parsed = root, icalcomponent_isa(parsed) == ICAL_VTODO_COMPONENT {
      // A bare VTODO: put it in a calendar.
      let calendar = icalcomponent_new(ICAL_VCALENDAR_COMPONENT)!
      icalcomponent_add_component(calendar, parsed)
      root = calendar
    }
    let calendar: OpaquePointer
    if let root {
      calendar = root
    } else {
      calendar = icalcomponent_new(ICAL_VCALENDAR_COMPONENT)!
      icalcomponent_add_component(calendar, icalcomponent_new(ICAL_VTODO_COMPONENT)!)
    }
    defer { icalcomponent_free(calendar) }
    replace(calendar, ICAL_VERSION_PROPERTY, with: icalproperty_new_version("2.0"))
    if icalcomponent_get_first_property(calendar, ICAL_PRODID_PROPERTY) == nil {
      icalcomponent_add_property(calendar, icalproperty_new_prodid(productID))
    }
    let todo = firstTask(calendar)!
    // The stored DUE stays as the client wrote it (its time zone, a date alone) while it
    // names the same instant.
    let storedDue =
      icalcomponent_get_first_property(todo, ICAL_DUE_PROPERTY) != nil
      ? date(of: icalcomponent_get_due(todo)) : nil
    let keepDue = storedDue != nil && storedDue == task.due
    for kind in [
      ICAL_UID_PROPERTY, ICAL_SUMMARY_PROPERTY, ICAL_DESCRIPTION_PROPERTY, ICAL_STATUS_PROPERTY,
      ICAL_PRIORITY_PROPERTY, ICAL_CATEGORIES_PROPERTY,
    ] {
      removeAll(todo, kind)
    }
    if !keepDue { removeAll(todo, ICAL_DUE_PROPERTY) }
    while let flag = xProperty(todo, flaggedName) {
      icalcomponent_remove_property(todo, flag)
      icalproperty_free(flag)
    }
    icalcomponent_add_property(todo, icalproperty_new_uid(task.uid))
    if icalcomponent_get_first_property(todo, ICAL_DTSTAMP_PROPERTY) == nil {
      icalcomponent_add_property(todo, icalproperty_new_dtstamp(icalTime(stamp, isDate: false)))
    }
    icalcomponent_add_property(todo, icalproperty_new_summary(task.title))
    if !task.notes.isEmpty {
      icalcomponent_add_property(todo, icalproperty_new_description(task.notes))
    }
    if let due = task.due, !keepDue {
      icalcomponent_add_property(todo, icalproperty_new_due(icalTime(due, isDate: false)))
    }
    icalcomponent_add_property(
      todo,
      icalproperty_new_status(task.completed ? ICAL_STATUS_COMPLETED : ICAL_STATUS_NEEDSACTION))
    if task.completed {
      if icalcomponent_get_first_property(todo, ICAL_COMPLETED_PROPERTY) == nil {
        icalcomponent_add_property(
          todo, icalproperty_new_completed(icalTime(completedAt ?? stamp, isDate: false)))
      }
    } else {
      removeAll(todo, ICAL_COMPLETED_PROPERTY)
    }
    if let priority = task.priority {
      icalcomponent_add_property(
        todo, icalproperty_new_priority(Int32(icalendarPriority(priority))))
    }
    if !task.tags.isEmpty {
      icalcomponent_add_property(
        todo, icalproperty_new_categories(task.tags.joined(separator: ",")))
    }
    if task.flagged {
      let flag = icalproperty_new_x("TRUE")!
      icalproperty_set_x_name(flag, flaggedName)
      icalcomponent_add_property(todo, flag)
    }
    guard let text = icalcomponent_as_ical_string_r(calendar) else { return "" }
    defer { free(text) }
    return String(cString: text)
  }

  // MARK: - libical

  private static func firstTask(_ component: OpaquePointer) -> OpaquePointer? {
    icalcomponent_isa(component) == ICAL_VTODO_COMPONENT
      ? component : icalcomponent_get_first_component(component, ICAL_VTODO_COMPONENT)
  }

  private static func removeAll(_ component: OpaquePointer, _ kind: icalproperty_kind) {
    while let property = icalcomponent_get_first_property(component, kind) {
      icalcomponent_remove_property(component, property)
      icalproperty_free(property)
    }
  }

  private static func replace(
    _ component: OpaquePointer, _ kind: icalproperty_kind, with property: OpaquePointer?
  ) {
    removeAll(component, kind)
    if let property { icalcomponent_add_property(component, property) }
  }

  private static func xProperty(_ component: OpaquePointer, _ name: String) -> OpaquePointer? {
    var property = icalcomponent_get_first_property(component, ICAL_X_PROPERTY)
    while let current = property {
      if let named = icalproperty_get_x_name(current), String(cString: named).uppercased() == name {
        return current
      }
      property = icalcomponent_get_next_property(component, ICAL_X_PROPERTY)
    }
    return nil
  }

  /// A date-time's instant: in its own time zone, UTC for one marked so; a floating time or
  /// a date alone is read in this machine's zone (a date at 09:00, as `--due DATE` is).
  private static func date(of time: icaltimetype) -> Date? {
    guard icaltime_is_null_time(time) == 0 else { return nil }
    if time.is_date != 0 {
      var parts = DateComponents()
      (parts.year, parts.month, parts.day, parts.hour) = (
        Int(time.year), Int(time.month), Int(time.day), 9
      )
      return Calendar.current.date(from: parts)
    }
    if let zone = time.zone {
      return Date(timeIntervalSince1970: Double(icaltime_as_timet_with_zone(time, zone)))
    }
    var parts = DateComponents()
    (parts.year, parts.month, parts.day) = (Int(time.year), Int(time.month), Int(time.day))
    (parts.hour, parts.minute, parts.second) = (Int(time.hour), Int(time.minute), Int(time.second))
    return Calendar.current.date(from: parts)
  }

  private static func icalTime(_ date: Date, isDate: Bool) -> icaltimetype {
    icaltime_from_timet_with_zone(
      time_t(date.timeIntervalSince1970.rounded(.down)), isDate ? 1 : 0,
      icaltimezone_get_utc_timezone())
  }

  /// iCalendar's 1 (highest) to 9 (lowest), 0 for none, as the feature's three.
  static func priority(fromICalendar value: Int) -> Reminder.Priority? {
    switch value {
    case 1...4: .high
    case 5: .medium
    case 6...9: .low
    default: nil
    }
  }

  static func icalendarPriority(_ priority: Reminder.Priority) -> Int {
    switch priority {
    case .high: 1
    case .medium: 5
    case .low: 9
    }
  }
}
