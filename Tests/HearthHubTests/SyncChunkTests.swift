import Foundation
import HearthPostgres
import HearthSQLite
import HearthTestbed
import HearthWire
import Testing

@testable import HearthSync

/// The server's log of pushes (schema 5: `hearth.chunks`), spoken to directly on a real
/// PostgreSQL, with no hub: appends merge nothing, a zone's records merge per column when
/// read, and a hub pages through what others appended.
extension SyncSuites {
  @Suite(.serialized) struct SyncChunkTests {
    static func record(
      _ name: String, _ fields: [String: String], at time: String, created: Bool = false,
      deleted: String? = nil
    ) -> SyncRecord {
      SyncRecord(
        type: "items", name: name,
        fields: fields.mapValues { WireValue(DatabaseValue(storage: .text($0))) },
        times: fields.mapValues { _ in time }, created: created ? time : nil, deleted: deleted)
    }

    static func time(_ milliseconds: Int64, _ hub: String) -> String {
      HybridTimestamp(milliseconds: milliseconds, hub: hub).description
    }

    @Test func appendsMergePerColumnWhenReadAndAHubPagesPastItsOwn() throws {
      let postgres = try PostgresServer()
      defer { postgres.stop() }
      let server = try SyncServer(postgres.conninfo())
      let a = Self.time(1_000_000_000_000, "a")
      let b = Self.time(1_000_000_000_001, "b")
      let old = Self.time(900_000_000_000, "b")
      let first = try server.push(
        [
          Self.record("k1", ["title": "a1", "note": "n"], at: a, created: true),
          Self.record("k2", ["title": "x"], at: a, created: true),
        ], hub: "a")
      let second = try server.push(
        [
          Self.record("k1", ["title": "b1"], at: b),
          Self.record("k2", ["title": "old"], at: old, deleted: b),
        ], hub: "b")
      #expect(second.seq > first.seq)
      // A time far ahead of the server's clock is read as the chunk's bound.
      let far = Self.time(9_999_999_999_999, "c")
      let third = try server.push([Self.record("k1", ["note": "far"], at: far)], hub: "c")
      #expect(third.bound < 9_999_999_999_999)

      // Merged as the records table held them: the later time per column, the later
      // insert and delete.
      let merged = try server.connection.execute(
        "SELECT record_name, fields::text, created, deleted FROM hearth.merged($1) "
          + "ORDER BY record_name", [server.zone]
      ).rows.map { $0.map { $0 ?? "" } }
      #expect(merged.count == 2)
      #expect(merged[0][0] == "k1")
      #expect(merged[0][1] == #"{"note": {"text": "far"}, "title": {"text": "b1"}}"#)
      #expect(merged[1][1] == #"{"title": {"text": "x"}}"#)
      #expect(merged[1][3] == b)

      // Hub a pages through what the others appended, after what it has itself.
      let page = try server.pullPage(after: .start, limit: 10, hub: "a", pushed: first.seq)
      #expect(page.last == SyncCursor(seq: third.seq))
      #expect(page.complete)
      #expect(page.records.map(\.name) == ["k1", "k2", "k1"])
      #expect(page.records.map(\.seq) == [second.seq, second.seq, third.seq])
      let clamped = try #require(page.records.last?.times["note"])
      #expect(HybridTimestamp(clamped)?.milliseconds == third.bound)
      // A page ends after the chunk that reaches the limit; the next begins after it.
      let short = try server.pullPage(after: .start, limit: 1, hub: "b", pushed: 0)
      #expect(short.records.map(\.name) == ["k1", "k2"])
      #expect(short.last == SyncCursor(seq: first.seq))
      #expect(!short.complete)
      let rest = try server.pullPage(
        after: SyncCursor(seq: first.seq), limit: 10, hub: "b", pushed: second.seq)
      #expect(rest.records.map(\.name) == ["k1"])
      #expect(rest.last == SyncCursor(seq: third.seq))
    }

    /// A compaction writes the zone's merged records as parts of at most `chunkRecords`,
    /// numbered as the last chunks they replace; a hub pulling from the start pages through
    /// them and gets every row; the zone is not compacted again for a few more edits.
    @Test func aCompactionWritesPartsAHubPagesThrough() throws {
      let postgres = try PostgresServer()
      defer { postgres.stop() }
      let server = try SyncServer(postgres.conninfo())
      _ = try server.connection.execute(
        "UPDATE hearth.meta SET value = '3' WHERE key = 'chunkRecords'")
      var seqs: [Int64] = []
      for push in 0..<10 {
        let time = Self.time(1_000_000_000_000 + Int64(push), "a")
        seqs.append(
          try server.push(
            [
              Self.record("r\(push)a", ["title": "t"], at: time, created: true),
              Self.record("r\(push)b", ["title": "t"], at: time, created: true),
            ], hub: "a"
          ).seq)
      }
      func names() throws -> [String] {
        try server.connection.execute(
          "SELECT record_name FROM hearth.merged($1) ORDER BY record_name", [server.zone]
        ).rows.map { $0[0] ?? "" }
      }
      let before = try names()
      #expect(before.count == 20)
      // Every hub of the zone pulls past them; then the zone is compacted.
      _ = try server.pullPage(after: .start, limit: 100, hub: "a", pushed: seqs.last!)
      #expect(try server.collectTombstones() == 0)
      let chunks = try server.connection.execute(
        "SELECT seq, size, origin FROM hearth.chunks WHERE zone = $1 ORDER BY seq", [server.zone]
      ).rows.map { ($0[0].flatMap { Int64($0 ?? "") }, Int($0[1] ?? "") ?? 0, $0[2] ?? "") }
      #expect(chunks.count == 7)
      #expect(chunks.allSatisfy { $0.1 <= 3 && $0.2 == "collect" })
      #expect(chunks.map(\.0) == seqs.suffix(7).map { $0 })
      #expect(try names() == before)
      // A new hub pulls from the start, a part a page.
      var cursor = SyncCursor.start
      var pulled: [String] = []
      var pages = 0
      while true {
        let page = try server.pullPage(after: cursor, limit: 3, hub: "new", pushed: 0)
        pulled += page.records.map(\.name)
        pages += 1
        guard !page.complete, let last = page.last else { break }
        cursor = last
      }
      #expect(pages == 7)
      #expect(pulled.sorted() == before)
      // Two more records are not a quarter of the compacted ones: no compaction.
      let later = try server.push(
        [Self.record("s", ["title": "t"], at: Self.time(1_000_000_000_100, "a"), created: true)],
        hub: "a")
      _ = try server.pullPage(after: .start, limit: 100, hub: "a", pushed: later.seq)
      _ = try server.pullPage(after: .start, limit: 100, hub: "new", pushed: 0)
      #expect(try server.collectTombstones() == 0)
      #expect(
        try server.connection.execute(
          "SELECT count(*) FROM hearth.chunks WHERE zone = $1", [server.zone]
        ).rows.first?.first == "8")
    }
  }
}
