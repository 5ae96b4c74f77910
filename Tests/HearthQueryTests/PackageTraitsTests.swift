import Foundation
import Testing

/// The reference's package traits, named in an app's manifest as the reference's users name
/// them: `Tests/fixtures/traits` depends on Hearth with `LazyInitializableByDefault`,
/// `ColumnCoding`, `StrictDecoding` and `Tagged`, and checks what each one changes. Building
/// it is a build of the query stack with those traits on (under `.build/traits`).
@Suite struct PackageTraitsTests {
  static let packageRoot = URL(fileURLWithPath: #filePath)  // <root>/Tests/<target>/<file>
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  @Test(.timeLimit(.minutes(20))) func anAppBuiltWithTheTraitsGetsWhatEachOneSays() throws {
    let fixture = Self.packageRoot.appendingPathComponent("Tests/fixtures/traits")
    let scratch = Self.packageRoot.appendingPathComponent(".build/traits")
    let build = try runProcess(
      "swift", "build", "--package-path", fixture.path, "--scratch-path", scratch.path)
    try #require(build.status == 0, "\(build.output)")
    let binary = try runProcess(
      "swift", "build", "--show-bin-path", "--package-path", fixture.path,
      "--scratch-path", scratch.path)
    let check = try runProcess(
      binary.output.trimmingCharacters(in: .whitespacesAndNewlines) + "/traits-check")
    let lines = check.output.split(separator: "\n")
    #expect(check.status == 0, "\(check.output)")
    #expect(lines.filter { $0.hasPrefix("ok: ") }.count == 12, "\(check.output)")
    #expect(!lines.contains { $0.hasPrefix("FAILED") }, "\(check.output)")
  }
}

/// Runs a program found on the PATH and returns its exit status and its output and errors.
func runProcess(_ arguments: String...) throws -> (status: Int32, output: String) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = arguments
  let output = Pipe()
  process.standardOutput = output
  process.standardError = output
  try process.run()
  let data = output.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
