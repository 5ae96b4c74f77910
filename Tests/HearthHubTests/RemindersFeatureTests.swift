import Foundation
import HearthData
import HearthDataTestSupport
import HearthPlugin
import HearthTestbed
import HearthWire
import Testing

@Suite(.serialized) struct RemindersFeatureTests {
  @Test func everyCommandThroughALiveHub() throws {
    let live = try LiveHub()
    defer { live.stop() }
    let hub = live.process
    let reminders = try FeatureCLI("hearth-reminders", hub: hub)

    // No lists yet: the first reminder makes one.
    var run = try reminders(
      "add", "Buy", "milk", "--due", "2099-01-02 08:30", "--priority", "high", "--tag", "home",
      "--tag", "errands", "--notes", "semi-skimmed, two litres", "--json")
    #expect(run.status == 0, "\(run.errors)")
    let added = try #require(try run.json() as? [String: Any])
    let milkID = try #require((added["reminder"] as? [String: Any])?["id"] as? String)
    let milk = String(milkID.prefix(ShortID.length))  // the handle lines show
    #expect(UUID(uuidString: milkID) != nil)
    #expect((added["reminder"] as? [String: Any])?["priority"] as? String == "high")
    #expect(added["listTitle"] as? String == "Reminders")
    #expect(added["tags"] as? [String] == ["errands", "home"])

    run = try reminders("list-add", "Work", "--color", "green", "--json")
    #expect(run.status == 0)
    let work = try #require((try run.json() as? [String: Any])?["id"] as? String)
    #expect((try run.json() as? [String: Any])?["color"] as? String == "#5bc26a")
    run = try reminders("list-edit", work, "--title", "Office", "--json")
    #expect((try run.json() as? [String: Any])?["title"] as? String == "Office")

    try reminders("add", "Write report", "--list", "office", "--due", "2000-01-01", "--flag")
    try reminders("add", "File taxes", "--list", work)
    try reminders("add", "Call the bank", "--notes", "ask about the milk money")

    // Lists with their open counts.
    run = try reminders("lists", "--json")
    let lists = try #require(try run.json() as? [[String: Any]])
    #expect(
      lists.map { ($0["list"] as? [String: Any])?["title"] as? String } == ["Reminders", "Office"])
    #expect(lists.map { $0["openCount"] as? Int } == [2, 2])

    // Show, with filters; people get lines.
    run = try reminders("show")
    #expect(run.output.contains("Buy milk  !!!") && run.output.contains("#errands  #home"))
    #expect(run.output.contains("Write report  ⚑  due Sat 1 Jan 2000 09:00 (past due)  · Office"))
    func titles(_ arguments: String...) throws -> [String] {
      let run = try reminders.run(reminders.executable, arguments + ["--json"])
      #expect(run.status == 0, "\(arguments): \(run.errors)")
      let rows = try #require(try run.json() as? [[String: Any]])
      return rows.compactMap { ($0["reminder"] as? [String: Any])?["title"] as? String }
    }
    #expect(try titles("show", "--list", "Office") == ["Write report", "File taxes"])
    #expect(try titles("show", "--tag", "HOME") == ["Buy milk"])
    #expect(try titles("show", "--flagged") == ["Write report"])
    #expect(try titles("show", "--past-due") == ["Write report"])
    #expect(try titles("show", "--scheduled") == ["Buy milk", "Write report"])

    // Stats, as the seeds count them.
    run = try reminders("stats", "--json")
    let stats = try #require(try run.json() as? [String: Int])
    #expect(stats["allCount"] == 4 && stats["flaggedCount"] == 1 && stats["scheduledCount"] == 2)
    #expect(stats["pastDueCount"] == 1 && stats["completedCount"] == 0)

