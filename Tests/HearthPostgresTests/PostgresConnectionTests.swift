import Foundation
import HearthPostgres
import HearthTestbed
import Testing

/// libpq against a real PostgreSQL server the test starts (initdb + pg_ctl on a unix socket
/// in a temporary directory) and stops.
@Suite(.serialized) struct PostgresConnectionTests {
  let server: PostgresServer

  init() throws { server = try PostgresServer() }

  @Test func parametersAndRowsTravelAsTextWithNullsAndUnicode() throws {
    let connection = try PostgresConnection(server.conninfo())
    try connection.executeScript(
      "CREATE TABLE records (id text PRIMARY KEY, body text, n bigint); CREATE INDEX ON records (n)"
    )
    let inserted = try connection.execute(
      "INSERT INTO records VALUES ($1, $2, $3), ($4, $5, $6)",
      ["a-1", "naïve 🐦", "-9223372036854775808", "b-2", nil, "7"])
    #expect(inserted.changedRows == 2)
    let rows = try connection.execute("SELECT id, body, n FROM records ORDER BY id")
    #expect(rows.columns == ["id", "body", "n"])
    #expect(rows.rows == [["a-1", "naïve 🐦", "-9223372036854775808"], ["b-2", nil, "7"]])
    // A value is a parameter, never SQL.
    let quoted = try connection.execute(
      "SELECT count(*) FROM records WHERE id = $1", ["a-1' OR '1' = '1"])
    #expect(quoted.rows == [["0"]])
  }

  @Test func failuresCarryTheServersSQLState() throws {
    let connection = try PostgresConnection(server.conninfo())
    try connection.execute("CREATE TABLE once (id text PRIMARY KEY)")
    try connection.execute("INSERT INTO once VALUES ('x')")
    let duplicate = #expect(throws: PostgresError.self) {
      try connection.execute("INSERT INTO once VALUES ($1)", ["x"])
    }
    #expect(duplicate?.isUniqueViolation == true)
    #expect(duplicate?.sql == "INSERT INTO once VALUES ($1)")
    let syntax = #expect(throws: PostgresError.self) { try connection.execute("SELEKT 1") }
    #expect(syntax?.sqlState == "42601")
    // A failed transaction leaves nothing behind.
    #expect(throws: PostgresError.self) {
      try connection.inTransaction {
        try connection.execute("INSERT INTO once VALUES ('y')")
        try connection.execute("INSERT INTO once VALUES ('x')")
      }
    }
    #expect(try connection.execute("SELECT id FROM once ORDER BY id").rows == [["x"]])
    #expect(throws: PostgresError.self) {
      try PostgresConnection(server.conninfo(database: "no_such_database"))
    }
  }

  @Test func notificationsArriveOnTheListeningConnection() throws {
    let listener = try PostgresConnection(server.conninfo())
    try listener.listen("zone changes")
    let sender = try PostgresConnection(server.conninfo())
    #expect(try listener.notifications().isEmpty)
    try sender.execute("SELECT pg_notify($1, $2)", ["zone changes", "42"])
    var received: [PostgresNotification] = []
    let deadline = ContinuousClock.now + .seconds(5)
    while received.isEmpty, ContinuousClock.now < deadline {
      received += try listener.waitForNotifications(timeout: .milliseconds(200))
    }
    #expect(received.map(\.channel) == ["zone changes"])
    #expect(received.map(\.payload) == ["42"])
  }

  @Test func aRestartedServerBreaksTheConnectionAndTakesANewOne() throws {
    let connection = try PostgresConnection(server.conninfo())
    try connection.execute("SELECT 1")
    try server.restart()
    #expect(throws: PostgresError.self) { try connection.execute("SELECT 1") }
    #expect(!connection.isConnected)
    let again = try PostgresConnection(server.conninfo())
    #expect(try again.execute("SELECT 1").rows == [["1"]])
  }
}
