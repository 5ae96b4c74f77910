import Foundation
import HearthCommandLine
import HearthSQLite

let backupCommand = Command(
  "backup", arguments: "PATH",
  summary: "copies the database online (consistent, while writers go on), then checks the copy"
) { input in
  let target = try input.positional(0, name: "PATH (hearth backup PATH)")
  let showProgress = isatty(STDERR_FILENO) == 1
  let database = try openDatabase(hubPaths(input))
  do {
    try database.backup(toPath: target, pagesPerStep: 256) { progress in
      guard showProgress else { return }
      let percent =
        progress.totalPageCount == 0
        ? 100 : progress.completedPageCount * 100 / progress.totalPageCount
      FileHandle.standardError.write(Data("\rbackup \(percent)%".utf8))
    }
    if showProgress { FileHandle.standardError.write(Data("\n".utf8)) }
  } catch {
    throw CommandError("backup failed: \(error)")
  }
  let verdict = try DatabaseQueue(path: target).read { try $0.integrityCheck() }
  guard verdict == ["ok"] else {
    throw CommandError("the copy at \(target) fails its integrity check: \(verdict)")
  }
  return .message(
    "backed up to \(target) (integrity ok)", json: ["backup": target, "integrity": "ok"])
}

let checkCommand = Command(
  "check", summary: "runs SQLite's integrity check; exit 1 when it fails"
) { input in
  let database = try openDatabase(hubPaths(input))
  let verdict: [String]
  do {
    verdict = try database.read { try $0.integrityCheck() }
  } catch {
    throw CommandError("check failed: \(error)")
  }
  return CommandOutput.message(
    verdict.joined(separator: "\n"), json: ["ok": verdict == ["ok"], "messages": verdict]
  ).exiting(with: verdict == ["ok"] ? .success : .failure)
}