    // Search: titles, notes and tags; the title match ranks first; matches are marked.
    run = try reminders("search", "milk", "--json")
    let hits = try #require(try run.json() as? [[String: Any]])
    #expect(hits.map { $0["reminderID"] as? String }.first == milkID)
    #expect(hits.count == 2)
    #expect(hits.first?["title"] as? String == "Buy [milk]")
    #expect((hits.last?["snippet"] as? String)?.contains("[milk]") == true)
    #expect(try reminders("search", "errand", "--json").output.contains("[errands]"))
    #expect(try reminders("search", "\"(*", "--json").output == "[]\n")

    // Edit, tag, untag, info.
    run = try reminders(
      "edit", milk, "--title", "Buy oat milk", "--due", "none", "--priority", "low",
      "--unflag", "--json")
    #expect(run.status == 0, "\(run.errors)")
    let edited = try #require((try run.json() as? [String: Any])?["reminder"] as? [String: Any])
    #expect(edited["title"] as? String == "Buy oat milk" && edited["dueDate"] == nil)
    #expect(try reminders("search", "oat").output.contains("[oat]"))
    try reminders("untag", milk, "#errands")
    try reminders("tag", milk, "shop", "home")
    run = try reminders("info", milk)
    #expect(run.output.contains("#home  #shop") && run.output.contains("semi-skimmed"))
    #expect(try reminders("search", "shop").output.contains("Buy oat milk"))
    #expect(try reminders("search", "errands").output.contains("Nothing matches"))

