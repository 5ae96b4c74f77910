import Foundation
import HearthQuery
import Testing

/// A colour stored as a 24-bit integer, through a custom representation.
struct Color: Hashable, Sendable {
  var red: UInt8
  var green: UInt8
  var blue: UInt8

  struct HexRepresentation: QueryBindable, QueryRepresentable {
    var queryOutput: Color
    init(queryOutput: Color) { self.queryOutput = queryOutput }

    var queryBinding: QueryBinding {
      let hex = Int(queryOutput.red) << 16 | Int(queryOutput.green) << 8 | Int(queryOutput.blue)
      return hex.queryBinding
    }

    init(decoder: inout QueryRowDecoder) throws {
      let hex = try decoder.decode(Int.self)
      queryOutput = Color(
        red: UInt8((hex >> 16) & 0xFF), green: UInt8((hex >> 8) & 0xFF), blue: UInt8(hex & 0xFF))
    }
  }
}

@Table
struct Swatch: Hashable, Identifiable {
  let id: UUID
  @Column(as: Color.HexRepresentation.self)
  var color: Color = Swatch.defaultColor
  @Column(as: [String].JSONRepresentation.self)
  var labels: [String] = []
  @Column("created_at")
  var createdAt: Date
  var isFavorite = false
  var thumbnail: Data?
  var weight: Double?
  @Ephemeral var isSelected = false
  var displayName: String { labels.joined(separator: ", ") }

  static let defaultColor = Color(red: 0x4a, green: 0x99, blue: 0xef)
}

/// The same table through a struct with its own initializer and a private setter: Swift
/// writes it no memberwise initializer, so the generated decoder assigns each property.
@Table("swatches")
struct SwatchWithInitializer: Hashable {
  let id: UUID
  @Column(as: Color.HexRepresentation.self)
  var color: Color
  @Column(as: [String].JSONRepresentation.self)
  var labels: [String]
  @Column("created_at")
  var createdAt: Date
  private(set) var isFavorite: Bool
  var thumbnail: Data?
  var weight: Double?

  init(_ swatch: Swatch) {
    id = swatch.id
    color = swatch.color
    labels = swatch.labels
    createdAt = swatch.createdAt
    isFavorite = swatch.isFavorite
    thumbnail = swatch.thumbnail
    weight = swatch.weight
  }
}

@Suite struct TypeTests {
  let database: DatabaseQueue

