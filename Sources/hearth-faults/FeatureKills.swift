import Foundation
import HearthSQLite
import HearthTestbed
import HearthWire

/// Plugin processes killed (SIGKILL) or stopped (SIGSTOP) while they hold a transaction open
/// at the hub, and while the hub applies their registration.
func featureKills(_ options: Options) throws -> String {
  let directory = try temporaryDirectory()
  defer { try? FileManager.default.removeItem(at: directory) }
  let timeout = 1.0
  let hub = try HubProcess(directory: directory, transactionTimeout: timeout)
  _ = try hub.waitUntilReady()
  defer { _ = hub.terminate() }
  let established = [
    try killedMidTransaction(hub, timeout: timeout),
    try stoppedMidTransaction(hub, timeout: timeout),
    try interruptedRegistrations(hub),
  ]
  try openReadOnly(hub.databasePath).read { try checkIntegrity($0) }
  return established.joined(separator: "; ") + "; integrity ok"
}

/// SIGKILL mid-transaction: the hub rolls the transaction back after its timeout and the
/// writer queued behind it goes on.
private func killedMidTransaction(_ hub: HubProcess, timeout: Double) throws -> String {
  let killed = try LoadgenProcess(
    hub: hub, arguments: ["--plugin", "killed", "--hold", "60", "--count", "0"])
  try killed.waitForLine("holding")
  let waiting = try LoadgenProcess(hub: hub, arguments: ["--plugin", "waiting", "--count", "50"])
  Thread.sleep(forTimeInterval: 0.2)
  let killedAt = ContinuousClock.now
  killed.signal(SIGKILL)
  guard try waiting.waitForExit(timeout: .seconds(30)) == 0 else {
    throw TestbedError("the writer behind a killed transaction failed: \(waiting.lines.suffix(3))")
  }
  let resumedAfter = ContinuousClock.now - killedAt
  guard resumedAfter < .seconds(timeout + 3) else {
    throw TestbedError("the others waited \(resumedAfter) behind a dead client's transaction")
  }
  try expectRows(hub, ["killed-held": 0])
  return
    ("killed mid-transaction: rolled back, the next writer done "
    + "\(Int(resumedAfter / .milliseconds(1))) ms "
    + "after the kill (timeout \(Int(timeout * 1000)) ms)")
}

/// SIGSTOP mid-transaction, for longer than the timeout: the others go on; once resumed the
/// stopped writer learns its transaction timed out, runs it again, and it lands once.
private func stoppedMidTransaction(_ hub: HubProcess, timeout: Double) throws -> String {
  let stopped = try LoadgenProcess(
    hub: hub, arguments: ["--plugin", "stopped", "--hold", "0.3", "--count", "5"])
  try stopped.waitForLine("holding")
  stopped.signal(SIGSTOP)
  let meanwhile = try LoadgenProcess(
    hub: hub, arguments: ["--plugin", "meanwhile", "--count", "20"])
  guard try meanwhile.waitForExit(timeout: .seconds(30)) == 0 else {
    throw TestbedError("a writer failed while another was stopped: \(meanwhile.lines.suffix(3))")
  }
  Thread.sleep(forTimeInterval: timeout + 0.5)
  stopped.signal(SIGCONT)
  guard try stopped.waitForExit(timeout: .seconds(60)) == 0 else {
    throw TestbedError("the resumed writer failed: \(stopped.lines.suffix(3))")
  }
  try expectRows(hub, ["stopped-held": 1, "stopped-4": 1, "meanwhile-19": 1])
  return ("stopped mid-transaction: others went on; resumed, it ran again and landed once")
}

/// SIGKILL and SIGSTOP while the hub applies the registration (a migration that counts for a
/// while): the registration is one transaction; started again, the plugin finds it whole.
private func interruptedRegistrations(_ hub: HubProcess) throws -> String {
  for (name, signal) in [("regkill", SIGKILL), ("regstop", SIGSTOP)] {
    let arguments = ["--plugin", name, "--slow-migration", "10000000", "--count", "10"]
    let first = try LoadgenProcess(hub: hub, arguments: arguments)
    // The migration counts for about 2 s at the hub: half a second in, the registration is
    // under way.
    Thread.sleep(forTimeInterval: 0.5)
    first.signal(signal)
    let registered = try openReadOnly(hub.databasePath).read { db in
      try HubTables.isRegistered(name, db)
    }
    guard !registered else {
      throw TestbedError("\(name) had registered before the signal; the migration is too quick")
    }
    if signal == SIGSTOP {
      Thread.sleep(forTimeInterval: 3)
      first.signal(SIGCONT)
      guard try first.waitForExit(timeout: .seconds(60)) == 0 else {
        throw TestbedError("\(name): the resumed plugin failed: \(first.lines.suffix(3))")
      }
    } else {
      _ = try first.waitForExit(timeout: .seconds(10))
      let again = try LoadgenProcess(hub: hub, arguments: arguments)
      guard try again.waitForExit(timeout: .seconds(60)) == 0 else {
        throw TestbedError("\(name): the plugin started again failed: \(again.lines.suffix(3))")
      }
    }
    try expectRows(hub, ["\(name)-migrated": 1, "\(name)-9": 1])
    let migrations = try openReadOnly(hub.databasePath).read { db in
      try HubTables.appliedMigrations(of: name, db).count
    }
    guard migrations == 2 else { throw TestbedError("\(name): \(migrations) migrations") }
  }
  return "killed and stopped mid-registration: each migration applied exactly once"
}

/// Checks how many rows of the loadgen tables have each key (`<plugin>-…`).
func expectRows(_ hub: HubProcess, _ expected: [String: Int]) throws {
  try openReadOnly(hub.databasePath).read { db in
    for (key, count) in expected {
      let plugin = key.split(separator: "-")[0]
      let found =
        try Int.fetchOne(
          db, sql: "SELECT count(*) FROM \"\(plugin)_rows\" WHERE key = ?", arguments: [key])
        ?? 0
      guard found == count else {
        throw TestbedError("\(found) rows keyed \(key), expected \(count)")
      }
    }
  }
}
