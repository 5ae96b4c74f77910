import Foundation
import HearthSQLite
import HearthWire
import Testing

@testable import HearthSync

/// The push batch's JSON is written directly, not by Foundation's coder: it must read back
/// as the same records, whatever the values.
@Suite struct PushEncodingTests {
  @Test func aBatchReadsBackAsTheRecordsItWasWrittenFrom() throws {
    let values: [DatabaseValue] = [
      .null, DatabaseValue(storage: .integer(Int64.min)), DatabaseValue(storage: .integer(42)),
      DatabaseValue(storage: .double(0.1)), DatabaseValue(storage: .double(-1e-300)),
      DatabaseValue(storage: .double(.infinity)), DatabaseValue(storage: .double(-.infinity)),
      DatabaseValue(storage: .text("quote \" backslash \\ newline \n tab \t \u{1} é 🦊")),
      DatabaseValue(storage: .text("")), DatabaseValue(storage: .blob(Data([0, 255, 10]))),
    ]
    let records = values.enumerated().map { index, value in
      SyncRecord(
        type: "table \"\(index)\"", name: "key\n\(index)",
        fields: ["column \(index)": WireValue(value), "other": WireValue(.null)],
        times: ["column \(index)": "001700000000000-0000000001-hub"],
        created: index.isMultiple(of: 2) ? "001700000000000-0000000000-hub" : nil,
        deleted: index.isMultiple(of: 3) ? "001700000000001-0000000000-hub" : nil)
    }
    let text = try JSONText.records(records)
    let decoded = try JSONDecoder().decode([SyncRecord].self, from: Data(text.utf8))
    #expect(decoded == records)
    #expect(throws: (any Error).self) {
      try JSONText.records([
        SyncRecord(
          type: "t", name: "k", fields: ["x": WireValue(DatabaseValue(storage: .double(.nan)))])
      ])
    }
  }
}
