import Foundation
import HearthWire
import Testing

/// The hub's front door, `WireRequest.parse`: typed refusals, and the fuzzer's corpus
/// replayed so that every test run keeps what the fuzzer once found.
@Suite struct WireRequestTests {
  static let limits = WireRequest.Limits(
    maximumMessageSize: 1 << 16, maximumStatementsPerMessage: 4)

  func refusal(_ text: String, limits: WireRequest.Limits = limits) -> ErrorReply? {
    guard case .failure(let refusal) = WireRequest.parse(Data(text.utf8), limits: limits) else {
      return nil
    }
    return refusal
  }

  @Test func fieldsOutsideTheirStatedRangesAreMalformed() {
    for (frame, message) in [
      (
        #"{"v": 1, "type": "transaction", "id": "a", "plugin": "p", "statements": [], "part": -1}"#,
        "part is 0 or more, not -1"
      ),
      (
        #"{"v": 1, "type": "changes", "id": "a", "since": -1}"#,
        "since is a sequence number, 0 or more, not -1"
      ),
      (
        #"{"v": 1, "type": "changes", "id": "a", "since": 0, "limit": 0}"#,
        "limit is 1 to 10000, not 0"
      ),
      (
        #"{"v": 1, "type": "changes", "id": "a", "since": 0, "limit": 10001}"#,
        "limit is 1 to 10000, not 10001"
      ),
      (
        #"{"v": 1, "type": "cursor", "id": "a", "plugin": "p", "seq": -5}"#,
        "seq is a sequence number, 0 or more, not -5"
      ),
    ] {
      let refused = refusal(frame)
      #expect(refused?.code == .malformed, "\(frame)")
      #expect(refused?.id == "a")
      #expect(refused?.message == message)
    }
    // The edges themselves are fine.
    #expect(refusal(#"{"v": 1, "type": "changes", "id": "a", "since": 0, "limit": 1}"#) == nil)
    #expect(refusal(#"{"v": 1, "type": "changes", "id": "a", "since": 0, "limit": 10000}"#) == nil)
    #expect(
      refusal(
        #"{"v": 1, "type": "transaction", "id": "a", "plugin": "p", "statements": [], "part": 0}"#)
        == nil)
  }

  @Test func eachKindOfBadFrameGetsItsTypedRefusal() {
    #expect(refusal("garbage")?.code == .malformed)
    #expect(refusal("[1, 2]")?.code == .malformed)
    #expect(refusal(#"{"v": 2, "type": "hello", "id": "a"}"#)?.code == .unsupportedVersion)
    #expect(refusal(#"{"v": 2, "type": "hello", "id": "a"}"#)?.id == "a")
    #expect(refusal(#"{"v": 1, "type": "drop", "id": "a"}"#)?.code == .unknownType)
    #expect(
      refusal(#"{"v": 1, "type": "cursor", "id": "a", "plugin": "p", "seq": "x"}"#)?.code
        == .malformed)
    #expect(
      refusal(
        #"{"v": 1, "type": "hello", "id": "a"}"#,
        limits: .init(maximumMessageSize: 10, maximumStatementsPerMessage: 1))?
        .code == .tooLarge)
    let five = Array(repeating: #"{"sql": "SELECT 1"}"#, count: 5).joined(separator: ",")
    #expect(
      refusal(
        #"{"v": 1, "type": "transaction", "id": "a", "plugin": "p", "statements": [\#(five)]}"#)?
        .code == .tooManyStatements)
    #expect(
      refusal(
        #"{"v": 1, "type": "transaction", "id": "a", "plugin": "p", "statements": [], "end": "maybe"}"#
      )?
      .code == .malformed)
    #expect(
      refusal(
        #"{"v": 1, "type": "register", "id": "a", "plugin": "p", "version": "1", "tables": ["hearth_x"], "migrations": []}"#
      )?
      .code == .unauthorized)
    #expect(
      refusal(
        #"{"v": 1, "type": "register", "id": "a", "plugin": "", "version": "1", "tables": [], "migrations": []}"#
      )?
      .code == .malformed)
  }

  @Test func aGoodRequestIsAcceptedAsItWasSent() throws {
    let text =
      #"{"v": 1, "type": "transaction", "id": "t1", "plugin": "p", "statements": [{"sql": "INSERT INTO t VALUES (?)", "args": [{"int": "-9223372036854775808"}]}], "end": "commit"}"#
    let parsed = WireRequest.parse(Data(text.utf8), limits: Self.limits)
    guard case .success(.transaction(let request)) = parsed else {
      Issue.record("refused: \(parsed)")
      return
    }
    #expect(request.id == "t1" && request.end == "commit")
    #expect(request.statements[0].args?[0].value == .init(storage: .integer(.min)))
  }

  @Test func theFuzzCorpusKeepsTheProperties() throws {
    let corpus = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fuzz/corpus/wire-request")
    let files = try FileManager.default.contentsOfDirectory(atPath: corpus.path)
    #expect(files.count > 10)
    for file in files {
      let body = try Data(contentsOf: corpus.appendingPathComponent(file))
      for limits in [
        Self.limits, .init(maximumMessageSize: 1 << 16, maximumStatementsPerMessage: 64),
      ] {
        let broken = WireRequest.brokenProperty(of: body, limits: limits)
        #expect(broken == nil, "\(file): \(broken ?? "")")
      }
    }
  }
}
