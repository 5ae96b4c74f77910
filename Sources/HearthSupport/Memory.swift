import Foundation

/// The process's heap.
public enum Memory {
  /// Hands memory that was freed back to the system. glibc keeps freed memory for reuse,
  /// so after a burst (large replies built and let go) the resident size stays at its peak
  /// until this is called. `malloc_trim` is looked up at run time: Swift's Glibc module
  /// does not declare it.
  public static func returnFreedToSystem() {
    guard let symbol = trim else { return }
    _ = symbol(0)
  }

  private typealias Trim = @convention(c) (Int) -> Int32

  private static let trim: Trim? = dlsym(nil, "malloc_trim").map {
    unsafeBitCast($0, to: Trim.self)
  }
}

/// `0 bytes`, `512 bytes`, `330 KiB`, `32.0 MiB`, `1.2 GiB`: binary units, as settings
/// (`wal-limit-mb = 32` is 32 MiB) and `ls -h` count.
public func binarySize(_ bytes: Int) -> String {
  guard bytes >= 1_024 else { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
  var value = Double(bytes) / 1_024
  var units = ["KiB", "MiB", "GiB"][...]
  while value >= 1_024, units.count > 1 {
    value /= 1_024
    units.removeFirst()
  }
  return String(format: value < 100 ? "%.1f " : "%.0f ", value) + units.first!
}
