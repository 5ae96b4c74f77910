import Foundation

/// Request ids as clients make them: a random (version 4) UUID in lowercase text. Made from
/// one `arc4random_buf` (one `getrandom` call) and formatted here: Foundation's `UUID()`
/// opens, reads and closes `/dev/urandom` for each id, three system calls on every write.
public enum RequestID {
  public static func random() -> String {
    var bytes: (UInt64, UInt64) = (0, 0)
    withUnsafeMutableBytes(of: &bytes) { arc4random_buf($0.baseAddress!, 16) }
    return withUnsafeBytes(of: &bytes) { text(of: $0) }
  }

  /// `bytes` (16) as a version-4 UUID's text: `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`, with y
  /// one of 8, 9, a or b.
  static func text(of bytes: UnsafeRawBufferPointer) -> String {
    let hex = Array("0123456789abcdef".utf8)
    return String(unsafeUninitializedCapacity: 36) { text in
      var at = 0
      for index in 0..<16 {
        var byte = bytes[index]
        if index == 6 { byte = byte & 0x0F | 0x40 }
        if index == 8 { byte = byte & 0x3F | 0x80 }
        if index == 4 || index == 6 || index == 8 || index == 10 {
          text[at] = UInt8(ascii: "-")
          at += 1
        }
        text[at] = hex[Int(byte >> 4)]
        text[at + 1] = hex[Int(byte & 0x0F)]
        at += 2
      }
      return at
    }
  }
}
