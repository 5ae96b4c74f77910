import Foundation
import HearthSQLite
import HearthWire
import Testing

/// The `transaction` message's own writer and reader against Foundation's coders: what one writes, the
/// other reads as the same request, and what the fast decoder accepts, the general one
/// reads the same way.
@Suite struct TransactionReaderTests {
  /// A deterministic generator (the tests' seeds are fixed).
  struct Seeded {
    var state: UInt64
    mutating func next(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(bound))
    }
  }

  static let texts = [
    "", "plain", "quote \" and backslash \\", "line\nbreak\ttab\r", "\u{01}\u{1f} controls",
    "é ü ß", "emoji 😀 👩‍👩‍👧", "slash / and \u{2028}", "nul \u{0} inside",
  ]

  static func value(_ random: inout Seeded) -> WireValue {
    switch random.next(8) {
    case 0: WireValue(.null)
    case 1:
      WireValue(
        DatabaseValue(storage: .integer([Int64.min, Int64.max, 0, -1, 42][random.next(5)])))
    case 2:
      WireValue(
        DatabaseValue(
          storage: .double(
            [0.1, -0.0, 1e-300, 1.7976931348623157e308, .infinity, -.infinity, 3][random.next(7)])))
    case 3, 4: WireValue(DatabaseValue(storage: .text(texts[random.next(texts.count)])))
    case 5:
      WireValue(
        DatabaseValue(storage: .blob(Data((0..<random.next(40)).map { UInt8($0 * 7 % 256) }))))
    default: WireValue(DatabaseValue(storage: .integer(Int64(random.next(1_000_000)))))
    }
  }

  static func request(_ seed: UInt64) -> TransactionRequest {
    var random = Seeded(state: seed)
    let statements = (0..<random.next(6)).map { _ in
      WireStatement(
        sql: texts[random.next(texts.count)] + " INSERT INTO t VALUES (?)",
        args: random.next(3) == 0 ? nil : (0..<random.next(5)).map { _ in value(&random) },
        rows: [nil, true, false][random.next(3)])
    }
    var request = TransactionRequest(
      id: texts[random.next(texts.count)] + "\(seed)", plugin: "p\(random.next(9))",
      statements: statements, part: random.next(3),
      end: [nil, "commit", "rollback"][random.next(3)])
    if random.next(4) == 0 { request.part = nil }
    request.results = [nil, "all", "none"][random.next(3)]
    return request
  }

  @Test func eitherCodecReadsWhatEitherWrote() throws {
    for seed in UInt64(0)..<300 {
      let request = Self.request(seed)
      let ours = try WireCoding.encode(request)
      let foundations = try JSONEncoder().encode(request)
      #expect(TransactionRequest.scanned(from: ours) == request, "seed \(seed)")
      #expect(TransactionRequest.scanned(from: foundations) == request, "seed \(seed)")
      #expect(
        try JSONDecoder().decode(TransactionRequest.self, from: ours) == request, "seed \(seed)")
    }
  }

  @Test func whatTheFastDecoderAcceptsTheGeneralOneReadsTheSame() throws {
    let valid = Array(try WireCoding.encode(Self.request(7)))
    var random = Seeded(state: 99)
    var accepted = 0
    for _ in 0..<3_000 {
      var bytes = valid
      for _ in 0...random.next(3) {
        let at = random.next(bytes.count)
        switch random.next(3) {
        case 0: bytes[at] = Array(#"{}[]",:\ 0123456789.eE+-tfnul"ab"#.utf8)[random.next(30)]
        case 1: bytes.remove(at: at)
        default: bytes.insert(bytes[random.next(bytes.count)], at: at)
        }
      }
      let body = Data(bytes)
      guard let fast = TransactionRequest.scanned(from: body) else { continue }
      accepted += 1
      #expect(
        (try? JSONDecoder().decode(TransactionRequest.self, from: body)) == fast,
        "\(String(decoding: body, as: UTF8.self))")
    }
    #expect(accepted > 10)  // mutations inside strings and numbers keep the message valid
  }

  @Test func anythingUnusualGoesTheGeneralWay() {
    let base = #""v":1,"type":"transaction","id":"a","plugin":"p","statements":[]"#
    for body in [
      #"{\#(base),"extra":1}"#,  // a key of no message
      #"{\#(base),"id":"b"}"#,  // a key twice
      #"{"v":1,"type":"changes","id":"a","plugin":"p","statements":[]}"#,
      #"{\#(base)} trailing"#,
      #"{"v":1.0,"type":"transaction","id":"a","plugin":"p","statements":[]}"#,
      #"{\#(base),"part":"0"}"#,
      #"{"v":1,"type":"transaction","id":"a","plugin":"p","statements":[{"sql":"x","args":[{"int":"1","text":"y"}]}]}"#,
      #"{"v":1,"type":"transaction","id":"\ud800","plugin":"p","statements":[]}"#,
    ] {
      #expect(TransactionRequest.scanned(from: Data(body.utf8)) == nil, "\(body)")
    }
    let escaped =
      #"{"v":1,"type":"transaction","id":"\u00e9\ud83d\ude00\/","plugin":"p","statements":[]}"#
    #expect(TransactionRequest.scanned(from: Data(escaped.utf8))?.id == "é😀/")
  }

  @Test func resultsRepliesReadTheSameEitherWay() throws {
    var random = Seeded(state: 5)
    for round in 0..<200 {
      let results = (0..<random.next(4)).map { _ in
        let columns = (0..<random.next(3)).map { _ in Self.texts[random.next(Self.texts.count)] }
        return WireResult(
          columns: columns,
          rows: (0..<random.next(3)).map { _ in columns.map { _ in Self.value(&random) } },
          changes: random.next(5), lastRowID: [0, -1, .max, .min, 7][random.next(5)])
      }
      let reply = ResultsReply(id: "r\(round)", results: results)
      let ours = try WireCoding.encode(reply)
      #expect(try JSONDecoder().decode(ResultsReply.self, from: ours) == reply, "\(round)")
      #expect(ResultsReply.scanned(from: try JSONEncoder().encode(reply)) == reply, "\(round)")
      #expect(try WireCoding.decode(ResultsReply.self, from: ours) == reply, "\(round)")
    }
    #expect(ResultsReply.scanned(from: Data(#"{"v":1,"type":"results","id":"x"}"#.utf8)) == nil)
  }

  @Test func anEnvelopeReadsAsTheGeneralDecoderReadsIt() throws {
    let messages: [Data] = [
      try WireCoding.encode(Self.request(3)),
      try WireCoding.encode(
        ResultsReply(
          id: "r",
          results: [
            WireResult(
              columns: ["a"], rows: [[WireValue(DatabaseValue(storage: .text("t")))]], changes: 1,
              lastRowID: 2)
          ])),
      try WireCoding.encode(ErrorReply(id: nil, code: .malformed, message: "nope \u{1}")),
      try WireCoding.encode(HelloRequest(id: "h")),
      Data(#"{"v":1,"type":"x","id":null,"deep":[[{"a":[1.5e3,-0,true,false,null,"s"]}]]}"#.utf8),
    ]
    var random = Seeded(state: 11)
    var accepted = 0
    for message in messages {
      let envelope = try #require(WireEnvelope.scanned(from: message), "\(message)")
      #expect(try JSONDecoder().decode(WireEnvelope.self, from: message) == envelope)
      for _ in 0..<1_000 {
        var bytes = Array(message)
        let at = random.next(bytes.count)
        switch random.next(3) {
        case 0: bytes[at] = Array(#"{}[]",:\ 0123456789.eE+-tfnul"ab"#.utf8)[random.next(30)]
        case 1: bytes.remove(at: at)
        default: bytes.insert(bytes[random.next(bytes.count)], at: at)
        }
        guard let fast = WireEnvelope.scanned(from: Data(bytes)) else { continue }
        accepted += 1
        #expect(
          (try? JSONDecoder().decode(WireEnvelope.self, from: Data(bytes))) == fast,
          "\(String(decoding: bytes, as: UTF8.self))")
      }
    }
    #expect(accepted > 100)
    #expect(WireEnvelope.scanned(from: Data(#"{"v":1,"type":"x","type":"y"}"#.utf8)) == nil)
  }
}
