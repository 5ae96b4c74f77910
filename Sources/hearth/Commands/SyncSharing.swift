import Foundation
import HearthCommandLine
import HearthSQLite
import HearthTransport
import HearthWire

/// `hearth sync share | accept | unshare | revoke | shares`: sharing a root record with
/// another person of the sync server. Sharing a table's rows is its plugin's act, so the
/// command speaks as that plugin, with the key the owner issued it (`hearth plugins add`).
func syncSharing(_ input: CommandInput, _ paths: HubPaths) throws -> CommandOutput {
  let verb = input.positionals.first ?? "shares"
  switch verb {
  case "shares": return try showShares(try askHub(paths, SyncRequest(id: UUID().uuidString)))
  case "accept":
    let request = SyncRequest(
      id: UUID().uuidString, action: .acceptShare,
      invitation: try input.positional(1, name: "INVITATION"))
    let reply = try askHub(paths, request)
    let share = reply.shares?.first { $0.zone == reply.share }
    return .message(
      "accepted \(share.map(describe) ?? "the share")", json: ["zone": reply.share as Any])
  case "share", "unshare", "revoke":
    var (table, key) = ("", "")
    if verb == "revoke" && input.positionals.count == 3 {
      let share = try findShare(try input.positional(1, name: "SHARE"), paths)
      (table, key) = (share.rootType, share.rootName)
    } else {
      table = try input.positional(1, name: "TABLE")
      key = try input.positional(2, name: "KEY")
    }
    let plugin = try owner(of: table, paths)
    var request = SyncRequest(id: UUID().uuidString, plugin: plugin, table: table, key: key)
    switch verb {
    case "share":
      request.action = .share
      request.title = input.option("title")
      if let permission = input.option("permission") {
        guard let value = SharePermission(rawValue: permission) else {
          throw CommandError.usage("--permission is read or readWrite, not \(permission)")
        }
        request.permission = value
      }
    case "unshare": request.action = .unshare
    default:
      request.action = .revokeShare
      request.role = try input.positional(input.positionals.count == 3 ? 2 : 3, name: "ROLE")
    }
    let reply = try askHub(paths, request, as: plugin)
    guard let invitation = reply.invitation else {
      return .message("done", json: ["zone": reply.share as Any])
    }
    return .message(
      "invitation (give it to the other person: hearth sync accept INVITATION)\n\(invitation)",
      json: ["invitation": invitation, "zone": reply.share as Any])
  default:
    throw CommandError.usage("hearth sync takes share, accept, unshare, revoke or shares")
  }
}

/// The share `name` names: its zone (whole, or its `share-…` part), its title (any case), or
/// its root record's key (at least 6 characters of it); one of this person's own.
private func findShare(_ name: String, _ paths: HubPaths) throws -> SyncShare {
  let shares = (try askHub(paths, SyncRequest(id: UUID().uuidString)).shares ?? [])
    .filter(\.isOwner)
  let lowered = name.lowercased()
  let found = shares.filter { share in
    share.zone == name || share.zone.hasSuffix("/" + name)
      || share.title?.lowercased() == lowered
      || (lowered.count >= 6 && share.rootName.lowercased().hasPrefix(lowered))
  }
  guard found.count == 1, let share = found.first else {
    let known = shares.map { $0.title ?? $0.zone }.joined(separator: ", ")
    throw found.isEmpty
      ? CommandError.notFound(
        "no share of yours is \(name)" + (known.isEmpty ? "" : " (yours: \(known))"))
      : CommandError.usage("\(name) names \(found.count) shares; use the zone")
  }
  return share
}

/// The plugin that owns `table`, from the hub's file.
private func owner(of table: String, _ paths: HubPaths) throws -> String {
  let database = try openDatabase(paths)
  guard
    let plugin = try database.read({ db in
      try String.fetchOne(
        db, sql: "SELECT plugin FROM hearth_tables WHERE name = ? COLLATE NOCASE",
        arguments: [table])
    })
  else { throw CommandError("no plugin owns a table \(table)") }
  return plugin
}

/// Sends `request` (as `plugin`, with its key) and waits up to 35 s for the hub's answer.
func askHub(_ paths: HubPaths, _ request: SyncRequest, as plugin: String? = nil) throws
  -> SyncingReply
{
  let keys = try plugin.map { plugin in
    guard let keys = try Keyring(directory: paths.keysDirectory).pluginKeys(plugin) else {
      throw CommandError("plugin \(plugin) has no key (hearth plugins add \(plugin))")
    }
    return keys
  }
  let socket = try BusSocket(BusContext(), .dealer)
  try socket.connectToHub(paths, as: keys)
  try socket.send([try WireCoding.encode(request)])
  guard let frame = try socket.receive(timeout: .seconds(35))?.last else {
    throw CommandError(
      "the hub does not answer at \(paths.requestEndpoint); is hearthd running?",
      exitCode: .hubUnavailable)
  }
  if let refusal = try? WireCoding.decode(ErrorReply.self, from: frame), refusal.type == "error" {
    throw CommandError(refusal.message)
  }
  return try WireCoding.decode(SyncingReply.self, from: frame)
}

private func describe(_ share: SyncShare) -> String {
  let who =
    share.isOwner
    ? (share.members.isEmpty
      ? "shared with nobody yet"
      : "shared with "
        + share.members.map { "\($0.role) (\($0.permission.rawValue))" }
        .joined(separator: ", "))
    : "shared by \(share.owner), \(share.permission.rawValue)"
  return "\(share.rootType) \(share.rootName)\(share.title.map { " “\($0)”" } ?? ""): \(who)"
}

private func showShares(_ reply: SyncingReply) throws -> CommandOutput {
  let shares = reply.shares ?? []
  let text = shares.isEmpty ? "no shares" : shares.map(describe).joined(separator: "\n")
  let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(shares))
  return .message(text, json: ["shares": json])
}
