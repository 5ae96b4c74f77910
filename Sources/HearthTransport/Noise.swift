import CSodium
import Foundation

/// The Noise protocol framework (Trevor Perrin, revision 34) as the request stream uses it:
/// `Noise_IK_25519_ChaChaPoly_BLAKE2b`, built on libsodium's X25519, ChaCha20-Poly1305 (IETF)
/// and BLAKE2b. The names and steps below are the specification's (sections 5 and 7); the
/// published test vectors check them (`NoiseTests`).
///
/// IK: the client (initiator) knows the hub's static key beforehand and sends its own,
/// encrypted, in the first message; after the second both ends hold a pair of transport
/// keys. Only the holder of the client's secret key can derive them (the `se` exchange), so
/// a process holding the hub's secret key alone cannot act as a client, and every frame
/// after the handshake is bound to it.
public enum Noise {
  public static let protocolName = "Noise_IK_25519_ChaChaPoly_BLAKE2b"
  /// DHLEN, HASHLEN and BLAKE2b's block size.
  static let keySize = 32
  static let hashSize = 64
  static let blockSize = 128
  /// The AEAD tag each encryption adds.
  public static let tagSize = 16

  /// Why a message was refused.
  public enum Failure: Error, Equatable {
    /// A message of the wrong size for its place in the handshake.
    case malformed
    /// Authentication failed: a tag did not verify.
    case decryption
    /// A public key gave an all-zero X25519 result (a point of small order).
    case weakKey
    /// A cipher state used up its nonces (2^64 − 1 messages).
    case exhausted
  }

  /// An X25519 key pair (32-byte secret and public keys).
  public struct KeyPair: Sendable {
    public let secret: Data
    public let publicKey: Data

    /// The pair of `secret` (any 32 bytes: X25519 clamps them).
    public init(secret: Data) {
      precondition(secret.count == keySize)
      var publicKey = [UInt8](repeating: 0, count: keySize)
      secret.withUnsafeBytes { _ = crypto_scalarmult_base(&publicKey, $0.baseAddress!) }
      self.secret = secret
      self.publicKey = Data(publicKey)
    }

    /// A fresh pair from the system's random source.
    public static func generate() -> KeyPair {
      var secret = [UInt8](repeating: 0, count: keySize)
      randombytes_buf(&secret, keySize)
      return KeyPair(secret: Data(secret))
    }
  }

  static func dh(_ pair: KeyPair, _ publicKey: Data) throws -> Data {
    guard publicKey.count == keySize else { throw Failure.malformed }
    var shared = [UInt8](repeating: 0, count: keySize)
    let status = pair.secret.withUnsafeBytes { secret in
      publicKey.withUnsafeBytes { crypto_scalarmult(&shared, secret.baseAddress!, $0.baseAddress!) }
    }
    // libsodium refuses a result of all zeros.
    guard status == 0 else { throw Failure.weakKey }
    return Data(shared)
  }

  static func hash(_ parts: Data...) -> Data {
    let input = parts.reduce(into: Data()) { $0 += $1 }
    var out = [UInt8](repeating: 0, count: hashSize)
    input.withUnsafeBytes {
      _ = crypto_generichash(
        &out, hashSize, $0.bindMemory(to: UInt8.self).baseAddress, UInt64($0.count), nil, 0)
    }
    return Data(out)
  }

  /// HMAC (RFC 2104) over BLAKE2b, with its 128-byte block, as the specification's HKDF
  /// uses it.
  static func hmac(key: Data, _ data: Data) -> Data {
    var block = [UInt8](repeating: 0, count: blockSize)
    let short = key.count > blockSize ? hash(key) : key
    block.replaceSubrange(0..<short.count, with: short)
    let inner = Data(block.map { $0 ^ 0x36 })
    let outer = Data(block.map { $0 ^ 0x5c })
    return hash(outer, hash(inner, data))
  }

  /// The specification's HKDF: two or three outputs of HASHLEN bytes.
  static func hkdf(_ chainingKey: Data, _ input: Data, outputs: Int) -> [Data] {
    let temporary = hmac(key: chainingKey, input)
    var result: [Data] = []
    var previous = Data()
    for index in 1...outputs {
      previous = hmac(key: temporary, previous + [UInt8(index)])
      result.append(previous)
    }
    return result
  }
}

/// A key and a counter of messages (Noise's CipherState): ChaCha20-Poly1305 with the
/// 96-bit nonce of four zero bytes and the counter, little-endian.
public struct NoiseCipher: Sendable {
  private var key: Data?
  public private(set) var nonce: UInt64 = 0

  init(key: Data? = nil) { self.key = key }

