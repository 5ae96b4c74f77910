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
// - `unhex(X [, Y])`, where SQLite is older than 3.41 (which has its own): the blob whose
//   hexadecimal digits X spells, skipping the characters of Y between pairs of digits; NULL
//   for an odd count of digits, another character, or a NULL argument.

extension Database {
  func registerBuiltInFunctions() {
    hearth_sqlite3_register_uuid(sqliteConnection)
    sqlite3_create_function_v2(
      sqliteConnection, "hearth_group_concat", -1, SQLITE_UTF8 | SQLITE_INNOCUOUS, nil, nil,
      orderedConcatStep, orderedConcatFinal, nil)
    if sqlite3_libversion_number() < 3_041_000 {
      for arity: Int32 in [1, 2] {
        sqlite3_create_function_v2(
          sqliteConnection, "unhex", arity,
          SQLITE_UTF8 | SQLITE_INNOCUOUS | SQLITE_DETERMINISTIC, nil, unhexFunction, nil, nil,
          nil)
      }
    }
  }
}

private func unhexFunction(
  _ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?
) {
  guard let arguments, let text = sqlite3_value_text(arguments[0]) else {
    sqlite3_result_null(context)
    return
  }
  let digits = Array(
    UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(arguments[0]))))
  var skipped: Set<UInt8> = []
  if count > 1 {
    guard let ignore = sqlite3_value_text(arguments[1]) else {
      sqlite3_result_null(context)
      return
    }
    skipped = Set(
      UnsafeBufferPointer(start: ignore, count: Int(sqlite3_value_bytes(arguments[1]))))
  }
  guard let bytes = unhexed(digits, skipping: skipped) else {
    sqlite3_result_null(context)
    return
  }
  guard !bytes.isEmpty else {
    sqlite3_result_zeroblob(context, 0)
    return
  }
  bytes.withUnsafeBytes { buffer in
    hearth_sqlite3_result_blob_transient(context, buffer.baseAddress, Int32(buffer.count))
  }
}

/// The bytes `text` spells in pairs of hexadecimal digits, with the characters of `skipped`
/// allowed between pairs; nil for anything else.
func unhexed(_ text: [UInt8], skipping skipped: Set<UInt8>) -> [UInt8]? {
  func value(_ character: UInt8) -> UInt8? {
    switch character {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
    default: nil
    }
  }
  var bytes: [UInt8] = []
  bytes.reserveCapacity(text.count / 2)
  var index = 0
  while index < text.count {
    guard let high = value(text[index]) else {
      guard skipped.contains(text[index]) else { return nil }
      index += 1
      continue
    }
    guard index + 1 < text.count, let low = value(text[index + 1]) else { return nil }
    bytes.append(high << 4 | low)
    index += 2
  }
  return bytes
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
    case .invalid: return nil  // SQLite's values are never invalid
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
    case .blob, .invalid: return 3  // SQLite's values are never invalid
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
