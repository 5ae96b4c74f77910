import Foundation
import HearthData
import HearthHTTP
import HearthPlugin
import HearthService
import HearthSupport

let caldav = Command(
  "caldav", arguments: "[--port PORT]",
  summary: "serves the reminders to CalDAV clients (phones, Thunderbird, vdirsyncer) on loopback",
  details: """
    Lists are calendars of tasks, reminders VTODOs, at http://127.0.0.1:PORT/dav/ and
    [::1]:PORT (default 4748; 0 picks a free one; /.well-known/caldav leads there). Clients
    log in with an app password (caldav-password add NAME). It listens on the loopback
    addresses only: reach it from a phone through an SSH tunnel or a reverse proxy with TLS
    (docs/caldav.md). Runs until SIGTERM or SIGINT.
    """,
  valuedOptions: ["port"]
) { input in
  @Dependency(\.defaultDatabase) var database
  let port = try input.integer("port", in: 0...65_535) ?? 4748
  let log = Logger(label: "reminders.caldav")
  let server = CalDAVServer(database: database)
  // A multiget names every resource a client wants (vdirsyncer asks for hundreds at once).
  var limits = HTTPServer.Limits()
  limits.bodyBytes = 8 << 20
  let http = HTTPServer(limits: limits, log: log) { server.handle($0) }
  try http.start(port: UInt16(port))
  FileHandle.standardOutput.write(
    Data(
      "hearth-reminders: CalDAV at http://127.0.0.1:\(http.port)/dav/ (app passwords: hearth-reminders caldav-password add NAME)\n"
        .utf8))
  let service = LoopService("caldav") { loop in
    while loop.wait(for: .seconds(3600)) {}
    http.stop()
  }
  try ServiceGroup([service], logger: log, grace: .seconds(2)).run()
  return .message("")
}

let caldavPassword = Command(
  "caldav-password", arguments: "add NAME | remove NAME | list",
  summary: "the app passwords CalDAV clients log in with",
  details: """
    add NAME     makes a password for client NAME (your phone, Thunderbird), prints it once
                 and keeps only its Argon2id hash; log in with NAME and it.
    remove NAME  revokes it: the client is refused from its next request.
    list         the clients that have one.
    """
) { input in
  @Dependency(\.defaultDatabase) var database
  switch input.positionals.first {
  case "add":
    let name = try input.positional(1, name: "NAME")
    guard (1...100).contains(name.count), !name.contains(":") else {
      throw CommandError.usage("a client's name is 1 to 100 characters, without ':'")
    }
    let password = AppPassword.make()
    let hash = try AppPassword.hash(password)
    try database.write { db in
      guard try CalDAVPassword.find(name).fetchOne(db) == nil else {
        throw CommandError("\(name) has a password; remove it first")
      }
      try CalDAVPassword.insert { CalDAVPassword(name: name, hash: hash, createdAt: Date()) }
        .execute(db)
    }
    return .message(
      "CalDAV user \(name), password \(password) (shown once)",
      json: ["name": name, "password": password])
  case "remove":
    let name = try input.positional(1, name: "NAME")
    let removed = try database.write { db in
      try CalDAVPassword.find(name).delete().execute(db)
      return db.changesCount
    }
    guard removed > 0 else { throw CommandError.notFound("no CalDAV password named \(name)") }
    return .message("revoked \(name)'s CalDAV password", json: ["name": name, "revoked": true])
  case "list", nil:
    let all = try database.read { db in try CalDAVPassword.order(by: \.name).fetchAll(db) }
    return .lines(all.map { $0.name }, json: all.map { ["name": $0.name] })
  case let other?:
    throw CommandError.usage("caldav-password takes add NAME, remove NAME or list, not \(other)")
  }
}