  /// `plaintext` sealed with `associated` data (returned unchanged while there is no key).
  public mutating func encrypt(_ plaintext: Data, associated: Data = Data()) throws -> Data {
    guard let key else { return plaintext }
    guard nonce < UInt64.max else { throw Noise.Failure.exhausted }
    var out = Data(count: plaintext.count + Noise.tagSize)
    Self.withIV(nonce) { iv in
      out.withUnsafeMutableBytes { out in
        plaintext.withUnsafeBytes { plain in
          associated.withUnsafeBytes { ad in
            key.withUnsafeBytes { key in
              _ = crypto_aead_chacha20poly1305_ietf_encrypt(
                out.bindMemory(to: UInt8.self).baseAddress!, nil,
                plain.bindMemory(to: UInt8.self).baseAddress, UInt64(plain.count),
                ad.bindMemory(to: UInt8.self).baseAddress, UInt64(ad.count), nil, iv,
                key.bindMemory(to: UInt8.self).baseAddress!)
            }
          }
        }
      }
    }
    nonce += 1
    return out
  }

  /// The plaintext of `ciphertext`; throws `decryption` when its tag does not verify (the
  /// counter then stays where it was).
  public mutating func decrypt(_ ciphertext: Data, associated: Data = Data()) throws -> Data {
    guard let key else { return ciphertext }
    guard nonce < UInt64.max else { throw Noise.Failure.exhausted }
    guard ciphertext.count >= Noise.tagSize else { throw Noise.Failure.decryption }
    // One byte at least: libsodium is given somewhere to write even for an empty plaintext.
    let length = ciphertext.count - Noise.tagSize
    var out = Data(count: max(1, length))
    let status = Self.withIV(nonce) { iv in
      out.withUnsafeMutableBytes { out in
        ciphertext.withUnsafeBytes { sealed in
          associated.withUnsafeBytes { ad in
            key.withUnsafeBytes { key in
              crypto_aead_chacha20poly1305_ietf_decrypt(
                out.bindMemory(to: UInt8.self).baseAddress!, nil, nil,
                sealed.bindMemory(to: UInt8.self).baseAddress!, UInt64(sealed.count),
                ad.bindMemory(to: UInt8.self).baseAddress, UInt64(ad.count), iv,
                key.bindMemory(to: UInt8.self).baseAddress!)
            }
          }
        }
      }
    }
    guard status == 0 else { throw Noise.Failure.decryption }
    nonce += 1
    return length == 0 ? Data() : out
  }

  /// Calls `body` with the 96-bit nonce of `counter`: four zero bytes, then the counter
  /// little-endian.
  private static func withIV<R>(_ counter: UInt64, _ body: (UnsafePointer<UInt8>) -> R) -> R {
    var iv: (UInt32, UInt32, UInt32) = (
      0, UInt32(truncatingIfNeeded: counter).littleEndian,
      UInt32(truncatingIfNeeded: counter >> 32).littleEndian
    )
    return withUnsafeBytes(of: &iv) { body($0.bindMemory(to: UInt8.self).baseAddress!) }
  }
}

/// The chaining key, the handshake hash and the cipher of the handshake (Noise's
/// SymmetricState).
struct NoiseSymmetric {
  var chainingKey: Data
  var handshakeHash: Data
  var cipher = NoiseCipher()

  init(protocolName: String) {
    let name = Data(protocolName.utf8)
    handshakeHash =
      name.count <= Noise.hashSize
      ? name + Data(count: Noise.hashSize - name.count) : Noise.hash(name)
    chainingKey = handshakeHash
  }

  mutating func mixKey(_ input: Data) {
    let outputs = Noise.hkdf(chainingKey, input, outputs: 2)
    chainingKey = outputs[0]
    cipher = NoiseCipher(key: outputs[1].prefix(Noise.keySize))
  }

  mutating func mixHash(_ data: Data) { handshakeHash = Noise.hash(handshakeHash, data) }

  mutating func encryptAndHash(_ plaintext: Data) throws -> Data {
    let ciphertext = try cipher.encrypt(plaintext, associated: handshakeHash)
    mixHash(ciphertext)
    return ciphertext
  }

  mutating func decryptAndHash(_ ciphertext: Data) throws -> Data {
    let plaintext = try cipher.decrypt(ciphertext, associated: handshakeHash)
    mixHash(ciphertext)
    return plaintext
  }

  /// The two transport ciphers: initiator to responder, then responder to initiator.
  func split() -> (NoiseCipher, NoiseCipher) {
    let outputs = Noise.hkdf(chainingKey, Data(), outputs: 2)
    return (
      NoiseCipher(key: outputs[0].prefix(Noise.keySize)),
      NoiseCipher(key: outputs[1].prefix(Noise.keySize))
    )
  }
}

/// The two ciphers of a finished handshake, one for each direction, and the handshake hash
/// (which names the session).
public struct NoiseSession: Sendable {
  public var send: NoiseCipher
  public var receive: NoiseCipher
  public let handshakeHash: Data
}

/// The IK handshake:
///
///     <- s
///     ...
///     -> e, es, s, ss
///     <- e, ee, se
public struct NoiseIK {
  private var symmetric: NoiseSymmetric
  private let local: Noise.KeyPair
  private let ephemeral: Noise.KeyPair
  /// The peer's static key: known beforehand by the initiator, learnt from the first
  /// message by the responder.
  public private(set) var remoteStatic: Data?
  private var remoteEphemeral: Data?

