import Foundation

/// Reads standard input as UTF-8 text (for `--notes -`), refusing invalid bytes and more
/// than `limit` bytes.
public func readStandardInput(limit: Int) throws -> String {
  var data = Data()
  while let chunk = try FileHandle.standardInput.read(upToCount: 65_536), !chunk.isEmpty {
    data += chunk
    if data.count > limit {
      throw CommandError.usage(
        "the input is longer than \(byteCount(limit)); nothing was saved")
    }
  }
  guard let text = String(validating: data, as: UTF8.self) else {
    throw CommandError.usage("the input is not valid UTF-8 text; nothing was saved")
  }
  return text
}

/// `1 MiB`, `512 KiB`, `300 bytes`.
public func byteCount(_ count: Int) -> String {
  if count >= 1 << 20, count % (1 << 20) == 0 { return "\(count >> 20) MiB" }
  if count >= 1 << 20 { return String(format: "%.1f MiB", Double(count) / Double(1 << 20)) }
  if count >= 1 << 10 { return "\(count >> 10) KiB" }
  return "\(count) bytes"
}
