import CSodium
import Foundation

/// SHA-256 (FIPS 180-4), for naming image files by their content: libsodium's
/// `crypto_hash_sha256` (Foundation on Linux has no digest API; libzmq links libsodium
/// already). The tests check it against the standard's test vectors.
enum SHA256 {
  /// The digest of `data` as 64 lowercase hex digits.
  static func hex(_ data: Data) -> String {
    var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
    data.withUnsafeBytes { bytes in
      _ = crypto_hash_sha256(
        &digest, bytes.bindMemory(to: UInt8.self).baseAddress, UInt64(bytes.count))
    }
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(digest.count * 2)
    for byte in digest {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
  }
}
