import Foundation
import HearthCommandLine
import HearthPostgres
import HearthSync
import HearthTransport
import HearthWire

let syncCommand = Command(
  "sync",
  arguments:
    "[status | now | resync | verify | pause | resume | account keep | setup URL [--zone NAME] "
    + "| share TABLE KEY [--permission P] [--title T] | accept INVITATION | unshare TABLE KEY "
    + "| revoke SHARE ROLE | shares]",
  summary:
    "sync with a PostgreSQL server: its state, a round now, a check, a pause, the server, "
    + "sharing",
  details: """
    status      (the default) the server, the synced tables, the rows with changes not
                yet pushed, records held until they can be applied, the server's
                sequence number pulled and pushed, the last error.
    now         a round of sync now: answers once a round begun after the request has
                pushed and pulled (exit 1, with the last error, when none could in 30 s).
    resync      every row pushed again and everything pulled again; nothing is deleted.
    verify      after a round, compares every zone's rows here with the server's records:
                a digest of each side, and the rows that differ (exit 1 when any do).
    pause       nothing is pushed or pulled (across restarts too) until resume; local
                writes go on, and their changes wait. For a metered connection, or to
                work offline.
    resume      syncs again, from where it was.
    account keep
                after the server or zone changed (sync waits, and says so): keeps this
                hub's rows for the new account (pushed to it, its rows pulled here).
    setup URL   checks that the server (a libpq connection string or postgresql:// URL)
                answers and makes its schema, then writes sync-server (and sync-zone)
                into hearthd's config file ($XDG_CONFIG_HOME/hearth/hearthd.conf, or
                --config FILE). Restart hearthd to use it.
    share TABLE KEY
                shares root record KEY of TABLE (a synced table without foreign keys)
                and the rows under it with another person of the server, and prints an
                invitation for them (accepted once, within 7 days). --permission read
                (the default) or readWrite sets what every member may do; sharing again
                makes another invitation and sets the permission. --title names it.
    accept INVITATION
                on the other person's hub: the share's rows come here.
    unshare TABLE KEY
                stops sharing it: every member's hubs drop it; the owner keeps it.
    revoke SHARE ROLE
                takes the share from one member. SHARE is the share's title, its zone
                (alice/share-…) or its root record's key (or TABLE KEY).
    shares      the shares this hub syncs: who shared them, with whom.
    """,
  valuedOptions: ["zone", "config", "permission", "title"]
) { input in
  let paths = hubPaths(input)
  switch input.positionals.first ?? "status" {
  case "status": return try syncState(paths, action: .status)
  case "now": return try syncState(paths, action: .now)
  case "resync": return try syncState(paths, action: .resync)
  case "pause": return try syncState(paths, action: .pause)
  case "resume": return try syncState(paths, action: .resume)
  case "verify": return try verifySync(paths)
  case "account":
    guard input.positionals.dropFirst().first == "keep" else {
      throw CommandError.usage("hearth sync account takes keep")
    }
    return try syncState(paths, action: .acceptAccount)
  case "setup": return try setUpSync(input)
  case "share", "accept", "unshare", "revoke", "shares": return try syncSharing(input, paths)
  case let other:
    throw CommandError.usage(
      "hearth sync takes status, now, resync, verify, pause, resume, account keep, setup, "
        + "share, accept, unshare, revoke or shares, not \(other)")
  }
}

/// Asks the hub (`action`) and shows its sync state.
private func syncState(_ paths: HubPaths, action: SyncRequest.Action) throws -> CommandOutput {
  let socket = try BusSocket(BusContext(), .dealer)
  try socket.connectToHub(paths)
  let request = SyncRequest(id: UUID().uuidString, action: action)
  try socket.send([try WireCoding.encode(request)])
  guard let frame = try socket.receive(timeout: action == .now ? .seconds(35) : .seconds(2))?.last
  else {
    throw CommandError(
      "the hub does not answer at \(paths.requestEndpoint); is hearthd running?",
      exitCode: .hubUnavailable)
  }
  if let refusal = try? WireCoding.decode(ErrorReply.self, from: frame), refusal.type == "error" {
    throw CommandError(refusal.message)
  }
  let state = try WireCoding.decode(SyncingReply.self, from: frame)
  return .values(state) { state in
    [
      "server    \(state.server ?? "none (hearth sync setup URL)")",
      "zone      \(state.zone) (this hub: \(state.hub))",
      "tables    \(state.tables.isEmpty ? "none" : state.tables.joined(separator: ", "))",
      "pending   \(state.pending) rows to push",
      "held      \(state.held) records waiting to be applied",
      "server    pulled to \(state.pulled), pushed \(state.pushed.map(String.init) ?? "nothing yet")",
      "error     \(state.lastError ?? "none")",
    ].joined(separator: "\n")
      + (state.accountChange.map { "\naccount   changed: \($0) (hearth sync account keep)" } ?? "")
      + (state.paused == true
        ? "\npaused    nothing is pushed or pulled until hearth sync resume" : "")
      + (state.clockSkew.map { skew in
        "\nclock     \(SyncService.shownSkew(skew)) the server's"
          + (abs(skew) > SyncService.clockSkewWarning
            ? ": edits keep their order, but set it right (timedatectl)" : "")
      } ?? "")
  }
}

