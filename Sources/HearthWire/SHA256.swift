import CCrypto
import Foundation

/// SHA-256 (FIPS 180-4), for naming files by their content (attachments' images, and the
/// files sync carries): OpenSSL's, which uses the processor's SHA instructions where it has
/// them (Foundation on Linux has no digest API; libpq links libcrypto already). The tests
/// check it against the standard's test vectors.
public enum SHA256 {
  /// The digest of `data` as 64 lowercase hex digits.
  public static func hex(_ data: Data) -> String {
    var digest = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    let done = data.withUnsafeBytes { bytes in
      EVP_Digest(bytes.baseAddress, bytes.count, &digest, &length, EVP_sha256(), nil)
    }
    precondition(done == 1 && length == 32, "OpenSSL's SHA-256 failed")
    return Hex.encode(digest)
  }

  /// Whether `text` is a digest as `hex` writes it.
  public static func isDigest(_ text: String) -> Bool {
    text.utf8.count == 64
      && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
  }
}

/// Bytes as lowercase hex digits, and back (the text form PostgreSQL takes and gives).
public enum Hex {
  private static let digits = Array("0123456789abcdef".utf8)

  public static func encode(_ bytes: some Collection<UInt8>) -> String {
    var text = [UInt8](repeating: 0, count: bytes.count * 2)
    var index = 0
    for byte in bytes {
      text[index] = digits[Int(byte >> 4)]
      text[index + 1] = digits[Int(byte & 0x0F)]
      index += 2
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// The bytes of `text` (hex digits, either case); nil when it is not hex.
  public static func decode(_ text: String) -> [UInt8]? {
    let digits = Array(text.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var bytes = [UInt8](repeating: 0, count: digits.count / 2)
    for index in bytes.indices {
      guard let high = value(of: digits[2 * index]), let low = value(of: digits[2 * index + 1])
      else { return nil }
      bytes[index] = high << 4 | low
    }
    return bytes
  }

  static func value(of digit: UInt8) -> UInt8? {
    switch digit {
    case 0x30...0x39: digit - 0x30
    case 0x61...0x66: digit - 0x61 + 10
    case 0x41...0x46: digit - 0x41 + 10
    default: nil
    }
  }
}
