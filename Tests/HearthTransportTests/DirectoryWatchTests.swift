import Foundation
import Testing

@testable import HearthTransport

/// The keyring's watch: its descriptor is readable after each change of the directory's
/// entries and not before, and the watch says when the directory itself is gone.
@Suite struct DirectoryWatchTests {
  /// Whether `watch`'s descriptor is readable now.
  func isReadable(_ watch: DirectoryWatch) throws -> Bool {
    try !Descriptors.wait([(watch.descriptor, .readable)], timeout: .zero)[0].isEmpty
  }

  @Test func eachChangeOfTheEntriesIsReportedOnceAndTheDirectorysEndEndsTheWatch() throws {
    let directory = NSTemporaryDirectory() + "hearth-watch-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    #expect(DirectoryWatch(path: directory + "/missing") == nil)
    let watch = try #require(DirectoryWatch(path: directory))
    #expect(try !isReadable(watch))
    #expect(!watch.drain())

    let changes: [(String, () throws -> Void)] = [
      ("a file made", { try Data("k".utf8).write(to: URL(fileURLWithPath: directory + "/a.key")) }),
      (
        "a file renamed",
        {
          try FileManager.default.moveItem(
            atPath: directory + "/a.key", toPath: directory + "/a.revoked")
        }
      ),
      ("a file linked", { #expect(link(directory + "/a.revoked", directory + "/b.key") == 0) }),
      ("a file removed", { try FileManager.default.removeItem(atPath: directory + "/b.key") }),
    ]
    for (change, make) in changes {
      try make()
      #expect(try isReadable(watch), "\(change)")
      #expect(watch.drain(), "\(change)")
      #expect(try !isReadable(watch), "\(change): drained")
      #expect(watch.isWatching)
    }

    try FileManager.default.removeItem(atPath: directory)
    #expect(try isReadable(watch))
    watch.drain()
    #expect(!watch.isWatching)
  }
}