/// `hearth sync verify`: the hub compares each zone with the server; exit 1 when any differ.
private func verifySync(_ paths: HubPaths) throws -> CommandOutput {
  let reply = try askHub(paths, SyncRequest(id: UUID().uuidString, action: .verify))
  guard let verification = reply.verification else {
    throw CommandError("the hub did not say what it found")
  }
  let output = CommandOutput.values(verification) { verification in
    verification.zones.map { zone in
      let digests =
        zone.digest == zone.serverDigest
        ? "digest \(zone.digest.prefix(16))"
        : "digest here \(zone.digest.prefix(16)), on the server \(zone.serverDigest.prefix(16))"
      var lines = [
        "\(zone.zone): "
          + (zone.isEqual
            ? "equal, \(zone.rows) rows (\(digests))"
            : "\(zone.differing) rows differ; \(zone.rows) rows here, \(zone.serverRows) on the "
              + "server (\(digests))")
      ]
      if zone.pending > 0 {
        lines.append("  \(zone.pending) rows changed during the check, not compared")
      }
      for difference in zone.differences {
        lines.append("  \(difference.table) \(difference.key): \(difference.what)")
      }
      if zone.differing > zone.differences.count {
        lines.append("  … and \(zone.differing - zone.differences.count) more")
      }
      return lines.joined(separator: "\n")
    }.joined(separator: "\n")
  }
  return output.exiting(with: verification.isEqual ? .success : .failure)
}

/// `hearth sync setup URL`: the server checked, then written to the config file.
private func setUpSync(_ input: CommandInput) throws -> CommandOutput {
  let url = try input.positional(1, name: "URL")
  let zone = input.option("zone") ?? "default"
  do {
    _ = try SyncServer(url, zone: zone)
  } catch {
    throw CommandError("cannot use the sync server: \(error)")
  }
  let path = input.option("config") ?? HubPaths.defaultConfigFile()
  let existing = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
  var lines = existing.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    .filter { line in
      let key = line.split(separator: "=").first?.trimmingCharacters(in: .whitespaces)
      return key != "sync-server" && key != "sync-zone"
    }
  while lines.last == "" { lines.removeLast() }
  lines += ["sync-server = \(url)", "sync-zone = \(zone)", ""]
  try FileManager.default.createDirectory(
    atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
  // The URL may hold a password: the file is the owner's only.
  guard
    FileManager.default.createFile(
      atPath: path, contents: Data(lines.joined(separator: "\n").utf8),
      attributes: [.posixPermissions: 0o600])
  else { throw CommandError("cannot write \(path)") }
  return .message(
    "the server answers; wrote sync-server and sync-zone to \(path)\n"
      + "restart hearthd to sync: systemctl --user restart hearthd",
    json: ["config": path, "zone": zone])
}

/// `hearth status`'s line on sync, from the hub's file: nil when this hub has never synced.
/// `sync      3 rows to push; paused (hearth sync resume); clock 2 min 5 s behind the
/// server's`.
func syncSummary(_ paths: HubPaths) -> (text: String, json: [String: Any])? {
  guard FileManager.default.fileExists(atPath: paths.databasePath),
    let state = try? openDatabase(paths).read({ db -> (pending: Int, values: [String: String])? in
      guard try db.tableExists(SyncStore.state),
        try SyncStore.value("account", db) != nil || SyncStore.value("zone", db) != nil
      else { return nil }
      var values: [String: String] = [:]
      for key in [SyncStore.pausedKey, SyncStore.clockSkewKey, "lastError"] {
        values[key] = try SyncStore.value(key, db)
      }
      return (try SyncStore.pendingCount(db), values)
    }) ?? nil
  else { return nil }
  var parts = ["\(state.pending) rows to push"]
  var json: [String: Any] = ["pending": state.pending]
  if state.values[SyncStore.pausedKey] != nil {
    parts.append("paused (hearth sync resume)")
    json["paused"] = true
  }
  if let skew = state.values[SyncStore.clockSkewKey].flatMap({ Int64($0) }) {
    json["clockSkewMilliseconds"] = skew
    if abs(skew) > SyncService.clockSkewWarning {
      parts.append("clock \(SyncService.shownSkew(skew)) the server's (set it right: timedatectl)")
    }
  }
  if let error = state.values["lastError"] {
    parts.append("last error: \(error)")
    json["lastError"] = error
  }
  return ("sync      " + parts.joined(separator: "; "), json)
}
