import CSQLite
import Foundation

// SQL functions every Hearth connection has, beyond SQLite's own:
//
// - `uuid()`: a random UUID as lowercase text (in the C shim), for `DEFAULT (uuid())`.
// - `hearth_group_concat(value, separator, direction, key, [direction, key…])`: the
//   non-NULL values joined by `separator` in the order of the keys; a direction is 0 for
//   ascending, plus 1 for descending, 2 for NULLs first, 4 for NULLs last. SQLite has
//   `group_concat(x ORDER BY y)` only from 3.44; Debian 12 ships 3.40, and the plain
//   `group_concat` joins in whatever order the rows arrive. Keys order as SQLite orders
//   values (NULL, then numbers, then text by bytes, then blobs); equal keys keep the rows'
//   order.

extension Database {
  func registerBuiltInFunctions() {
    hearth_sqlite3_register_uuid(sqliteConnection)
    sqlite3_create_function_v2(
      sqliteConnection, "hearth_group_concat", -1, SQLITE_UTF8 | SQLITE_INNOCUOUS, nil, nil,
      orderedConcatStep, orderedConcatFinal, nil)
  }
}

/// The rows an ordered concatenation has seen.
private final class OrderedConcat {
  var separator = ","
  var entries: [(keys: [DatabaseValue], directions: [Int32], value: String)] = []
}

private func orderedConcatStep(
  _ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?
) {
  guard let arguments, count >= 2, count % 2 == 0 else {
    sqlite3_result_error(
      context, "hearth_group_concat(value, separator, descending, key, …) takes pairs of keys",
      -1)
    return
  }
  guard let state = groupState(context, make: OrderedConcat.init) else {
    sqlite3_result_error_nomem(context)
    return
  }
  let value = Row.value(arguments[0])
  state.separator = Row.value(arguments[1]).textForm ?? ""
  guard let text = value.textForm else { return }
  var keys: [DatabaseValue] = []
  var directions: [Int32] = []
  for index in stride(from: 2, to: Int(count), by: 2) {
    directions.append(sqlite3_value_int(arguments[index]))
    keys.append(Row.value(arguments[index + 1]))
  }
  state.entries.append((keys, directions, text))
}

private func orderedConcatFinal(_ context: OpaquePointer?) {
  guard let state = takeGroupState(context, as: OrderedConcat.self), !state.entries.isEmpty
  else {
    sqlite3_result_null(context)
    return
  }
  // Swift's sort is not stable: the index breaks ties, so equal keys keep the rows' order.
  let ordered = state.entries.enumerated().sorted { left, right in
    for index in left.element.keys.indices {
      let (a, b) = (left.element.keys[index], right.element.keys[index])
      let direction = left.element.directions[index]
      let descending = direction & 1 != 0
      if a.isNull != b.isNull {
        // NULLs come first ascending and last descending, unless the term says otherwise.
        let nullsFirst = direction & 2 != 0 || (direction & 4 == 0 && !descending)
        return a.isNull == nullsFirst
      }
      let order = sqliteOrder(a, b)
      if order != 0 { return descending ? order > 0 : order < 0 }
    }
    return left.offset < right.offset
  }
  let joined = ordered.map(\.element.value).joined(separator: state.separator)
  hearth_sqlite3_result_text_transient(context, joined, Int32(joined.utf8.count))
}

extension DatabaseValue {
  /// The text `group_concat` joins for this value; nil for NULL (which it skips).
  fileprivate var textForm: String? {
    switch storage {
    case .null: return nil
    case .integer(let value): return String(value)
    case .double(let value): return String(value)
    case .text(let text): return text
    case .blob(let data): return String(decoding: data, as: UTF8.self)
    }
  }
}

/// SQLite's ORDER BY comparison with the BINARY collation: -1, 0 or 1.
private func sqliteOrder(_ left: DatabaseValue, _ right: DatabaseValue) -> Int {
  func rank(_ value: DatabaseValue) -> Int {
    switch value.storage {
    case .null: return 0
    case .integer, .double: return 1
    case .text: return 2
    case .blob: return 3
    }
  }
  func compare<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : (a == b ? 0 : 1) }
  switch (left.storage, right.storage) {
  case (.integer(let a), .integer(let b)): return compare(a, b)
  case (.integer(let a), .double(let b)): return compare(Double(a), b)
  case (.double(let a), .integer(let b)): return compare(a, Double(b))
  case (.double(let a), .double(let b)): return compare(a, b)
  case (.text(let a), .text(let b)):
    return a.utf8.elementsEqual(b.utf8) ? 0 : (a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1)
  case (.blob(let a), .blob(let b)):
    return a.elementsEqual(b) ? 0 : (a.lexicographicallyPrecedes(b) ? -1 : 1)
  default: return compare(rank(left), rank(right))
  }
}