    // Move: positions within the list, rewritten in one UPDATE.
    let rows = try #require(
      try reminders("show", "--list", "Reminders", "--json").json() as? [[String: Any]])
    let bankID = try #require(
      rows.compactMap { $0["reminder"] as? [String: Any] }.first {
        $0["title"] as? String == "Call the bank"
      }?["id"] as? String)
    run = try reminders("move", bankID, "0", "--json")
    #expect(run.status == 0, "\(run.errors)")
    #expect(try titles("show", "--list", "Reminders") == ["Call the bank", "Buy oat milk"])

    // Complete, reopen, delete.
    try reminders("complete", milk, "--now")
    #expect(try titles("show", "--completed") == ["Buy oat milk"])
    try reminders("reopen", milk)
    #expect(try titles("show", "--completed") == [])
    try reminders("delete", bankID)
    #expect(try titles("show", "--all").contains("Call the bank") == false)
    run = try reminders("list-delete", "Office", "--json")
    #expect((try run.json() as? [String: Any])?["deletedReminders"] as? Int == 2)
    #expect(try titles("show", "--all") == ["Buy oat milk"])
    // The FTS index followed every change.
    #expect(try reminders("search", "report").output.contains("Nothing matches"))

    // Help on every command.
    run = try reminders("--help")
    #expect(run.status == 0)
    for command in [
      "lists", "list-add", "list-edit", "list-delete", "add", "show", "info", "edit", "complete",
      "reopen", "delete", "tag", "untag", "search", "stats", "move", "watch", "run",
    ] {
      #expect(run.output.contains("  \(command)"), "\(command) is missing from --help")
      let help = try reminders(command, "--help")
      #expect(help.status == 0 && help.output.hasPrefix("usage: hearth-reminders \(command)"))
    }
  }

  @Test func badInputIsRefusedAndNothingIsWritten() throws {
    let live = try LiveHub()
    defer { live.stop() }
    let hub = live.process
    let reminders = try FeatureCLI("hearth-reminders", hub: hub)
    let keep =
      try #require(
        (try reminders("add", "Keep me", "--json").json() as? [String: Any])?["reminder"]
          as? [String: Any])?["id"] as? String
    func count() throws -> Int {
      (try reminders("stats", "--json").json() as? [String: Int])?["allCount"] ?? -1
    }

    let missing = keep?.hasPrefix("9999") == true ? "8888" : "9999"
    var run = try reminders("info", missing)
    #expect(run.status == 4 && run.errors.contains("no reminder \(missing)"), "\(run.errors)")
    run = try reminders("complete", try #require(keep), missing)
    #expect(run.status == 4)
    #expect(try reminders("show", "--completed", "--json").output == "[]\n")  // not half-done
    run = try reminders("add", "Dentist", "--due", "2026-02-30")
    #expect(run.status == 2 && run.errors.contains("is not a date"))
    run = try reminders("add", "Dentist", "--due", "next tuesday-ish")
    #expect(run.status == 2)
    run = try reminders("add", "Dentist", "--priority", "urgent")
    #expect(run.status == 2 && run.errors.contains("not a priority"))
    run = try reminders("edit", "ab")
    #expect(run.status == 2 && run.errors.contains("'ab' is not a reminder id"), "\(run.errors)")
    run = try reminders("edit", "xyz!")
    #expect(run.status == 2 && run.errors.contains("is not a reminder id"))
    run = try reminders("frobnicate")
    #expect(run.status == 2 && run.errors.contains("unknown command"))
    run = try reminders("add")
    #expect(run.status == 2 && run.errors.contains("missing TITLE"))
    run = try reminders("show", "--list", "Nowhere")
    #expect(run.status == 4)

    // A 10 MB note, from standard input.
    let note = Data(repeating: UInt8(ascii: "a"), count: 10 << 20)
    run = try reminders("add", "Huge", "--notes", "-", input: note)
    #expect(run.status == 2 && run.errors.contains("longer than 1 MiB"))
    // Invalid UTF-8, as an argument and on standard input.
    run = try reminders.run(
      "/bin/sh", ["-c", "exec \"$0\" add \"$(printf 'bad \\377 bytes')\"", reminders.executable])
    #expect(run.status == 2 && run.errors.contains("not valid UTF-8"))
    run = try reminders("add", "Notes", "--notes", "-", input: Data([0x66, 0xC3, 0x28]))
    #expect(run.status == 2 && run.errors.contains("not valid UTF-8"))
    #expect(try count() == 1)
  }

  /// With the hub stopped, reads never go through it, and a command that must write says
  /// the hub is not running at once (its unix socket refuses), instead of timing out.
  @Test func readsWorkWithTheHubDownAndAWriteSaysItAtOnce() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let hub = try HubProcess(directory: directory)
    _ = try hub.waitUntilReady()
    let reminders = try FeatureCLI("hearth-reminders", hub: hub)
    try reminders("add", "Milk", "--tag", "shop")
    _ = hub.terminate()

    let show = try reminders("show")
    #expect(show.status == 0, "\(show.errors)")
    #expect(show.output.contains("Milk"))
    #expect(try reminders("search", "milk").output.contains("Milk"))
    #expect(try reminders("stats", "--json").status == 0)
    let started = ContinuousClock.now
    let add = try reminders("add", "Eggs")
    let waited = ContinuousClock.now - started
    #expect(add.status == 3)
    #expect(add.errors.contains("the hub is not running"), "\(add.errors)")
    // The default wait for a restarting hub is one second; a 5-second timeout, let alone
    // three, would show here.
    #expect(waited < .seconds(4), "\(waited)")
  }

  @Test func theRunDutyCompletesAnnouncesAndOutlivesAHubRestart() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    var hub = try HubProcess(directory: directory)
    _ = try hub.waitUntilReady()
    let reminders = try FeatureCLI("hearth-reminders", hub: hub)
    try reminders("add", "Past", "--due", "2001-01-01")
    let soon = try reminders("add", "Done soon", "--json").json() as? [String: Any]
    try reminders("complete", try #require((soon?["reminder"] as? [String: Any])?["id"] as? String))

    // Another process sees the announcement on the bus.
    let observer = try HubDatabase.registered(
      PluginRegistration(name: "observer", version: "1", tables: [], migrations: []),
      paths: HubPaths(databasePath: hub.databasePath, runtimeDirectory: hub.runtimeDirectory))
    let announced = LockedBox(false)
    let observation = observer.observeCommits { changes in
      if changes.touches(["reminderAlerts"]) { announced.value = true }
    }
    defer { observation.cancel() }

    let (duty, output) = try reminders.start(
      ["run", "--interval", "0.1", "--completion-delay", "0.3"])
    defer { duty.stop() }
    eventually { announced.value }
    try eventually {
      (try reminders("show", "--completed", "--json").json() as? [Any])?.count == 1
    }
    let alerts = try observer.read { db in
      try Int.fetchOne(db, sql: "SELECT count(*) FROM reminderAlerts") ?? 0
    }
    #expect(alerts == 1)

    // The hub dies under it and comes back: the duty goes on, and announces only once more
    // for a new due reminder (the old one is not announced twice).
    hub.kill()
    Thread.sleep(forTimeInterval: 0.5)
    #expect(duty.isRunning)
    hub = try HubProcess(directory: directory)
    defer { _ = hub.terminate() }
    _ = try hub.waitUntilReady()
    try reminders("add", "Also past", "--due", "2002-02-02")
    eventually {
      (try? observer.read { db in
        try Int.fetchOne(db, sql: "SELECT count(*) FROM reminderAlerts")
      }) == 2
    }
    #expect(duty.isRunning, "\(output.lines.suffix(5))")
    // Asked to stop, it stops cleanly.
    kill(duty.processIdentifier, SIGTERM)
    duty.waitUntilExit()
    #expect(duty.terminationStatus == 0)
  }

  @Test func watchRedrawsWhenAnotherProcessWrites() throws {
    let live = try LiveHub()
    defer { live.stop() }
    let hub = live.process
    let reminders = try FeatureCLI("hearth-reminders", hub: hub)
    let first = try reminders("add", "First", "--json").json() as? [String: Any]
    let firstID = try #require((first?["reminder"] as? [String: Any])?["id"] as? String)
    let screen = try reminders.startInTerminal(["watch"])
    defer { screen.stop() }
    eventually { screen.text.contains("First") }
    #expect(screen.text.contains("1 open · 0 today · 0 past due · 0 completed"))
    try reminders("add", "Second", "--flag")
    eventually { screen.text.contains("Second  ⚑") }
    try reminders("complete", firstID, "--now")
    eventually { screen.text.contains("· 1 completed") && !screen.text.contains("First") }

    // The hub is killed and comes back: the watch lives on and keeps redrawing.
    hub.kill()
    let restarted = try HubProcess(directory: live.directory)
    defer { _ = restarted.terminate() }
    _ = try restarted.waitUntilReady()
    try reminders("add", "After the restart")
    eventually { screen.text.contains("After the restart") }
  }

  @Test func anotherPluginCannotAlterTheRemindersTables() throws {
    let live = try LiveHub()
    defer { live.stop() }
    let hub = live.process
    let reminders = try FeatureCLI("hearth-reminders", hub: hub)
    try reminders("add", "Mine")
    let intruder = try HubDatabase.registered(
      PluginRegistration(name: "intruder", version: "1", tables: ["notes"], migrations: []),
      paths: HubPaths(databasePath: hub.databasePath, runtimeDirectory: hub.runtimeDirectory))
    for sql in [
      "DELETE FROM reminders", "UPDATE reminders SET title = 'x'",
      "INSERT INTO reminderTexts (rowid, title, notes, tags) VALUES (99, 'x', '', '')",
      "DELETE FROM reminderTexts_data", "DROP TABLE reminders",
    ] {
      let error = #expect(throws: (any Error).self, "\(sql)") {
        try intruder.write { db in try db.execute(sql: sql) }
      }
      // The hub refuses it, or SQLite does (FTS5's shadow tables are read-only to SQL).
      let message = error.map { "\($0)" } ?? ""
      #expect(
        message.contains("plugin intruder") || message.contains("may not be modified"),
        "\(sql): \(message)")
    }
    #expect(try reminders("show", "--json").output.contains("Mine"))
  }
}
