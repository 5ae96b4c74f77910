import Foundation
import HearthData
import HearthHub
import HearthPlugin
import HearthWire
import Testing

/// `results: "none"`: the statements run and commit as ever, and the reply carries no
/// results (what `HubDatabase` asks for the parts and the commit whose results it never
/// reads).
@Suite struct TransactionResultsTests {
  @Test func aMessageAskingNoResultsRunsItsStatementsAndAnswersWithoutThem() throws {
    let running = try RunningHub()
    defer { running.stopAndRemove() }
    let notes = try HubDatabase.registered(notesPlugin, paths: running.paths)
    let client = try RawClient(running.paths, as: "notes")
    func message(_ id: String, part: Int, end: String?, results: String?) -> String {
      #"{"v":1,"type":"transaction","id":"\#(id)","plugin":"notes","part":\#(part),"#
        + (end.map { #""end":"\#($0)","# } ?? "") + (results.map { #""results":"\#($0)","# } ?? "")
        + #""statements":[{"sql":"INSERT INTO notes (text) VALUES ('\#(id)\#(part)')"},"#
        + #"{"sql":"SELECT count(*) FROM notes","rows":true}]}"#
    }
    let quiet = try client.send(message("t", part: 0, end: nil, results: "none"))
    #expect(quiet["type"] as? String == "results")
    #expect((quiet["results"] as? [Any])?.isEmpty == true)
    let full = try client.send(message("t", part: 1, end: nil, results: "all"))
    let rows = (full["results"] as? [[String: Any]])?.last?["rows"] as? [[[String: String]]]
    #expect(rows == [[["int": "2"]]])
    let committed = try client.send(message("t", part: 2, end: "commit", results: "none"))
    #expect(committed["type"] as? String == "committed")
    #expect((committed["results"] as? [Any])?.isEmpty == true)
    // The exactly-once record holds the reply as it was sent.
    let one = message("u", part: 0, end: "commit", results: "none")
    let first = try client.send(one)
    let again = try client.send(one)
    #expect(again["duplicate"] as? Bool == true)
    #expect(again["seq"] as? Int == first["seq"] as? Int)
    #expect((again["results"] as? [Any])?.isEmpty == true)
    let texts = try notes.read {
      try String.fetchAll($0, sql: "SELECT text FROM notes ORDER BY id")
    }
    #expect(texts == ["t0", "t1", "t2", "u0"])

    let refused = try client.send(message("v", part: 0, end: "commit", results: "some"))
    #expect(refused["code"] as? String == "malformed")
    #expect(refused["message"] as? String == #"results is "all" or "none""#)
    #expect(try notes.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM notes") } == 4)
  }

  /// A bulk closure through `HubDatabase` (its parts and commit ask no results) commits
  /// whole, and a statement that needs rows still gets them.
  @Test func aBulkClosureCommitsWholeAndReadsWhatItAsks() throws {
    let running = try RunningHub()
    defer { running.stopAndRemove() }
    let notes = try HubDatabase.registered(notesPlugin, paths: running.paths)
    let counted = try notes.write { db in
      for index in 0..<2_500 {
        try db.execute(sql: "INSERT INTO notes (text) VALUES (?)", arguments: ["n\(index)"])
      }
      return try Int.fetchOne(db, sql: "SELECT count(*) FROM notes")
    }
    #expect(counted == 2_500)
    #expect(try notes.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM notes") } == 2_500)
  }
}
