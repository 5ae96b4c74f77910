// hearth-attachments: links, notes and images attached to rows of any feature; `run` follows
// the change bus and removes the attachments of deleted rows, and collects orphaned files.
// The commands read and render; `AttachmentActions` does the work, on the database the
// executable prepared (`@Dependency(\.defaultDatabase)`).
import Foundation
import HearthData
import HearthPlugin
import Synchronization

let noteLimit = 1 << 20
let imageLimit = 32 << 20

/// What people and scripts see of an attachment.
struct AttachmentOutput: Codable {
  var id: UUID
  var ownerTable: String
  var ownerID: String
  var createdAt: Date
  var kind: String
  var value: String
  /// The file of an image.
  var path: String?
  /// The owner row's title (or name, or text), when it has one.
  var ownerTitle: String?
  /// An image whose file is not here yet (synced from another device, its file on its way).
  var pending: Bool?

  init(_ attachment: Attachment, ownerTitle: String?, store: ImageStore) {
    id = attachment.id
    ownerTable = attachment.ownerTable
    ownerID = attachment.ownerID
    self.ownerTitle = ownerTitle
    createdAt = attachment.createdAt
    switch attachment.kind {
    case .link(let url): (kind, value) = ("link", url.absoluteString)
    case .note(let text): (kind, value) = ("note", text)
    case .image(let digest):
      (kind, value, path) = ("image", digest, store.url(digest).path)
      pending = FileManager.default.fileExists(atPath: store.url(digest).path) ? nil : true
    }
  }

  var line: String {
    let shown = kind == "note" && value.count > 60 ? String(value.prefix(59)) + "…" : value
    let owner =
      ownerTitle.map { "\"\($0.shownOnOneLine)\"" }
      ?? UUID(uuidString: ownerID).map(ShortID.of) ?? ownerID
    return ShortID.of(id) + "  \(ownerTable) \(owner)  \(kind)  " + shown.shownOnOneLine
      + (pending == true ? "  (file pending: not on this device yet)" : "")
  }
}

/// What people and scripts see of `attachments`, their owners named by title.
func outputs(_ attachments: [Attachment], store: ImageStore, _ db: Database) -> [AttachmentOutput] {
  let titles = AttachmentActions.ownerTitles(attachments, db)
  return attachments.map { AttachmentOutput($0, ownerTitle: titles[$0.id], store: store) }
}

/// The image files beside the hub's database.
func imageStore() -> ImageStore {
  @Dependency(\.defaultDatabase) var database
  return ImageStore(databasePath: database.path)
}

/// The one kind of attachment `input` gives (`--link`, `--note` or `--image`); an image's
/// bytes are stored in `store`.
func attachmentKind(_ input: CommandInput, store: ImageStore) throws -> Attachment.Kind {
  let given = ["link", "note", "image"].filter { input.option($0) != nil }
  guard given.count == 1 else {
    throw CommandError.usage("give exactly one of --link, --note and --image")
  }
  if let text = input.option("link") {
    guard let url = URL(string: text), let scheme = url.scheme, url.host != nil || scheme == "file"
    else { throw CommandError.usage("'\(text)' is not a link; write it as https://…") }
    return .link(url)
  }
  if let text = input.option("note") {
    let note = text == "-" ? try readStandardInput(limit: noteLimit) : text
    guard note.utf8.count <= noteLimit else {
      throw CommandError.usage("the note is longer than \(byteCount(noteLimit)); nothing was saved")
    }
    guard !note.isEmpty else { throw CommandError.usage("the note is empty") }
    return .note(note)
  }
  let path = input.option("image")!
  guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
    let size = attributes[.size] as? Int
  else { throw CommandError.usage("cannot read \(path)") }
  guard size <= imageLimit else {
    throw CommandError.usage("\(path) is \(byteCount(size)); the limit is \(byteCount(imageLimit))")
  }
  guard let data = FileManager.default.contents(atPath: path) else {
    throw CommandError.usage("cannot read \(path)")
  }
  guard imageFormat(data) != nil else {
    throw CommandError.usage("\(path) is not an image (PNG, JPEG, GIF or WebP); nothing was saved")
  }
  return .image(try store.store(data))
}

let add = Command(
  "add", arguments: "TABLE ID (--link URL | --note TEXT|- | --image PATH)",
  summary: "attaches a link, a note or an image to row ID of TABLE",
  details: """
    TABLE is any feature's table (reminders, syncUps, facts…); ID names a row of it that
    exists: its key, or a prefix of it as the feature's commands show it.
    --note - reads the note from standard input (UTF-8, at most 1 MiB).
    --image takes a PNG, JPEG, GIF or WebP file of at most 32 MiB.
    """,
  valuedOptions: ["link", "note", "image"]
) { input in
  @Dependency(\.defaultDatabase) var database
  @Dependency(\.date.now) var now
  let store = imageStore()
  let table = try input.positional(0, name: "TABLE")
  let id = try input.positional(1, name: "ID")
  let kind = try attachmentKind(input, store: store)
  let attachment = try database.write {
    try AttachmentActions.attach(kind, to: table, id, now: now, $0)
  }
  let output = try database.read { outputs([attachment], store: store, $0)[0] }
  return .values(output) { "Attached:\n" + $0.line }
}

