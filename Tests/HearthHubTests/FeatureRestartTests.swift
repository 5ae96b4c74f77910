import Foundation
import HearthDataTestSupport
import HearthTestbed
import Testing

/// Each feature's `run` duty lives through a hub killed with SIGKILL and started again, and
/// does its work after it (the reminders duty and watch have their own tests).
@Suite(.serialized) struct FeatureRestartTests {
  @Test(arguments: ["hearth-attachments", "hearth-facts", "hearth-syncups"])
  func theDutyOutlivesAHubRestart(_ feature: String) throws {
    let live = try LiveHub()
    defer { live.stop() }
    let cli = try FeatureCLI(feature, hub: live.process)
    let reminders = try FeatureCLI("hearth-reminders", hub: live.process)
    var milk = ""
    if feature == "hearth-attachments" {
      milk = try reminders.made("add", "Milk", key: "reminder")
      try cli("add", "reminders", milk, "--note", "semi-skimmed")
    }
    let (duty, output) = try cli.start(["run", "--interval", "0.1"])
    defer { duty.stop() }
    Thread.sleep(forTimeInterval: 0.5)

    live.process.kill()
    Thread.sleep(forTimeInterval: 0.5)
    #expect(duty.isRunning, "\(output.lines.suffix(5))")
    let restarted = try HubProcess(directory: live.directory)
    defer { _ = restarted.terminate() }
    _ = try restarted.waitUntilReady()

    switch feature {
    case "hearth-attachments":
      // Still following the bus: another feature's delete removes the attachment.
      try reminders("delete", milk)
      eventually { (try? cli("list", "--json").output) == "[]\n" }
    case "hearth-facts":
      eventually { (try? cli("today").status) == 0 }
      #expect(try cli("add", "7").status == 0)
    default:
      let retro = try cli.made("add", "Retro", "--attendee", "Ana", key: "syncUp")
      let meeting = try cli.made("record", retro, "--transcript", "after the restart")
      let shown = "meeting \(meeting.prefix(8).lowercased()) of \"Retro\" saved"
      eventually { output.lines.contains { $0.contains(shown) } }
    }
    #expect(duty.isRunning, "\(output.lines.suffix(5))")
    kill(duty.processIdentifier, SIGTERM)
    duty.waitUntilExit()
    #expect(duty.terminationStatus == 0)
  }
}
