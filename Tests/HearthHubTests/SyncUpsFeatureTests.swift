import Foundation
import HearthDataTestSupport
import HearthTestbed
import Testing

@Suite(.serialized) struct SyncUpsFeatureTests {
  @Test func everyCommandAndTheMeetingTimer() throws {
    let live = try LiveHub()
    defer { live.stop() }
    let syncups = try FeatureCLI("hearth-syncups", hub: live.process)

    var run = try syncups(
      "add", "Daily", "stand-up", "--minutes", "1", "--theme", "Sky", "--attendee", "Ana",
      "--attendee", "Bo", "--json")
    #expect(run.status == 0, "\(run.errors)")
    let created = try #require(try run.json() as? [String: Any])
    #expect((created["syncUp"] as? [String: Any])?["title"] as? String == "Daily stand-up")
    #expect((created["syncUp"] as? [String: Any])?["theme"] as? String == "sky")
    #expect(created["attendees"] as? [String] == ["Ana", "Bo"])
    let daily = try #require((created["syncUp"] as? [String: Any])?["id"] as? String)
    let d = String(daily.prefix(5))
    try syncups("attendee-add", d, "Cy")
    try syncups("attendee-remove", d, "bo")
    run = try syncups("edit", d, "--minutes", "2", "--json")
    #expect(
      ((try run.json() as? [String: Any])?["syncUp"] as? [String: Any])?["seconds"] as? Int == 120)
    run = try syncups("list")
    #expect(run.output.contains("Daily stand-up  2 min  sky  Ana, Cy  · 0 meeting(s)"))

    // The timer, in a terminal: a note typed during Ana's turn, then Cy, then the end.
    let screen = try syncups.startInTerminal(["start", d])
    defer { screen.stop() }
    eventually { screen.text.contains("Speaking: Ana") && screen.text.contains("Next: Cy") }
    screen.send("t")
    screen.send("-l", "ship the release ✓")
    screen.send("Enter")
    eventually { screen.text.contains("Ana: ship the release ✓") }
    screen.send("n")
    eventually { screen.text.contains("Speaking: Cy") }
    screen.send("n")
    // The timer saves the meeting and exits (which ends the tmux session).
    eventually { ((try? syncups("history", d, "--json").json()) as? [Any])?.count == 1 }

    run = try syncups("history", d, "--json")
    let meetings = try #require(try run.json() as? [[String: Any]])
    #expect(meetings.count == 1)
    #expect(meetings.first?["transcript"] as? String == "Ana: ship the release ✓")
    let meeting = try #require(meetings.first?["id"] as? String)
    #expect(
      try syncups("meeting", String(meeting.prefix(4))).output.contains("Ana: ship the release ✓"))

    // Recorded from a script; the history is newest first.
    run = try syncups(
      "record", d, "--transcript", "-", "--date", "2020-01-02 09:30",
      input: Data("old notes".utf8))
    #expect(run.status == 0, "\(run.errors)")
    run = try syncups("history", d)
    #expect(
      run.output.split(separator: "\n").last?.contains("Thu 2 Jan 2020 09:30  old notes") == true)
    #expect(try syncups("list").output.contains("· 2 meeting(s)"))

    // Watch redraws when another process records a meeting.
    let watcher = try syncups.startInTerminal(["watch"])
    defer { watcher.stop() }
    eventually { watcher.text.contains("· 2 meeting(s)") }
    try syncups("record", d, "--transcript", "third")
    eventually { watcher.text.contains("· 3 meeting(s)") }

    // Bad input.
    #expect(try syncups("add", "X", "--minutes", "0").status == 2)
    #expect(try syncups("add", "X", "--theme", "plaid").errors.contains("not a theme"))
    #expect(try syncups("history", daily.hasPrefix("9999") ? "8888" : "9999").status == 4)
    #expect(try syncups("attendee-remove", d, "Zed").status == 4)
    #expect(try syncups("record", d, "--date", "yesterday-ish").status == 2)
    run = try syncups("start", d)  // not a terminal
    #expect(run.status == 2 && run.errors.contains("needs a terminal"))
    let empty = try syncups.made("add", "Empty", key: "syncUp")
    #expect(try syncups("start", empty).errors.contains("no attendees"))

    // Deleting a sync-up deletes its meetings.
    try syncups("delete", d)
    #expect(try syncups("meeting", meeting).status == 4)
  }
}