  init() throws {
    database = try DatabaseQueue()
    try database.write { db in
      try #sql(
        """
        CREATE TABLE "swatches" (
          "id" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (
            lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4'
            || substr(lower(hex(randomblob(2))), 2) || '-a'
            || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)))
          ),
          "color" INTEGER NOT NULL,
          "labels" TEXT NOT NULL DEFAULT '[]',
          "created_at" TEXT NOT NULL,
          "isFavorite" INTEGER NOT NULL DEFAULT 0,
          "thumbnail" BLOB,
          "weight" REAL
        ) STRICT
        """
      ).execute(db)
    }
  }

  let id = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
  let created = Date(timeIntervalSince1970: 1_700_000_000.25)

  @Test func storageFormatsMatchTheReference() throws {
    try database.write { db in
      try Swatch.insert {
        Swatch(
          id: id, color: Color(red: 1, green: 2, blue: 3), labels: ["warm", "dark"],
          createdAt: created, isFavorite: true, thumbnail: Data([0xDE, 0xAD]), weight: 0.5)
      }.execute(db)
    }
    let stored = try database.read { db in
      try Row.fetchOne(
        db,
        sql:
          "SELECT id, color, labels, created_at, isFavorite, hex(thumbnail), typeof(thumbnail), weight FROM swatches"
      )!
    }
    #expect(try stored[0] as String == "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")
    #expect(try stored[1] as Int == 0x010203)
    #expect(try stored[2] as String == #"["warm","dark"]"#)
    #expect(try stored[3] as String == "2023-11-14 22:13:20.250")
    #expect(try stored[4] as Int == 1)
    #expect(try stored[5] as String == "DEAD")
    #expect(try stored[6] as String == "blob")
    #expect(try stored[7] as Double == 0.5)
  }

  @Test func rowsRoundTrip() throws {
    let swatch = Swatch(
      id: id, color: Color(red: 9, green: 8, blue: 7), labels: ["a", "b"], createdAt: created,
      isFavorite: true, thumbnail: Data([1, 2, 3]), weight: nil)
    try database.write { try Swatch.insert(swatch).execute($0) }
    let fetched = try database.read { try Swatch.find(id).fetchOne($0) }
    #expect(fetched == swatch)
    #expect(fetched?.isSelected == false)
  }

  @Test func rowsDecodeWithoutAMemberwiseInitializer() throws {
    let swatch = Swatch(
      id: id, color: Color(red: 1, green: 2, blue: 3), labels: ["x"], createdAt: created,
      isFavorite: true, thumbnail: nil, weight: 2.5)
    try database.write { try Swatch.insert(swatch).execute($0) }
    let fetched = try database.read { try SwatchWithInitializer.find(id).fetchOne($0) }
    #expect(fetched == SwatchWithInitializer(swatch))
  }

  @Test func draftsCarryTheStructDefaults() throws {
    let draft = Swatch.Draft(createdAt: created)
    #expect(draft.id == nil)
    #expect(draft.color == Swatch.defaultColor)
    #expect(draft.labels == [])
    #expect(draft.isFavorite == false)
    try database.write { try Swatch.insert { draft }.execute($0) }
    let fetched = try #require(try database.read { try Swatch.fetchOne($0) })
    #expect(fetched.color == Swatch.defaultColor)
    #expect(fetched.createdAt == created)
  }

  @Test func customColumnNamesAndRepresentationsInQueries() throws {
    try database.write { db in
      try Swatch.insert {
        Swatch.Draft(color: Color(red: 0, green: 0, blue: 1), createdAt: created)
      }.execute(db)
      try Swatch.insert {
        Swatch.Draft(
          color: Color(red: 1, green: 0, blue: 0), createdAt: created.addingTimeInterval(60))
      }.execute(db)
    }
    expectSQL(Swatch.columns.createdAt, #""swatches"."created_at""#)
    let red = Color(red: 1, green: 0, blue: 0)
    let query = expectSQL(
      Swatch.where { $0.color == #bind(red, as: Color.HexRepresentation.self) }.select { $0.color },
      #"SELECT "swatches"."color" FROM "swatches" WHERE ("swatches"."color" = ?)"#,
      bindings: [0x010000])
    let colors: [Color] = try database.read { try query.fetchAll($0) }
    #expect(colors == [red])
    let latest = try database.read {
      try Swatch.order { $0.createdAt.desc() }.select(\.createdAt).fetchOne($0)
    }
    #expect(latest == created.addingTimeInterval(60))
  }

  @Test func enumsStoreTheirRawValues() throws {
    let db = try makeRemindersDatabase()
    let raw = try db.read { try Int.fetchAll($0, sql: "SELECT status FROM reminders ORDER BY id") }
    #expect(raw == [0, 0, 1])
    try db.write { try $0.execute(sql: "UPDATE reminders SET status = 7 WHERE id = 1") }
    let error = try #require(throws: QueryDecodingError.self) {
      try db.read { try Reminder.find(1).fetchOne($0) }
    }
    #expect(error.description.contains("Status"))
  }

  @Test func wrongStoredTypesAreTypedErrors() throws {
    try database.write { db in
      try db.execute(
        sql:
          "INSERT INTO swatches (id, color, labels, created_at) VALUES ('x', 1, 'not json', 'yesterday')"
      )
    }
    #expect(throws: (any Error).self) { try database.read { try Swatch.fetchAll($0) } }
    let labels = try #require(throws: QueryDecodingError.self) {
      try database.read { try Swatch.select(\.labels).fetchAll($0) }
    }
    #expect(labels.value == "'not json'")
    #expect(throws: RowDecodingError.self) {
      try database.read { try Swatch.select(\.createdAt).fetchAll($0) }
    }
  }
}
