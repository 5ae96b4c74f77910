import CSQLite
import Foundation

/// A SQL function written in Swift, added to one connection with `Database.add(function:)`.
///
/// ```swift
/// let shout = DatabaseFunction("shout", argumentCount: 1) { values in
///   DatabaseValue(storage: .text((values[0].textValue ?? "").uppercased()))
/// }
/// db.add(function: shout)
/// try String.fetchOne(db, sql: "SELECT shout('hi')")  // "HI"
/// ```
///
/// The body runs on the connection's thread, inside the statement that calls it; a thrown
/// error fails that statement with the error's description.
public final class DatabaseFunction: Sendable {
  public let name: String
  /// The number of arguments; -1 for any.
  public let argumentCount: Int32
  /// Whether equal arguments always give the same result (SQLite may then reuse results
  /// and use the function in indexes).
  public let isDeterministic: Bool
  let body: @Sendable ([DatabaseValue]) throws -> DatabaseValue

  public init(
    _ name: String, argumentCount: Int32, isDeterministic: Bool = false,
    _ body: @escaping @Sendable ([DatabaseValue]) throws -> DatabaseValue
  ) {
    self.name = name
    self.argumentCount = argumentCount
    self.isDeterministic = isDeterministic
    self.body = body
  }
}

extension Database {
  /// Adds `function` to this connection (replacing one of the same name and argument count).
  public func add(function: DatabaseFunction) {
    let flags = SQLITE_UTF8 | (function.isDeterministic ? SQLITE_DETERMINISTIC : 0)
    let box = Unmanaged.passRetained(function).toOpaque()
    sqlite3_create_function_v2(
      sqliteConnection, function.name, function.argumentCount, flags, box,
      { context, count, arguments in
        let function = Unmanaged<DatabaseFunction>.fromOpaque(sqlite3_user_data(context))
          .takeUnretainedValue()
        let values = (0..<Int(count)).map { Row.value(arguments![$0]) }
        do {
          setResult(try function.body(values), context)
        } catch {
          let message = "\(error)"
          sqlite3_result_error(context, message, Int32(message.utf8.count))
        }
      }, nil, nil,
      { box in box.map { Unmanaged<DatabaseFunction>.fromOpaque($0).release() } })
  }
}

extension Database {
  /// Removes the function of this name and argument count (-1: the one taking any number)
  /// from this connection; a statement calling it fails from then on.
  public func removeFunction(named name: String, argumentCount: Int32) {
    sqlite3_create_function_v2(
      sqliteConnection, name, argumentCount, SQLITE_UTF8, nil, nil, nil, nil, nil)
  }
}

func setResult(_ value: DatabaseValue, _ context: OpaquePointer?) {
  switch value.storage {
  case .null: sqlite3_result_null(context)
  case .integer(let integer): sqlite3_result_int64(context, integer)
  case .double(let double): sqlite3_result_double(context, double)
  case .text(let text):
    hearth_sqlite3_result_text_transient(context, text, Int32(text.utf8.count))
  case .blob(let data):
    data.withUnsafeBytes { bytes in
      hearth_sqlite3_result_blob_transient(context, bytes.baseAddress, Int32(bytes.count))
    }
  case .invalid(let error):
    // A function whose result cannot be bound fails the statement that called it.
    let message = "\(error)"
    sqlite3_result_error(context, message, Int32(message.utf8.count))
  }
}