let list = Command(
  "list", arguments: "[TABLE [ID]]", summary: "the attachments, of one table or one row"
) { input in
  @Dependency(\.defaultDatabase) var database
  let store = imageStore()
  let table = input.positionals.first
  let handle = input.positionals.count > 1 ? input.positionals[1] : nil
  let listed = try database.read { db in
    outputs(try AttachmentActions.list(table: table, handle: handle, db), store: store, db)
  }
  return .values(listed) { outputs in
    outputs.isEmpty ? "No attachments." : outputs.map(\.line).joined(separator: "\n")
  }
}

let show = Command(
  "show", arguments: "ID", summary: "one attachment in full; an image's file is checked"
) { input in
  @Dependency(\.defaultDatabase) var database
  let store = imageStore()
  let handle = try input.positional(0, name: "ID")
  let (attachment, output) = try database.read { db in
    let attachment = try AttachmentActions.find(handle, db)
    return (attachment, outputs([attachment], store: store, db)[0])
  }
  // A file not here yet is pending (sync brings it); one here but wrong is damaged.
  if case .image(let digest) = attachment.kind, output.pending != true, try !store.verify(digest) {
    throw CommandError(
      "the file of image attachment \(ShortID.of(attachment.id)) is damaged (\(store.url(digest).path))"
    )
  }
  return .values(output) { output in
    "\(output.line)\n\ncreated \(output.createdAt)"
      + (output.kind == "note" ? "\n\n" + output.value : "")
      + (output.path.map { "\nfile \($0)" } ?? "")
  }
}

let delete = Command("delete", arguments: "ID…", summary: "deletes attachments") { input in
  @Dependency(\.defaultDatabase) var database
  let handles = input.positionals
  guard !handles.isEmpty else { throw CommandError.usage("missing ID") }
  let ids = try database.write { try AttachmentActions.delete(handles, $0) }
  return .message(
    "Deleted \(ids.map(ShortID.of).joined(separator: ", ")).",
    json: ["ids": ids.map(\.uuidString)])
}

let verify = Command(
  "verify", summary: "re-hashes every image file; exit 1 when one is missing or damaged"
) { _ in
  @Dependency(\.defaultDatabase) var database
  let store = imageStore()
  let digests = Set(try database.read(AttachmentActions.imageDigests))
  let bad = try digests.sorted().filter { try !store.verify($0) }
  guard bad.isEmpty else {
    throw CommandError(
      "\(bad.count) image file(s) missing or damaged: "
        + bad.map { store.url($0).path }.joined(separator: ", "))
  }
  return .message("\(digests.count) image file(s) verified.", json: ["verified": digests.count])
}

let watchAttachments = Command(
  "watch", arguments: "[TABLE]", summary: "the attachments, redrawn live as they change"
) { input in
  @Dependency(\.defaultDatabase) var database
  let store = imageStore()
  let table = input.positionals.first
  _ = try database.read { try AttachmentActions.list(table: table, handle: nil, $0) }  // fails now
  watch(database, tables: [Attachment.tableName], title: "hearth-attachments") {
    let lines = try database.read { db in
      outputs(try AttachmentActions.list(table: table, handle: nil, db), store: store, db)
        .map(\.line)
    }
    return lines.isEmpty ? "No attachments." : lines.joined(separator: "\n")
  }
}

let run = Command(
  "run", arguments: "[--interval S] [--file-age S]",
  summary: "the background duty (what hearth-feature@attachments runs)",
  details: """
    Follows the change bus: when a commit touches another table, removes the attachments
    whose owner row is gone (also once at start, for what happened while it was down);
    every --file-age seconds (default 60), removes image files no attachment names that
    are older than that.
    """,
  valuedOptions: ["interval", "file-age"]
) { input in
  @Dependency(\.defaultDatabase) var database
  let interval = try input.seconds("interval", default: 0.5, in: 0.01...3600)
  let fileAge = try input.seconds("file-age", default: 60, in: 0...86_400)
  let store = imageStore()
  let pending = Atomic<Bool>(true)
  let observation = database.observeCommits { changes in
    if changes.isSchemaChanged || !changes.tableNames.subtracting([Attachment.tableName]).isEmpty {
      pending.store(true, ordering: .relaxed)
    }
  }
  let lastCollection = Locked(Date.distantPast)
  runDuties(name: "attachments", interval: .milliseconds(Int(interval * 1000))) {
    @Dependency(\.date) var date
    _ = observation
    let log = Logger(label: "attachments")
    if pending.exchange(false, ordering: .relaxed) {
      do {
        let removed = try database.write(AttachmentActions.sweepOrphans)
        if removed > 0 { log.info("removed \(removed) attachment(s) of deleted rows") }
      } catch {
        pending.store(true, ordering: .relaxed)  // the hub may be restarting: next turn
        throw error
      }
    }
    let now = date()
    let isCollectionDue = lastCollection.withLock { last in
      guard now.timeIntervalSince(last) >= fileAge else { return false }
      last = now
      return true
    }
    if isCollectionDue {
      let removed = try AttachmentActions.collectFiles(
        store, database, olderThan: fileAge, now: now)
      if removed > 0 { log.info("removed \(removed) orphaned image file(s)") }
    }
  }
}

/// The command line of the feature.
package func attachmentsTool() -> Tool {
  Tool.feature(
    name: "hearth-attachments", summary: "links, notes and images attached to any feature's rows",
    commands: [add, list, show, delete, verify, watchAttachments, run])
}
