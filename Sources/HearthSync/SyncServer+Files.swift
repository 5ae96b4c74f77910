import Foundation
import HearthPostgres
import HearthWire

extension SyncServer {
  /// Links file `digest` to `zone` (the private one unless said) when this person may read
  /// it on the server already; false when the server has no such file for them.
  public func linkFile(_ digest: String, zone: String? = nil) throws -> Bool {
    try connection.execute("SELECT hearth.link_asset($1, $2)", [zone ?? self.zone, digest])
      .rows.first?.first == "t"
  }

  /// Stores `bytes`, the file named `digest` (the server checks it), for `zone`: kept once
  /// on the server, however many records and zones name it. The bytes travel in binary.
  public func putFile(_ digest: String, bytes: Data, zone: String? = nil) throws {
    try connection.executeBinary(
      "SELECT hearth.put_asset($1, $2, $3::bytea)",
      [.text(zone ?? self.zone), .text(digest), .bytes(bytes)])
  }

  /// File `digest`, checked against its name; nil when the server has none this person may
  /// read.
  public func file(_ digest: String) throws -> Data? {
    guard
      let bytes = try connection.executeBinary(
        "SELECT hearth.get_asset($1)", [.text(digest)])
    else { return nil }
    guard SHA256.hex(bytes) == digest else {
      throw PostgresError(sqlState: nil, message: "the server's file \(digest) is damaged")
    }
    return bytes
  }
}
