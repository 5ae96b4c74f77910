import Foundation
import HearthSQLite
import Testing

@Suite struct DatabaseValueTests {
  let db = try! DatabaseQueue()

  /// Stores `value`, reads back what SQLite holds (its type and text), and decodes it again.
  func roundTrip<Value: DatabaseValueConvertible>(_ value: Value) throws -> (
    type: String, stored: String?, decoded: Value
  ) {
    try db.write { db in
      try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS t (v)")
      try db.execute(sql: "DELETE FROM t")
      try db.execute(sql: "INSERT INTO t (v) VALUES (?)", arguments: [value])
      let row = try Row.fetchOne(db, sql: "SELECT typeof(v), CAST(v AS TEXT), v FROM t")!
      return (try row[0], try row[1], try row[2])
    }
  }

  @Test func integersAndDoublesKeepEveryBit() throws {
    #expect(try roundTrip(Int64.max).decoded == Int64.max)
    #expect(try roundTrip(Int64.min).decoded == Int64.min)
    #expect(try roundTrip(Int64.max).type == "integer")
    #expect(try roundTrip(Int8(-5)).decoded == -5)
    #expect(try roundTrip(UInt32.max).decoded == UInt32.max)
    let awkward = 0.1 + 0.2
    #expect(try roundTrip(awkward).decoded.bitPattern == awkward.bitPattern)
    #expect(try roundTrip(Double.leastNonzeroMagnitude).decoded == .leastNonzeroMagnitude)
    #expect(try roundTrip(-0.0).decoded.sign == .minus)
  }

  @Test func boolIsStoredAsZeroOrOne() throws {
    let stored = try roundTrip(true)
    #expect(stored.type == "integer")
    #expect(stored.stored == "1")
    #expect(stored.decoded == true)
    #expect(try roundTrip(false).stored == "0")
  }

  @Test func dateIsStoredAsUTCTextWithMilliseconds() throws {
    let date = Date(timeIntervalSince1970: 1_700_000_000.123)
    let stored = try roundTrip(date)
    #expect(stored.type == "text")
    #expect(stored.stored == "2023-11-14 22:13:20.123")
    #expect(abs(stored.decoded.timeIntervalSince1970 - 1_700_000_000.123) < 0.0005)
    // Before 1970, and a value that rounds up into the next second.
    #expect(try roundTrip(Date(timeIntervalSince1970: -1.5)).stored == "1969-12-31 23:59:58.500")
    #expect(try roundTrip(Date(timeIntervalSince1970: 59.9996)).stored == "1970-01-01 00:01:00.000")
  }

  @Test func aDateWithMillisecondsReadsBackAsTheSameDate() throws {
    // A `Date` holds seconds since 2001 as a Double; read back, it is that same Double,
    // not one a millionth of a second off (which `==`, and an edit's comparison, would see).
    for seconds in [793_109_282.061, 0.001, -86_400.999, 1_000_000_000.5, 123.456] {
      let date = Date(timeIntervalSinceReferenceDate: seconds)
      #expect(try roundTrip(date).decoded == date, "\(seconds)")
    }
  }

  @Test func dateParsesSQLiteTextForms() throws {
    let cases: [(String, Double)] = [
      ("2024-02-29", 1_709_164_800),
      ("2024-02-29 12:30", 1_709_209_800),
      ("2024-02-29T12:30:15", 1_709_209_815),
      ("2024-02-29 12:30:15.5Z", 1_709_209_815.5),
      ("2024-02-29T12:30:15+01:00", 1_709_206_215),
    ]
    for (text, seconds) in cases {
      let date = try #require(Date.fromDatabaseValue(text.databaseValue), "\(text)")
      #expect(date.timeIntervalSince1970 == seconds, "\(text)")
    }
    for bad in ["2023-02-29", "2024-13-01", "yesterday", "2024-01-01 25:00", "2024-01-01 10:00x"] {
      #expect(Date.fromDatabaseValue(bad.databaseValue) == nil, "\(bad)")
    }
    let fromSQLite = try db.read { try Date.fetchOne($0, sql: "SELECT datetime(0, 'unixepoch')") }
    #expect(fromSQLite == Date(timeIntervalSince1970: 0))
  }

  @Test func uuidIsStoredAsLowercaseText() throws {
    let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    let stored = try roundTrip(uuid)
    #expect(stored.type == "text")
    #expect(stored.stored == "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")
    #expect(stored.decoded == uuid)
  }

  @Test func textAndBlobsCrossUnchanged() throws {
    let text = "naïve 🐦 \"quoted\" 'single' \u{0}nul"
    #expect(try roundTrip(text).decoded == text)
    #expect(try roundTrip("").decoded == "")
    let blob = Data([0, 1, 2, 255, 0])
    #expect(try roundTrip(blob).type == "blob")
    #expect(try roundTrip(blob).decoded == blob)
    #expect(try roundTrip(Data()).type == "blob")
  }

  @Test func optionalsStoreNullAndDecodeNil() throws {
    let none: Int? = nil
    let stored = try roundTrip(none)
    #expect(stored.type == "null")
    #expect(stored.decoded == nil)
    #expect(try roundTrip(Int?.some(3)).decoded == 3)
  }

  @Test func mismatchesAreTypedErrors() throws {
    try db.read { db in
      let row = try Row.fetchOne(db, sql: "SELECT NULL AS a, 'x' AS b, 3.5 AS c")!
      #expect(throws: RowDecodingError.self) { try row["a"] as Int }
      #expect(throws: RowDecodingError.self) { try row["b"] as Int }
      #expect(throws: RowDecodingError.self) { try row["c"] as Int }
      #expect(throws: RowDecodingError.self) { try row["missing"] as Int? }
      #expect(throws: RowDecodingError.self) { try row[3] as Int? }
      do {
        _ = try row["b"] as Int
        Issue.record("expected an error")
      } catch let error as RowDecodingError {
        #expect(error.reason == .valueMismatch)
        #expect(error.value == "'x'")
        #expect(error.sql == "SELECT NULL AS a, 'x' AS b, 3.5 AS c")
      }
      #expect(try row["a"] as Int? == nil)
      #expect(try row["c"] as Double == 3.5)
    }
  }
}
