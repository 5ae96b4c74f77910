import Foundation
import HearthSQLite
import HearthWire
import Testing

@Suite struct WireMessageTests {
  func roundTrip(_ value: DatabaseValue) throws -> (json: String, back: DatabaseValue) {
    let data = try WireCoding.encode([WireValue(value)])
    let back = try WireCoding.decode([WireValue].self, from: data)
    return (String(decoding: data, as: UTF8.self), back[0].value)
  }

  @Test func valuesCrossLosslessly() throws {
    #expect(try roundTrip(.null).json == "[null]")
    let big = try roundTrip(DatabaseValue(storage: .integer(.max)))
    #expect(big.json == #"[{"int":"9223372036854775807"}]"#)
    #expect(big.back == DatabaseValue(storage: .integer(.max)))
    #expect(
      try roundTrip(DatabaseValue(storage: .integer(.min))).back
        == DatabaseValue(storage: .integer(.min)))
    for double in [
      0.1 + 0.2, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
      Double.leastNormalMagnitude / 4, .infinity,
      -.infinity,
    ] {
      let back = try roundTrip(DatabaseValue(storage: .double(double))).back
      guard case .double(let decoded) = back.storage else {
        Issue.record("not a double: \(back)")
        continue
      }
      #expect(decoded.bitPattern == double.bitPattern, "\(double)")
    }
    let text = "naïve 🐦 \"quotes\" \\ / \u{0}"
    #expect(
      try roundTrip(DatabaseValue(storage: .text(text))).back == DatabaseValue(storage: .text(text))
    )
    let blob = Data((0...255).map { UInt8($0) })
    #expect(
      try roundTrip(DatabaseValue(storage: .blob(blob))).back == DatabaseValue(storage: .blob(blob))
    )
  }

  @Test func malformedValuesAreRefused() {
    for json in [
      #"[{"int":"1.5"}]"#, #"[{"int":99}]"#, #"[{"real":"NaN"}]"#, #"[{"blob":"***"}]"#,
      #"[{"int":"1","text":"x"}]"#, #"[{}]"#, #"["bare string"]"#,
    ] {
      #expect(throws: DecodingError.self, "\(json)") {
        try WireCoding.decode([WireValue].self, from: Data(json.utf8))
      }
    }
  }

  @Test func requestsEncodeAsTheSpecShowsThem() throws {
    let request = TransactionRequest(
      id: "r-1", plugin: "reminders",
      statements: [
        WireStatement(
          sql: "INSERT INTO reminders (title) VALUES (?)", args: [WireValue("Milk".databaseValue)])
      ], end: "commit")
    let json = String(decoding: try WireCoding.encode(request), as: UTF8.self)
    #expect(
      json
        == #"{"end":"commit","id":"r-1","part":0,"plugin":"reminders","statements":[{"args":[{"text":"Milk"}],"sql":"INSERT INTO reminders (title) VALUES (?)"}],"type":"transaction","v":1}"#
    )
    let envelope = try WireCoding.decode(WireEnvelope.self, from: Data(json.utf8))
    #expect(envelope == WireEnvelope(v: 1, type: "transaction", id: "r-1"))
  }
}

@Suite struct ProtocolExampleTests {
  static let examples = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Protocols/examples")

  func load<T: Decodable>(_ name: String, as type: T.Type) throws -> T {
    try WireCoding.decode(
      T.self, from: Data(contentsOf: Self.examples.appendingPathComponent(name)))
  }

  @Test func everyExampleOfTheSpecDecodes() throws {
    _ = try load("register.json", as: RegisterRequest.self)
    _ = try load("registered.json", as: RegisteredReply.self)
    let one = try load("transaction-one-message.json", as: TransactionRequest.self)
    #expect(one.end == "commit" && one.part == 0)
    _ = try load("transaction-interactive-1.json", as: TransactionRequest.self)
    let results = try load("results.json", as: ResultsReply.self)
    #expect(results.results[0].rows[0][0].value == DatabaseValue(storage: .integer(2)))
    _ = try load("transaction-interactive-2.json", as: TransactionRequest.self)
    _ = try load("committed.json", as: CommittedReply.self)
    let event = try load("commit-event.json", as: CommitEvent.self)
    #expect(event.tables["notes"]?.insertedRowIDs == [2])
    _ = try load("heartbeat.json", as: HeartbeatEvent.self)
    _ = try load("changes.json", as: ChangesRequest.self)
    #expect(try load("cursor.json", as: CursorRequest.self).seq == 42)
    #expect(try load("cursorSaved.json", as: CursorSavedReply.self).horizon == 17)
    let error = try load("error-unauthorized.json", as: ErrorReply.self)
    #expect(error.code == .unauthorized)
    let sync = try load("sync.json", as: SyncRequest.self)
    #expect(sync.action == .status && sync.tables == ["remindersLists", "reminders"])
    #expect(try load("syncing.json", as: SyncingReply.self).pulled == 1182)
  }
}
