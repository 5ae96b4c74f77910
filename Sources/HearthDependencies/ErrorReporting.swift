import Foundation
import HearthSupport

/// Where `withErrorReporting` sends errors. Live: a line on standard error. Under the
/// `.dependency` test trait of HearthDataTestSupport: a recorded issue that fails the test.
public struct ErrorReporter: Sendable {
  private let report: @Sendable (any Error, String?, String, Int) -> Void

  public init(
    _ report:
      @escaping @Sendable (_ error: any Error, _ message: String?, _ file: String, _ line: Int) ->
      Void
  ) {
    self.report = report
  }

  /// Writes `file:line: message: error` to standard error through `Logger`, at the error
  /// priority.
  public static let standardError = ErrorReporter { error, message, file, line in
    let prefix = message.map { "\($0): " } ?? ""
    Logger(label: "\(file):\(line)").error("\(prefix)\(error)")
  }

  public func callAsFunction(_ error: any Error, message: String?, file: String, line: Int) {
    report(error, message, file, line)
  }
}

private enum ErrorReporterKey: DependencyKey {
  static let liveValue = ErrorReporter.standardError
  static let testValue = ErrorReporter.standardError
}

extension DependencyValues {
  /// Where `withErrorReporting` reports.
  public var errorReporter: ErrorReporter {
    get { self[ErrorReporterKey.self] }
    set { self[ErrorReporterKey.self] = newValue }
  }
}

/// Runs `body`; an error it throws is reported (see `ErrorReporter`) instead of propagated.
/// Returns the body's result, or nil when it threw.
///
/// ```swift
/// withErrorReporting {
///   try database.write { db in try Item.insert().execute(db) }
/// }
/// ```
@discardableResult
public func withErrorReporting<R>(
  _ message: String? = nil, file: String = #fileID, line: Int = #line, _ body: () throws -> R
) -> R? {
  do {
    return try body()
  } catch {
    DependencyValues.current.errorReporter(error, message: message, file: file, line: line)
    return nil
  }
}

/// The `async` form of `withErrorReporting`.
@discardableResult
public func withErrorReporting<R>(
  _ message: String? = nil, file: String = #fileID, line: Int = #line,
  isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
) async -> R? {
  do {
    return try await body()
  } catch {
    DependencyValues.current.errorReporter(error, message: message, file: file, line: line)
    return nil
  }
}
