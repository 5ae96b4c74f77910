import Glibc

/// Says when the entries of a directory change: an inotify descriptor to poll beside the
/// others, readable once something was created, removed, renamed or written in it. Where a
/// reader would otherwise `stat` the directory before every use, this costs nothing until
/// the directory changes (and `inotify` reports every change, where a directory's time moves
/// in clock ticks).
///
/// Owned by one thread. The watch ends when the directory itself is removed or renamed
/// (`isWatching` is then false, and the reader goes back to looking for itself).
public final class DirectoryWatch {
  /// Poll it for reading; `drain` once it is readable.
  public let descriptor: Int32
  /// Whether changes are still reported: false once the directory went away.
  public private(set) var isWatching = true

  /// Watches `path`; nil when it cannot (no such directory, or no inotify left).
  public init?(path: String) {
    descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
    guard descriptor >= 0 else { return nil }
    let events =
      IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_MODIFY
      | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR
    guard inotify_add_watch(descriptor, path, UInt32(events)) >= 0 else {
      close(descriptor)
      return nil
    }
  }

  deinit { close(descriptor) }

  /// Reads every event waiting; true when there was one (the directory changed, or the
  /// kernel's queue overflowed and changes may have been lost: either way, look again).
  @discardableResult
  public func drain() -> Bool {
    var changed = false
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return changed }
      changed = true
      var offset = 0
      while offset + MemoryLayout<inotify_event>.size <= count {
        let (mask, nameLength) = buffer.withUnsafeBytes {
          let event = $0.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
          return (event.mask, Int(event.len))
        }
        if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 { isWatching = false }
        offset += MemoryLayout<inotify_event>.size + nameLength
      }
    }
  }
}
