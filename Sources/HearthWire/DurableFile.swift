import Foundation

/// A file written whole and durably, as content-named files are (attachments' images and
/// the files sync carries): to a temporary name beside it, synced, renamed over the name,
/// then the rename synced. A reader never sees half a file, and once `write` returns, a
/// crash leaves the name with all its bytes — so a row that names the file may then be
/// committed.
public enum DurableFile {
  public static func write(_ data: Data, to target: URL) throws {
    let directory = target.deletingLastPathComponent()
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let temporary = directory.appendingPathComponent(
      ".\(target.lastPathComponent).\(getpid()).tmp")
    do {
      guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
      }
      let file = try FileHandle(forWritingTo: temporary)
      defer { try? file.close() }
      try file.write(contentsOf: data)
      try file.synchronize()
      guard rename(temporary.path, target.path) == 0 else {
        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
      }
    } catch {
      try? FileManager.default.removeItem(at: temporary)
      throw error
    }
    let parent = try FileHandle(forReadingFrom: directory)
    defer { try? parent.close() }
    try parent.synchronize()
  }
}
