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
