import Foundation
import HearthSupport
import HearthWire
import Testing

@testable import HearthTransport

/// `Noise_IK_25519_ChaChaPoly_BLAKE2b` against the published test vectors of two other
/// implementations (cacophony's and snow's, in Tests/vectors/noise-ik.json): both
/// handshake messages and the transport messages after them, byte for byte, and the
/// handshake hash; then what a wrong key, a changed byte or a replayed message does.
@Suite struct NoiseTests {
  struct Vector: Decodable {
    var source: String
    var init_prologue: String
    var init_static: String
    var init_ephemeral: String
    var init_remote_static: String
    var resp_static: String
    var resp_ephemeral: String
    var handshake_hash: String?
    var messages: [Message]

    struct Message: Decodable {
      var payload: String
      var ciphertext: String
    }
  }

  static func vectors() throws -> [Vector] {
    let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("vectors/noise-ik.json")
    struct File: Decodable { var vectors: [Vector] }
    return try JSONDecoder().decode(File.self, from: Data(contentsOf: file)).vectors
  }

  static func bytes(_ hex: String) throws -> Data { Data(try #require(Hex.decode(hex))) }

  @Test func thePublishedVectorsHold() throws {
    let vectors = try Self.vectors()
    #expect(vectors.count == 2)
    for vector in vectors {
      let prologue = try Self.bytes(vector.init_prologue)
      let responderStatic = Noise.KeyPair(secret: try Self.bytes(vector.resp_static))
      #expect(responderStatic.publicKey == (try Self.bytes(vector.init_remote_static)))
      var initiator = NoiseIK.initiator(
        prologue: prologue, local: .init(secret: try Self.bytes(vector.init_static)),
        remoteStatic: responderStatic.publicKey,
        ephemeral: .init(secret: try Self.bytes(vector.init_ephemeral)))
      var responder = NoiseIK.responder(
        prologue: prologue, local: responderStatic,
        ephemeral: .init(secret: try Self.bytes(vector.resp_ephemeral)))
      let messages = vector.messages
      #expect(messages.count >= 4, "\(vector.source)")

      let first = try initiator.writeFirst(payload: Self.bytes(messages[0].payload))
      #expect(first == (try Self.bytes(messages[0].ciphertext)), "\(vector.source)")
      #expect(try responder.readFirst(first) == Self.bytes(messages[0].payload))
      let initiatorKey = Noise.KeyPair(secret: try Self.bytes(vector.init_static)).publicKey
      #expect(responder.remoteStatic == initiatorKey)

      let (second, responderSession) = try responder.writeSecond(
        payload: Self.bytes(messages[1].payload))
      #expect(second == (try Self.bytes(messages[1].ciphertext)), "\(vector.source)")
      let (payload, initiatorSession) = try initiator.readSecond(second)
      #expect(payload == (try Self.bytes(messages[1].payload)))
      #expect(initiatorSession.handshakeHash == responderSession.handshakeHash)
      if let hash = vector.handshake_hash {
        #expect(initiatorSession.handshakeHash == (try Self.bytes(hash)), "\(vector.source)")
      }

      // Transport messages alternate: initiator, responder, initiator, …
      var sessions = (initiator: initiatorSession, responder: responderSession)
      for (index, message) in messages.enumerated().dropFirst(2) {
        let plaintext = try Self.bytes(message.payload)
        let expected = try Self.bytes(message.ciphertext)
        if index % 2 == 0 {
          #expect(try sessions.initiator.send.encrypt(plaintext) == expected, "\(vector.source)")
          #expect(try sessions.responder.receive.decrypt(expected) == plaintext)
        } else {
          #expect(try sessions.responder.send.encrypt(plaintext) == expected, "\(vector.source)")
          #expect(try sessions.initiator.receive.decrypt(expected) == plaintext)
        }
      }
    }
  }

  /// A handshake between fresh keys: requests and replies round-trip; a changed byte, a
  /// replayed or reordered message, and a message sealed for the other direction are
  /// refused, and a refused message does not move the counter.
  @Test func transportMessagesAreBoundToTheSessionAndItsOrder() throws {
    let hub = Noise.KeyPair.generate()
    let client = Noise.KeyPair.generate()
    let prologue = Data("hearth/2".utf8)
    var initiator = NoiseIK.initiator(
      prologue: prologue, local: client, remoteStatic: hub.publicKey)
    var responder = NoiseIK.responder(prologue: prologue, local: hub)
    _ = try responder.readFirst(initiator.writeFirst())
    #expect(responder.remoteStatic == client.publicKey)
    let (second, hubSession) = try responder.writeSecond()
    var (_, clientSession) = try initiator.readSecond(second)
    var hubSide = hubSession

    let one = try clientSession.send.encrypt(Data("one".utf8))
    let two = try clientSession.send.encrypt(Data("two".utf8))
    // Out of order: refused, and the counter waits for the right one.
    #expect(throws: Noise.Failure.decryption) { try hubSide.receive.decrypt(two) }
    #expect(try hubSide.receive.decrypt(one) == Data("one".utf8))
    // Replayed: refused.
    #expect(throws: Noise.Failure.decryption) { try hubSide.receive.decrypt(one) }
    var changed = two
    changed[changed.startIndex + 1] ^= 1
    #expect(throws: Noise.Failure.decryption) { try hubSide.receive.decrypt(changed) }
    #expect(try hubSide.receive.decrypt(two) == Data("two".utf8))
    // The hub's own direction has its own key: a client's message reflected back fails.
    let three = try clientSession.send.encrypt(Data("three".utf8))
    #expect(throws: Noise.Failure.decryption) { try clientSession.receive.decrypt(three) }
    let reply = try hubSide.send.encrypt(Data("reply".utf8))
    #expect(try clientSession.receive.decrypt(reply) == Data("reply".utf8))
  }

  /// What the handshake refuses: another prologue (another protocol version), a first
  /// message for another hub, and a public key of small order.
  @Test func theHandshakeRefusesAnotherVersionAnotherHubAndWeakKeys() throws {
    let hub = Noise.KeyPair.generate()
    let client = Noise.KeyPair.generate()
    var old = NoiseIK.initiator(
      prologue: Data("hearth/1".utf8), local: client, remoteStatic: hub.publicKey)
    var responder = NoiseIK.responder(prologue: Data("hearth/2".utf8), local: hub)
    #expect(throws: Noise.Failure.decryption) { try responder.readFirst(old.writeFirst()) }

    var elsewhere = NoiseIK.initiator(
      prologue: Data("hearth/2".utf8), local: client,
      remoteStatic: Noise.KeyPair.generate().publicKey)
    var fresh = NoiseIK.responder(prologue: Data("hearth/2".utf8), local: hub)
    #expect(throws: Noise.Failure.decryption) { try fresh.readFirst(elsewhere.writeFirst()) }

    var weak = NoiseIK.responder(prologue: Data("hearth/2".utf8), local: hub)
    let zeros = Data(count: NoiseIK.firstMessageSize())
    #expect(throws: Noise.Failure.weakKey) { try weak.readFirst(zeros) }
    var short = NoiseIK.responder(prologue: Data("hearth/2".utf8), local: hub)
    #expect(throws: Noise.Failure.malformed) { try short.readFirst(Data(count: 20)) }
  }
}
