import Foundation
import HearthCommandLine
import HearthTransport
import HearthWire

let subscribeCommand = Command(
  "subscribe", arguments: "[TABLE…] [--since SEQ]",
  summary:
    "commits as JSON lines: from the feed after SEQ, then live, in order, none twice "
    + "(default: from now); only those that touch TABLE… when given",
  valuedOptions: ["since"]
) { input in
  let paths = hubPaths(input)
  var start = FeedFollower.Start.now
  if let text = input.option("since") {
    guard let seq = Int64(text), seq >= 0 else {
      throw CommandError.usage("--since takes a sequence number, not '\(text)'")
    }
    start = .after(seq)
  }
  // Without a hub nothing would ever come: say so now, as every other command does.
  guard hello(paths) != nil else {
    throw CommandError(
      "the hub does not answer at \(paths.requestEndpoint); start it: systemctl --user start "
        + "hearthd (or run hearthd)", exitCode: .hubUnavailable)
  }
  let database = try openDatabase(paths)
  let follower: FeedFollower
  do {
    follower = try FeedFollower(
      context: BusContext(), endpoint: paths.busEndpoint, reader: database, from: start,
      receiveHighWaterMark: 100_000)
  } catch {
    throw CommandError("cannot follow the bus at \(paths.busEndpoint): \(error)")
  }
  let tables = Set(input.positionals)
  do {
    emit(try follower.catchUp(), tables: tables)
    while true { emit(try follower.poll(timeout: .seconds(1)), tables: tables) }
  } catch {
    throw CommandError("following the feed failed: \(error)")
  }
}

/// Prints each commit that touches `tables` (all when empty) as a JSON line, at once.
private func emit(_ deliveries: [FeedFollower.Delivery], tables: Set<String>) {
  for delivery in deliveries {
    switch delivery {
    case .commit(var event):
      if !tables.isEmpty {
        event.tables = event.tables.filter { tables.contains($0.key) }
        if event.tables.isEmpty && event.schemaChanged != true { continue }
      }
      if let data = try? WireCoding.encode(event) {
        // Written at once, unbuffered: a pipe reader sees each commit as it happens.
        FileHandle.standardOutput.write(data + Data("\n".utf8))
      }
    case .missed(let after, let through):
      FileHandle.standardError.write(
        Data(
          "hearth: commits \(after + 1)…\(through) are no longer in the feed; re-read what you follow\n"
            .utf8))
    }
  }
}
