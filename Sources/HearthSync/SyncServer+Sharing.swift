import Foundation
import HearthPostgres
import HearthWire

extension SyncServer {
  /// An invitation: `hearth-share-` and 32 random bytes in hex. The server keeps only the
  /// SHA-256 of the bytes, so its database alone lets no one in.
  public static func newInvitation() -> String {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    return invitationPrefix + Hex.encode(bytes)
  }

  public static let invitationPrefix = "hearth-share-"

  /// The secret of an invitation, in hex; nil when `invitation` is not one.
  static func secret(of invitation: String) -> String? {
    let trimmed = invitation.trimmingCharacters(in: .whitespacesAndNewlines)
    guard trimmed.hasPrefix(invitationPrefix) else { return nil }
    let hex = trimmed.dropFirst(invitationPrefix.count).lowercased()
    guard hex.count == 64, hex.allSatisfy(\.isHexDigit) else { return nil }
    return String(hex)
  }

  /// Shares root record (`type`, `name`) of the private zone with `records` (it and its
  /// descendants, as pushed): its records move to the share's zone (made the first time),
  /// every member gets `permission`, and `invitation` (if any) lets one more person in for
  /// `expiresIn`. Returns the share's zone.
  public func share(
    type: String, name: String, records: [(type: String, name: String)],
    permission: SharePermission, invitation: String?, title: String?,
    expiresIn: Duration = .seconds(7 * 24 * 3600)
  ) throws -> String {
    let names = records.map { ["type": $0.type, "name": $0.name] }
    let list = String(decoding: try JSONEncoder().encode(names), as: UTF8.self)
    let secret = try invitation.map { invitation in
      guard let secret = Self.secret(of: invitation) else {
        throw PostgresError(sqlState: nil, message: "not an invitation: \(invitation)")
      }
      return secret
    }
    let result = try connection.execute(
      "SELECT hearth.share($1, $2, $3, $4::jsonb, $5, $6, $7, $8::interval)",
      [
        zone, type, name, list, permission.rawValue, secret, title,
        "\(expiresIn.components.seconds) seconds",
      ])
    guard let shared = result.rows.first?.first ?? nil else {
      throw PostgresError(sqlState: nil, message: "hearth.share returned no zone")
    }
    return shared
  }

  /// Accepts `invitation`: this person becomes a member of its share. Throws a
  /// `PostgresError` of SQLSTATE 42501 when the invitation is unknown, used or expired.
  public func accept(_ invitation: String) throws -> SyncShare {
    guard let secret = Self.secret(of: invitation) else {
      throw PostgresError(
        sqlState: "42501",
        message: "not an invitation (one is \(Self.invitationPrefix) and 64 hex digits)")
    }
    let result = try connection.execute("SELECT hearth.accept($1)", [secret])
    guard let text = result.rows.first?.first ?? nil else {
      throw PostgresError(sqlState: nil, message: "hearth.accept returned no share")
    }
    return try JSONDecoder().decode(SyncShare.self, from: Data(text.utf8))
  }

  /// Stops sharing `zone` (this person's): its records go back to the private zone; the
  /// members lose them.
  public func unshare(_ zone: String) throws {
    try connection.execute("SELECT hearth.unshare($1)", [zone])
  }

  /// Takes `zone` (this person's share) from member `role`.
  public func revoke(_ zone: String, from role: String) throws {
    try connection.execute("SELECT hearth.revoke($1, $2)", [zone, role])
  }

  /// The shares this person owns or is a member of.
  public func shares() throws -> [SyncShare] {
    let result = try connection.execute("SELECT hearth.shares()")
    guard let text = result.rows.first?.first ?? nil else { return [] }
    return try JSONDecoder().decode([SyncShare].self, from: Data(text.utf8))
  }
}
