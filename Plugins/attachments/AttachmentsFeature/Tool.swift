// hearth-attachments: links, notes and images attached to rows of any feature; `run` follows
// the change bus and removes the attachments of deleted rows, and collects orphaned files.
import Foundation
import HearthData
import HearthPlugin
import Synchronization

let noteLimit = 1 << 20
let imageLimit = 32 << 20

/// The hub connection of this process, registering the feature on first use.
func database() throws -> HubDatabase {
  try .shared(
    PluginRegistration(
      name: "attachments", version: "1.0", tables: ownedTables, migrator: migrator))
}

/// What people and scripts see of an attachment.
struct AttachmentOutput: Codable {
  var id: Int
  var ownerTable: String
  var ownerID: Int
  var createdAt: Date
  var kind: String
  var value: String
  /// The file of an image.
  var path: String?

  init(_ attachment: Attachment, store: ImageStore) {
    id = attachment.id
    ownerTable = attachment.ownerTable
    ownerID = attachment.ownerID
    createdAt = attachment.createdAt
    switch attachment.kind {
    case .link(let url): (kind, value) = ("link", url.absoluteString)
    case .note(let text): (kind, value) = ("note", text)
    case .image(let digest): (kind, value, path) = ("image", digest, store.url(digest).path)
    }
  }

  var line: String {
    let shown = kind == "note" && value.count > 60 ? String(value.prefix(59)) + "…" : value
    return String(format: "%4d  ", id) + "\(ownerTable)/\(ownerID)  \(kind)  "
      + shown.replacingOccurrences(of: "\n", with: " ")
  }
}

/// The exact name of table `name` (compared case-insensitively), which must exist.
func ownerTable(_ name: String, _ db: Database) throws -> String {
  guard
    let table = try String.fetchOne(
      db,
      sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE",
      arguments: [name])
  else {
    throw CommandError.notFound("no table '\(name)'; `hearth query` can list them")
  }
  return table
}

func requireOwner(_ table: String, _ id: Int, _ db: Database) throws -> String {
  let table = try ownerTable(table, db)
  guard
    try #sql("SELECT 1 FROM \(quote: table) WHERE rowid = \(id)", as: Int.self).fetchOne(db) != nil
  else { throw CommandError.notFound("\(table) has no row \(id)") }
  return table
}

func findAttachment(_ id: Int, _ db: Database) throws -> Attachment {
  guard let attachment = try Attachment.find(id).fetchOne(db) else {
    throw CommandError.notFound("no attachment \(id); `hearth-attachments list` shows them")
  }
  return attachment
}

/// Removes the attachments whose owner row (or table) is gone; returns how many.
func sweepOrphans(_ db: Database) throws -> Int {
  var removed = 0
  let tables = try Attachment.select(\.ownerTable).distinct().fetchAll(db)
  for table in tables {
    let exists =
      try Int.fetchOne(
        db, sql: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [table]
      )
      != nil
    if exists {
      try #sql(
        "DELETE FROM attachments WHERE ownerTable = \(table) AND ownerID NOT IN (SELECT rowid FROM \(quote: table))"
      )
      .execute(db)
    } else {
      try Attachment.where { $0.ownerTable.eq(table) }.delete().execute(db)
    }
    removed += db.changesCount
  }
  return removed
}

/// The digests of every image attachment.
func imageDigests(_ db: any DatabaseReader) throws -> [String] {
  let digests = try db.read { db in
    try Attachment.where { $0.kind.image.isNot(nil) }.select { $0.kind.image }.fetchAll(db)
  }
  return digests.compactMap { $0 }
}

/// Removes image files no attachment names, older than `age` (a younger one may belong to
/// an `add` whose row is not committed yet); returns how many.
func collectFiles(_ store: ImageStore, _ db: any DatabaseReader, olderThan age: TimeInterval) throws
  -> Int
{
  let named = Set(try imageDigests(db))
  var removed = 0
  for digest in store.digests() where !named.contains(digest) {
    let attributes = try? FileManager.default.attributesOfItem(atPath: store.url(digest).path)
    let modified = attributes?[.modificationDate] as? Date ?? .distantPast
    if Date().timeIntervalSince(modified) >= age {
      store.remove(digest)
      removed += 1
    }
  }
  return removed
}

