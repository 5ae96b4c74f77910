import Foundation
import HearthTestbed
import Testing

/// What a new user meets first: the README's session, run as typed, and the documented
/// install, after which `man` and bash completion work.
@Suite struct FrontDoorTests {
  /// A new home directory, with this build's executables first on PATH and nothing of the
  /// test runner's Hearth settings.
  static func newUser(home: URL, path extra: [String] = []) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment
    for key in environment.keys where key.hasPrefix("HEARTH_") || key.hasPrefix("XDG_") {
      environment[key] = nil
    }
    environment["DBUS_SESSION_BUS_ADDRESS"] = nil
    environment["HOME"] = home.path
    environment["TZ"] = "UTC"
    environment["COLUMNS"] = "80"
    // The toolchain (swift) stays reachable, after this build's executables.
    environment["PATH"] =
      (extra + [Executables.directory.path, environment["PATH"] ?? "/usr/bin:/bin"])
      .joined(separator: ":")
    return environment
  }

  /// Runs the console blocks of `document` (a path in the repository) as a new user in
  /// `home`, its sockets in `home/run` (XDG_RUNTIME_DIR, as a login session sets it), and
  /// expects each command to print what the document shows; returns that user's environment.
  @discardableResult
  static func runConsoleBlocks(of document: String, in home: URL, atLeast steps: Int) throws
    -> [String: String]
  {
    let text = try String(
      contentsOf: Executables.packageRoot.appendingPathComponent(document), encoding: .utf8)
    let session = ConsoleSession(markdown: text)
    #expect(session.steps.count >= steps, "\(document)'s console blocks: \(session.steps.count)")
    var environment = newUser(home: home)
    let runtime = home.appendingPathComponent("run")
    environment["XDG_RUNTIME_DIR"] = runtime.path
    try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
    for outcome in try session.run(in: home, environment: environment) {
      #expect(outcome.mismatch == nil, "$ \(outcome.command)\n\(outcome.mismatch ?? "")")
    }
    return environment
  }

  @Test(.timeLimit(.minutes(5))) func everyCommandOfTheReadmesSessionPrintsWhatItShows() throws {
    let home = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: home) }
    try Self.runConsoleBlocks(of: "README.md", in: home, atLeast: 8)
  }

  @Test(.timeLimit(.minutes(5))) func afterTheDocumentedInstallManAndBashCompletionWork() throws {
    let home = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: home) }
    let bin = home.appendingPathComponent(".local/bin").path
    let environment = Self.newUser(home: home, path: [bin])
    let install = Executables.packageRoot.appendingPathComponent("scripts/install-units").path
    let installed = try runToEnd(
      path: install, ["--from", Executables.directory.path, "reminders"],
      environment: environment)
    #expect(installed.status == 0, "\(installed.output)")

    // man finds the pages through ~/.local/bin on PATH, with no MANPATH set.
    func man(_ page: String) throws -> String {
      try runToEnd(path: "/usr/bin/man", ["-P", "cat", page], environment: environment).output
    }
    #expect(try man("hearth").contains("hearth - the admin command line of a Hearth hub"))
    #expect(try man("hearthd").contains("hearthd - the Hearth hub"))
    let reminders = try man("hearth-reminders")
    #expect(reminders.contains("--priority VALUE"), "\(reminders.prefix(600))")

    // bash-completion loads the script on demand from the user's directory.
    let script = """
      source /usr/share/bash-completion/bash_completion
      _completion_loader hearth-reminders
      COMP_WORDS=(hearth-reminders sh); COMP_CWORD=1; _hearth_reminders; echo "${COMPREPLY[*]}"
      COMP_WORDS=(hearth-reminders add --pr); COMP_CWORD=2; _hearth_reminders; echo "${COMPREPLY[*]}"
      _completion_loader hearth
      COMP_WORDS=(hearth sta); COMP_CWORD=1; _hearth; echo "${COMPREPLY[*]}"
      """
    let completed = try runToEnd(path: "/bin/bash", ["-c", script], environment: environment)
    #expect(completed.output == "share show\n--priority\nstatus\n", "\(completed.output)")

    // Uninstalled, the pages and completions go with the binaries.
    let removed = try runToEnd(
      path: install, ["--uninstall", "reminders"], environment: environment)
    #expect(removed.status == 0, "\(removed.output)")
    let share = home.appendingPathComponent(".local/share").path
    for path in [
      "man/man1/hearth.1", "man/man1/hearth-reminders.1", "bash-completion/completions/hearth",
    ] {
      #expect(!FileManager.default.fileExists(atPath: share + "/" + path), "\(path) left")
    }
  }
}
