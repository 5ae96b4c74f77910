import Foundation
import HearthSQLite
import HearthWire
import Testing

/// The hub's own writer of the `commit` event and the `committed` reply against
/// `JSONEncoder` (byte for byte), and the writer's reader of the reply against `JSONDecoder`.
@Suite struct CommitCodecTests {
  typealias Seeded = TransactionReaderTests.Seeded

  static func foundationJSON(_ value: some Encodable) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return try encoder.encode(value)
  }

  static func changes(_ random: inout Seeded) -> TableChanges {
    let rowIDs = { (random: inout Seeded) in
      (0..<random.next(4)).map { _ in [1, 2, 10, 11, 100, -5, .max][random.next(7)] as Int64 }
    }
    let updated = rowIDs(&random)
    let columns = ["title", "notes", "isDone", "é", "a\"b"]
    var changes = TableChanges(
      insertedRowIDs: rowIDs(&random), updatedRowIDs: updated, deletedRowIDs: rowIDs(&random),
      rowIDsAreKnown: random.next(5) != 0)
    if random.next(2) == 0 {
      changes.updatedColumns = Array(columns.prefix(random.next(columns.count)))
      changes.updatedColumnsByRow = Dictionary(
        updated.map { ($0, Array(columns.prefix(random.next(columns.count)))) },
        uniquingKeysWith: { first, _ in first })
    }
    if random.next(3) == 0 {
      changes.primaryKeys = Dictionary(
        (updated + rowIDs(&random)).map { rowID in
          (rowID, (0..<random.next(3)).map { _ in TransactionReaderTests.value(&random).value })
        }, uniquingKeysWith: { first, _ in first })
    }
    return changes
  }

  static func isDouble(_ value: DatabaseValue) -> Bool {
    if case .double = value.storage { true } else { false }
  }

  @Test func commitEventsAreWhatJSONEncoderWrites() throws {
    var random = Seeded(state: 21)
    let texts = TransactionReaderTests.texts
    for round in 0..<300 {
      let tables = Dictionary(
        (0..<random.next(4)).map { _ in
          (["w0_rows", "W1_rows", "notes", "é", "Zeta", "zeta", "a b"][random.next(7)], 0)
        }, uniquingKeysWith: { first, _ in first }
      ).mapValues { _ in Self.changes(&random) }
      let event = CommitEvent(
        hub: "hub-\(round)", seq: Int64(random.next(1_000_000)), plugin: texts[random.next(9)],
        request: texts[random.next(9)] + "\(round)", at: 1_700_000_000_000 + Int64(round),
        changes: DatabaseChanges(tables: tables, isSchemaChanged: random.next(4) == 0))
      let ours = try WireCoding.encode(event)
      let values = event.tables.values.flatMap { ($0.primaryKeys ?? [:]).values.joined() }
      if !values.contains(where: Self.isDouble) {
        // (A double's digits are each writer's own; the value read back is the same.)
        #expect(ours == (try Self.foundationJSON(event)), "round \(round)")
      }
      // (What an empty list of columns or keys becomes is `TableChanges`' own encoding's.)
      #expect(
        try JSONDecoder().decode(CommitEvent.self, from: ours)
          == JSONDecoder().decode(CommitEvent.self, from: Self.foundationJSON(event)),
        "round \(round)")
    }
  }

  @Test func committedRepliesReadAndWriteAsFoundationsDo() throws {
    var random = Seeded(state: 8)
    for round in 0..<300 {
      let results = (0..<random.next(3)).map { _ in
        WireResult(
          columns: ["id"],
          rows: (0..<random.next(3)).map { _ in [TransactionReaderTests.value(&random)] },
          changes: random.next(4), lastRowID: Int64(random.next(99)))
      }
      let reply = CommittedReply(
        id: "c\(round)", seq: Int64(random.next(1_000)), results: results,
        duplicate: [nil, true, false][random.next(3)],
        rolledBack: [nil, true, false][random.next(3)])
      let ours = try WireCoding.encode(reply)
      if !results.flatMap({ $0.rows.joined() }).map(\.value).contains(where: Self.isDouble) {
        #expect(ours == (try Self.foundationJSON(reply)), "round \(round)")
      }
      #expect(try JSONDecoder().decode(CommittedReply.self, from: ours) == reply, "round \(round)")
      #expect(CommittedReply.scanned(from: try JSONEncoder().encode(reply)) == reply)
      #expect(try WireCoding.decode(CommittedReply.self, from: ours) == reply, "round \(round)")
    }
  }

  @Test func anUnusualReplyGoesTheGeneralWay() throws {
    let base = #""v":1,"type":"committed","id":"a","seq":3,"results":[]"#
    for body in [
      #"{\#(base),"extra":1}"#, #"{\#(base),"seq":4}"#, #"{\#(base),"duplicate":1}"#,
      #"{"v":1,"type":"results","id":"a","seq":3,"results":[]}"#, #"{\#(base)} x"#,
      #"{"v":1,"type":"committed","id":"a","results":[]}"#,
    ] {
      #expect(CommittedReply.scanned(from: Data(body.utf8)) == nil, "\(body)")
    }
    let reply = try #require(
      CommittedReply.scanned(from: Data(#"{\#(base),"duplicate":null,"rolledBack":true}"#.utf8))
    )
    #expect(reply.duplicate == nil && reply.rolledBack == true && reply.seq == 3)
    // What the fast reader accepts after any small corruption, the general one reads the same.
    let valid = Array(
      try WireCoding.encode(
        CommittedReply(
          id: "x", seq: 12,
          results: [
            WireResult(
              columns: ["a"], rows: [[WireValue(DatabaseValue(storage: .integer(5)))]],
              changes: 1, lastRowID: 9)
          ], duplicate: true)))
    var random = Seeded(state: 4)
    var accepted = 0
    for _ in 0..<3_000 {
      var bytes = valid
      let at = random.next(bytes.count)
      switch random.next(3) {
      case 0: bytes[at] = Array(#"{}[]",:\ 0123456789.eE+-tfnul"ab"#.utf8)[random.next(30)]
      case 1: bytes.remove(at: at)
      default: bytes.insert(bytes[random.next(bytes.count)], at: at)
      }
      guard let fast = CommittedReply.scanned(from: Data(bytes)) else { continue }
      accepted += 1
      #expect((try? JSONDecoder().decode(CommittedReply.self, from: Data(bytes))) == fast)
    }
    #expect(accepted > 10)
  }
}