/// The image files beside the hub's database.
func imageStore() throws -> ImageStore { ImageStore(databasePath: try database().path) }

package func attachmentsTool() -> Tool {
  var commands: [Command] = []
  commands.append(
    Command(
      "add", arguments: "TABLE ID (--link URL | --note TEXT|- | --image PATH)",
      summary: "attaches a link, a note or an image to row ID of TABLE",
      details: """
        TABLE is any feature's table (reminders, syncUps, facts…); the row must exist.
        --note - reads the note from standard input (UTF-8, at most 1 MiB).
        --image takes a PNG, JPEG, GIF or WebP file of at most 32 MiB.
        """,
      valuedOptions: ["link", "note", "image"]
    ) { input in
      let store = try imageStore()
      let table = try input.positional(0, name: "TABLE")
      let id = try input.positional(1, as: Int.self, name: "ID")
      let given = ["link", "note", "image"].filter { input.option($0) != nil }
      guard given.count == 1 else {
        throw CommandError.usage("give exactly one of --link, --note and --image")
      }
      let kind: Attachment.Kind
      if let text = input.option("link") {
        guard let url = URL(string: text), let scheme = url.scheme,
          url.host != nil || scheme == "file"
        else { throw CommandError.usage("'\(text)' is not a link; write it as https://…") }
        kind = .link(url)
      } else if let text = input.option("note") {
        let note = text == "-" ? try readStandardInput(limit: noteLimit) : text
        guard note.utf8.count <= noteLimit else {
          throw CommandError.usage(
            "the note is longer than \(byteCount(noteLimit)); nothing was saved")
        }
        guard !note.isEmpty else { throw CommandError.usage("the note is empty") }
        kind = .note(note)
      } else {
        let path = input.option("image")!
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
          let size = attributes[.size] as? Int
        else { throw CommandError.usage("cannot read \(path)") }
        guard size <= imageLimit else {
          throw CommandError.usage(
            "\(path) is \(byteCount(size)); the limit is \(byteCount(imageLimit))")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
          throw CommandError.usage("cannot read \(path)")
        }
        guard imageFormat(data) != nil else {
          throw CommandError.usage(
            "\(path) is not an image (PNG, JPEG, GIF or WebP); nothing was saved")
        }
        kind = .image(try store.store(data))
      }
      let attachment = try database().write { db in
        let owner = try requireOwner(table, id, db)
        return try Attachment.insert {
          Attachment.Draft(ownerTable: owner, ownerID: id, createdAt: Date(), kind: kind)
        }
        .returning(\.self).fetchOne(db)!
      }
      return .values(AttachmentOutput(attachment, store: store)) { "Attached:\n" + $0.line }
    })
  commands.append(
    Command(
      "list", arguments: "[TABLE [ID]]", summary: "the attachments, of one table or one row"
    ) { input in
      let store = try imageStore()
      let table = input.positionals.first
      let id = input.positionals.count > 1 ? try input.positional(1, as: Int.self, name: "ID") : nil
      let attachments = try database().read { db in
        var query = Attachment.where { _ in true }
        if let table {
          let name = try ownerTable(table, db)
          query = query.where { $0.ownerTable.eq(name) }
        }
        if let id { query = query.where { $0.ownerID.eq(id) } }
        return try query.order(by: \.id).fetchAll(db)
      }
      let outputs = attachments.map { AttachmentOutput($0, store: store) }
      return .values(outputs) { outputs in
        outputs.isEmpty ? "No attachments." : outputs.map(\.line).joined(separator: "\n")
      }
    })
  commands.append(
    Command("show", arguments: "ID", summary: "one attachment in full; an image's file is checked")
    { input in
      let store = try imageStore()
      let id = try input.positional(0, as: Int.self, name: "ID")
      let attachment = try database().read { try findAttachment(id, $0) }
      var output = AttachmentOutput(attachment, store: store)
      if case .image(let digest) = attachment.kind, try !store.verify(digest) {
        output.path = nil
        throw CommandError(
          "the file of image attachment \(id) is missing or damaged (\(store.url(digest).path))")
      }
      return .values(output) { output in
        "\(output.line)\n\ncreated \(output.createdAt)"
          + (output.kind == "note" ? "\n\n" + output.value : "")
          + (output.path.map { "\nfile \($0)" } ?? "")
      }
    })
  commands.append(
    Command("delete", arguments: "ID…", summary: "deletes attachments") { input in
      let ids = try input.positionals.indices.map {
        try input.positional($0, as: Int.self, name: "ID")
      }
      guard !ids.isEmpty else { throw CommandError.usage("missing ID") }
      try database().write { db in
        for id in ids { _ = try findAttachment(id, db) }
        try Attachment.where { $0.id.in(ids) }.delete().execute(db)
      }
      return .message(
        "Deleted \(ids.map(String.init).joined(separator: ", ")).", json: ["ids": ids])
    })
  commands.append(
    Command("verify", summary: "re-hashes every image file; exit 1 when one is missing or damaged")
    { _ in
      let store = try imageStore()
      let digests = try imageDigests(try database())
      let bad = try Set(digests).sorted().filter { try !store.verify($0) }
      guard bad.isEmpty else {
        throw CommandError(
          "\(bad.count) image file(s) missing or damaged: "
            + bad.map { store.url($0).path }.joined(separator: ", "))
      }
      return .message(
        "\(Set(digests).count) image file(s) verified.", json: ["verified": Set(digests).count])
    })
  commands.append(
    Command(
      "watch", arguments: "[TABLE]", summary: "the attachments, redrawn live as they change"
    ) { input in
      let store = try imageStore()
      let db = try database()
      let table = input.positionals.first
      watch(db, tables: ["attachments"], title: "hearth-attachments") {
        try db.read { db in
          var query = Attachment.where { _ in true }
          if let table { query = query.where { $0.ownerTable.eq(table) } }
          let lines = try query.order(by: \.id).fetchAll(db).map {
            AttachmentOutput($0, store: store).line
          }
          return lines.isEmpty ? "No attachments." : lines.joined(separator: "\n")
        }
      }
    })
  commands.append(
    Command(
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
      let interval =
        try input.seconds("interval", default: 0.5, in: 0.01...3600)
      let fileAge =
        try input.seconds("file-age", default: 60, in: 0...86_400)
      let store = try imageStore()
      let db = try database()
      let pending = Atomic<Bool>(true)
      let observation = db.observeCommits { changes in
        if changes.isSchemaChanged || !changes.tableNames.subtracting(["attachments"]).isEmpty {
          pending.store(true, ordering: .relaxed)
        }
      }
      let lastCollection = Locked(Date.distantPast)
      runDuties(name: "attachments", interval: .milliseconds(Int(interval * 1000))) {
        _ = observation
        if pending.exchange(false, ordering: .relaxed) {
          do {
            let removed = try db.write { try sweepOrphans($0) }
            if removed > 0 {
              Logger(label: "attachments").info("removed \(removed) attachment(s) of deleted rows")
            }
          } catch {
            pending.store(true, ordering: .relaxed)  // the hub may be restarting: next turn
            throw error
          }
        }
        let isCollectionDue = lastCollection.withLock { last in
          guard Date().timeIntervalSince(last) >= fileAge else { return false }
          last = Date()
          return true
        }
        if isCollectionDue {
          let removed = try collectFiles(store, db, olderThan: fileAge)
          if removed > 0 {
            Logger(label: "attachments").info("removed \(removed) orphaned image file(s)")
          }
        }
      }
    })
  return Tool.feature(
    name: "hearth-attachments", summary: "links, notes and images attached to any feature's rows",
    commands: commands)
}