  /// The initiator's state: its static pair, the responder's public key, the prologue both
  /// ends mix in (a different one fails the handshake). `ephemeral` is for test vectors.
  public static func initiator(
    prologue: Data, local: Noise.KeyPair, remoteStatic: Data, ephemeral: Noise.KeyPair? = nil
  ) -> NoiseIK {
    var state = NoiseIK(prologue: prologue, local: local, ephemeral: ephemeral)
    state.remoteStatic = remoteStatic
    state.symmetric.mixHash(remoteStatic)
    return state
  }

  /// The responder's state: its static pair and the prologue.
  public static func responder(
    prologue: Data, local: Noise.KeyPair, ephemeral: Noise.KeyPair? = nil
  ) -> NoiseIK {
    var state = NoiseIK(prologue: prologue, local: local, ephemeral: ephemeral)
    state.symmetric.mixHash(local.publicKey)
    return state
  }

  private init(prologue: Data, local: Noise.KeyPair, ephemeral: Noise.KeyPair?) {
    symmetric = NoiseSymmetric(protocolName: Noise.protocolName)
    symmetric.mixHash(prologue)
    self.local = local
    self.ephemeral = ephemeral ?? .generate()
  }

  /// The size of the first message with a payload of `payload` bytes, and of the second.
  public static func firstMessageSize(payload: Int = 0) -> Int {
    Noise.keySize + Noise.keySize + Noise.tagSize + payload + Noise.tagSize
  }
  public static func secondMessageSize(payload: Int = 0) -> Int {
    Noise.keySize + payload + Noise.tagSize
  }

  /// The initiator's first message: e, es, s, ss, then `payload` encrypted.
  public mutating func writeFirst(payload: Data = Data()) throws -> Data {
    guard let remoteStatic else { throw Noise.Failure.malformed }
    var message = ephemeral.publicKey
    symmetric.mixHash(ephemeral.publicKey)
    symmetric.mixKey(try Noise.dh(ephemeral, remoteStatic))
    message += try symmetric.encryptAndHash(local.publicKey)
    symmetric.mixKey(try Noise.dh(local, remoteStatic))
    message += try symmetric.encryptAndHash(payload)
    return message
  }

  /// The responder reads the first message; returns its payload. The initiator's static
  /// key is then `remoteStatic`. A payload here is not yet proof of who sent it: only a
  /// transport message after the second message is.
  public mutating func readFirst(_ message: Data) throws -> Data {
    let staticSize = Noise.keySize + Noise.tagSize
    guard message.count >= Noise.keySize + staticSize + Noise.tagSize else {
      throw Noise.Failure.malformed
    }
    let bytes = Data(message)
    let remoteEphemeral = bytes.prefix(Noise.keySize)
    self.remoteEphemeral = remoteEphemeral
    symmetric.mixHash(remoteEphemeral)
    symmetric.mixKey(try Noise.dh(local, remoteEphemeral))
    let remoteStatic = try symmetric.decryptAndHash(
      bytes.subdata(in: Noise.keySize..<(Noise.keySize + staticSize)))
    self.remoteStatic = remoteStatic
    symmetric.mixKey(try Noise.dh(local, remoteStatic))
    return try symmetric.decryptAndHash(
      bytes.subdata(in: (Noise.keySize + staticSize)..<bytes.count))
  }

  /// The responder's second message: e, ee, se, then `payload` encrypted; and its session.
  public mutating func writeSecond(payload: Data = Data()) throws -> (Data, NoiseSession) {
    guard let remoteEphemeral, let remoteStatic else { throw Noise.Failure.malformed }
    var message = ephemeral.publicKey
    symmetric.mixHash(ephemeral.publicKey)
    symmetric.mixKey(try Noise.dh(ephemeral, remoteEphemeral))
    symmetric.mixKey(try Noise.dh(ephemeral, remoteStatic))
    message += try symmetric.encryptAndHash(payload)
    let (toResponder, toInitiator) = symmetric.split()
    return (
      message,
      NoiseSession(
        send: toInitiator, receive: toResponder, handshakeHash: symmetric.handshakeHash)
    )
  }

  /// The initiator reads the second message; returns its payload and the session.
  public mutating func readSecond(_ message: Data) throws -> (Data, NoiseSession) {
    guard message.count >= Noise.keySize + Noise.tagSize else { throw Noise.Failure.malformed }
    let bytes = Data(message)
    let remoteEphemeral = bytes.prefix(Noise.keySize)
    symmetric.mixHash(remoteEphemeral)
    symmetric.mixKey(try Noise.dh(ephemeral, remoteEphemeral))
    symmetric.mixKey(try Noise.dh(local, remoteEphemeral))
    let payload = try symmetric.decryptAndHash(bytes.subdata(in: Noise.keySize..<bytes.count))
    let (toResponder, toInitiator) = symmetric.split()
    return (
      payload,
      NoiseSession(
        send: toResponder, receive: toInitiator, handshakeHash: symmetric.handshakeHash)
    )
  }
}
