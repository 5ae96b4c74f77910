import CZMQ
import Foundation
import HearthWire

/// A CURVE key pair, each key in Z85 text (40 characters).
public struct CurveKeyPair: Hashable, Sendable {
  public var publicKey: String
  public var secretKey: String

  public init(publicKey: String, secretKey: String) {
    self.publicKey = publicKey
    self.secretKey = secretKey
  }

  /// A new random key pair.
  public static func generate() throws -> CurveKeyPair {
    var publicKey = [CChar](repeating: 0, count: 41)
    var secretKey = [CChar](repeating: 0, count: 41)
    guard zmq_curve_keypair(&publicKey, &secretKey) == 0 else {
      throw BusError.last("curve_keypair")
    }
    return CurveKeyPair(publicKey: text(publicKey), secretKey: text(secretKey))
  }

  /// The pair whose secret key is `secretKey` (Z85), its public key derived from it; nil
  /// when `secretKey` is not a Z85 CURVE key.
  public init?(secretKey: String) {
    guard Self.isKey(secretKey) else { return nil }
    var publicKey = [CChar](repeating: 0, count: 41)
    guard zmq_curve_public(&publicKey, secretKey) == 0 else { return nil }
    self.init(publicKey: text(publicKey), secretKey: secretKey)
  }

  /// Whether `text` is a key in Z85: 40 characters of ZeroMQ's Z85 alphabet.
  public static func isKey(_ text: String) -> Bool { Z85.isKey(text) }

  /// The 32 bytes of a key as Z85 text (how a ZAP request's binary key is named).
  public static func z85(_ key: Data) -> String? {
    guard key.count == 32 else { return nil }
    var encoded = [CChar](repeating: 0, count: 41)
    let done = key.withUnsafeBytes { bytes in
      zmq_z85_encode(&encoded, bytes.bindMemory(to: UInt8.self).baseAddress, 32) != nil
    }
    return done ? text(encoded) : nil
  }

  /// The 32 bytes a Z85 key (40 characters) names; nil when `text` is not one.
  public static func raw(_ text: String) -> Data? {
    guard isKey(text) else { return nil }
    var bytes = [UInt8](repeating: 0, count: 32)
    return zmq_z85_decode(&bytes, text) == nil ? nil : Data(bytes)
  }
}
