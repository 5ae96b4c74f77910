import Foundation
import HearthData
import HearthPlugin
import HearthTransport
import HearthWire

/// `--raw`: the hub's own ceiling. Every transaction (one INSERT, as the writes through
/// `database.write` are) is encoded before the start, then sent as it is on the line a plugin
/// would use (`RequestLine`), and the next one goes when its reply has come: the client's
/// work per write is one send and one receive, so what is measured is the hub (and the sockets).
/// (Asking no results back, as `database.write` does.) Returns each write's latency in
/// microseconds.
func rawWrites(
  count: Int, plugin: String, table: String, transport: HubTransport, start: () -> Void
) throws -> [Double] {
  let frames = try (0..<count).map { index in
    try WireCoding.encode(
      TransactionRequest(
        id: RequestID.make(), plugin: plugin,
        statements: [
          WireStatement(
            sql: "INSERT INTO \"\(table)\" (key) VALUES (?)",
            args: [WireValue(DatabaseValue(storage: .text("\(plugin)-\(index)")))])
        ], end: "commit", results: "none"))
  }
  let committed = Array(#""type":"committed""#.utf8)
  let line = try RequestLine.open(transport, context: BusContext(), timeout: .seconds(10))
  start()
  var latencies: [Double] = []
  latencies.reserveCapacity(count)
  for (index, frame) in frames.enumerated() {
    let before = DispatchTime.now().uptimeNanoseconds
    try line.send(frame)
    guard let reply = try line.receive(timeout: .seconds(10)) else {
      throw RawWriteError(description: "write \(index): no reply within 10 s")
    }
    guard reply.firstRange(of: committed) != nil else {
      throw RawWriteError(
        description: "write \(index) was refused: \(String(decoding: reply, as: UTF8.self))")
    }
    latencies.append(Double(DispatchTime.now().uptimeNanoseconds - before) / 1_000)
  }
  return latencies
}

struct RawWriteError: Error, CustomStringConvertible {
  var description: String
}
