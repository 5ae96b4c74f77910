import Foundation
import HearthDataTestSupport
import HearthTestbed
import HearthWire
import Testing

@testable import AttachmentsFeature

@Suite struct SHA256Tests {
  @Test func matchesTheStandardsVectors() {
    #expect(
      SHA256.hex(Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(
      SHA256.hex(Data("abc".utf8))
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(
      SHA256.hex(Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
        == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    #expect(
      SHA256.hex(Data(repeating: UInt8(ascii: "a"), count: 1_000_000))
        == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  }

  @Test func recognisesImagesByTheirFirstBytes() {
    #expect(imageFormat(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0])) == "png")
    #expect(imageFormat(Data([0xFF, 0xD8, 0xFF, 0xE0])) == "jpeg")
    #expect(imageFormat(Data("GIF89a....".utf8)) == "gif")
    #expect(imageFormat(Data("RIFF\0\0\0\0WEBPVP8 ".utf8)) == "webp")
    #expect(imageFormat(Data("hello, world".utf8)) == nil)
    #expect(imageFormat(Data()) == nil)
  }
}

@Suite(.serialized) struct AttachmentsFeatureTests {
  /// A tiny PNG header: enough for the format check, distinct per `marker`.
  func png(_ marker: String) -> Data {
    Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(marker.utf8)
  }

  @Test func everyCommandAndTheBusDrivenCleanUp() throws {
    let live = try LiveHub()
    defer { live.stop() }
    let (hub, directory) = (live.process, live.directory)
    let reminders = try FeatureCLI("hearth-reminders", hub: hub)
    let attachments = try FeatureCLI("hearth-attachments", hub: hub)
    let milk = try reminders.made("add", "Milk", key: "reminder")
    let bread = try reminders.made("add", "Bread", key: "reminder")
    let (m, b) = (String(milk.prefix(8)), String(bread.prefix(6)))

    var run = try attachments("add", "reminders", m, "--note", "semi-skimmed", "--json")
    #expect(run.status == 0, "\(run.errors)")
    #expect((try run.json() as? [String: Any])?["kind"] as? String == "note")
    let note = try #require((try run.json() as? [String: Any])?["id"] as? String)
    #expect((try run.json() as? [String: Any])?["ownerID"] as? String == milk.lowercased())
    run = try attachments("add", "Reminders", milk, "--link", "https://example.com/milk", "--json")
    #expect((try run.json() as? [String: Any])?["ownerTable"] as? String == "reminders")
    let image = directory.appendingPathComponent("cat.png")
    try png("cat").write(to: image)
    run = try attachments("add", "reminders", b, "--image", image.path, "--json")
    #expect(run.status == 0, "\(run.errors)")
    let imageOutput = try #require(try run.json() as? [String: Any])
    let digest = try #require(imageOutput["value"] as? String)
    #expect(digest == SHA256.hex(png("cat")))
    let stored = try #require(imageOutput["path"] as? String)
    #expect(FileManager.default.contents(atPath: stored) == png("cat"))
    // The same picture twice is one file.
    let milkImage = try attachments.made("add", "reminders", m, "--image", image.path)

    run = try attachments("list", "reminders", m, "--json")
    let listed = try #require(try run.json() as? [[String: Any]])
    #expect(listed.map { $0["kind"] as? String } == ["note", "link", "image"])
    // A row is shown by its title, not its key.
    #expect(try attachments("list").output.contains("reminders \"Bread\"  image"))
    run = try attachments("show", String(note.prefix(4)))
    #expect(run.status == 0 && run.output.contains("semi-skimmed"))
    #expect(try attachments("verify", "--json").output.contains("\"verified\":1"))

    // Bad input: each refused, nothing written.
    run = try attachments("add", "reminders", "99", "--note", "x")
    #expect(run.status == 4 && run.errors.contains("reminders has no row 99"))
    run = try attachments("add", "reminders", "Milk", "--note", "x")
    #expect(run.status == 4 && run.errors.contains("reminders has no row Milk"))
    run = try attachments("add", "nowhere", "1", "--note", "x")
    #expect(run.status == 4 && run.errors.contains("no table 'nowhere'"))
    let text = directory.appendingPathComponent("not-an-image.png")
    try Data("just text".utf8).write(to: text)
    run = try attachments("add", "reminders", m, "--image", text.path)
    #expect(run.status == 2 && run.errors.contains("is not an image"))
    run = try attachments("add", "reminders", m, "--link", "not a link")
    #expect(run.status == 2)
    run = try attachments("add", "reminders", m, "--note", "a", "--link", "https://a.b")
    #expect(run.status == 2 && run.errors.contains("exactly one"))
    run = try attachments(
      "add", "reminders", m, "--note", "-", input: Data(repeating: 0x61, count: 10 << 20))
    #expect(run.status == 2 && run.errors.contains("longer than 1 MiB"))
    run = try attachments("add", "reminders", m, "--note", "-", input: Data([0xFF, 0xFE]))
    #expect(run.status == 2 && run.errors.contains("not valid UTF-8"))
    #expect(try attachments("show", note.hasPrefix("4242") ? "4343" : "4242").status == 4)
    #expect((try attachments("list", "--json").json() as? [Any])?.count == 4)
    // (the watch below adds a fifth)

    // Watch redraws when another process attaches something.
    let screen = try attachments.startInTerminal(["watch", "reminders"])
    defer { screen.stop() }
    eventually { screen.text.contains("semi-skimmed") }
    let breadLink = try attachments.made(
      "add", "reminders", b, "--link", "https://example.com/bread")
    eventually { screen.text.contains("https://example.com/bread") }

    // A damaged file is found.
    try png("dog").write(to: URL(fileURLWithPath: stored))
    run = try attachments("verify")
    #expect(run.status == 1 && run.errors.contains("damaged"))
    try png("cat").write(to: URL(fileURLWithPath: stored))

    // The duty follows the bus: deleting a reminder (another feature's write) removes its
    // attachments; the image file no attachment names any more is collected.
    let (duty, output) = try attachments.start(["run", "--interval", "0.1", "--file-age", "0.5"])
    defer { duty.stop() }
    // Milk's image and the bread link go; bread keeps its image.
    try attachments("delete", String(milkImage.prefix(6)), breadLink)
    try reminders("delete", m)
    try eventually {
      (try attachments("list", "reminders", "--json").json() as? [[String: Any]])?.count == 1
    }
    #expect(try attachments("list", "reminders", b).output.contains("image"))
    #expect(try attachments("list", "reminders", m).errors.contains("reminders has no row"))
    #expect(FileManager.default.fileExists(atPath: stored))
    try reminders("delete", b)
    try eventually { try attachments("list", "--json").output == "[]\n" }
    eventually { !FileManager.default.fileExists(atPath: stored) }
    #expect(duty.isRunning, "\(output.lines.suffix(5))")
  }
}
