import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// A type that converts losslessly to and from text is stored as its text; text that does
// not convert back is a typed decoding error, not a wrong value.

struct EmailAddress: Equatable, LosslessStringConvertible, QueryBindable {
  var description: String
  init?(_ description: String) {
    guard description.contains("@") else { return nil }
    self.description = description
  }
}

@Table
struct Contact: Equatable, Identifiable {
  let id: Int
  var email: EmailAddress
}

@Suite struct BindingFormsTests {
  @Test func aLosslessStringConvertibleValueIsStoredAsItsText() throws {
    let database = try DatabaseQueue()
    try database.write { db in
      try db.execute(
        sql: #"CREATE TABLE "contacts" ("id" INTEGER PRIMARY KEY, "email" TEXT NOT NULL)"#)
      let email = try #require(EmailAddress("blob@example.com"))
      try Contact.insert { Contact(id: 1, email: email) }.execute(db)
      #expect(
        try String.fetchOne(db, sql: #"SELECT "email" FROM "contacts""#) == "blob@example.com")
      #expect(try Contact.where { $0.email.eq(email) }.fetchOne(db) == Contact(id: 1, email: email))
      #expect(try Contact.select(\.email).fetchAll(db) == [email])
      try db.execute(sql: #"INSERT INTO "contacts" VALUES (2, 'not an address')"#)
      #expect(throws: QueryDecodingError.self) { try Contact.find(2).fetchOne(db) }
    }
  }

  @Test func anUnsignedSixtyFourBitIntegerReadsFromAnIntegerColumn() throws {
    let database = try DatabaseQueue()
    try database.read { db in
      let ten = try Values(#sql("10", as: UInt64.self)).fetchOne(db)
      let null = try Values(#sql("NULL", as: UInt64?.self)).fetchOne(db)
      let largest = try Values(#sql("9223372036854775807", as: UInt64.self)).fetchOne(db)
      #expect(ten == 10)
      #expect(null == .some(nil))
      #expect(largest == UInt64(Int64.max))
      // Negative: an error, not a wrapped value.
      #expect(throws: QueryDecodingError.self) {
        _ = try Values(#sql("-1", as: UInt64.self)).fetchOne(db)
      }
    }
  }

  @Test func unhexReadsHexadecimalDigits() throws {
    let database = try DatabaseQueue()
    try database.read { db in
      try assertQuery(
        Values("deadBEEF".unhex()), in: db, sql: "SELECT unhex(?)", rows: "x'deadbeef'")
      try assertQuery(Values("de-ad be-ef".unhex("- ")), in: db, rows: "x'deadbeef'")
      // An odd count of digits, a character not skipped, and NULL give NULL; no digits, no
      // bytes.
      try assertQuery(Values("abc".unhex()), in: db, rows: "NULL")
      try assertQuery(Values("zz".unhex()), in: db, rows: "NULL")
      try assertQuery(Values("d-e".unhex("-")), in: db, rows: "NULL")
      try assertQuery(Values("".unhex()), in: db, rows: "x''")
      #expect(try Values("0102ff".unhex()).fetchOne(db) == [1, 2, 255])
    }
  }
}

/// A raw-value enum that is not `QueryBindable` itself.
enum Ranking: Int {
  case low, medium, high
}

@Table
struct RankedItem: Equatable, Identifiable {
  let id: Int
  @Column(as: Ranking.RawRepresentation.self)
  var ranking: Ranking
  @Column(as: Ranking?.RawRepresentation.self)
  var backup: Ranking?
}

@Suite struct RawRepresentationFormsTests {
  @Test func aRawRepresentableValueIsStoredAsItsRawValue() throws {
    let database = try DatabaseQueue()
    try database.write { db in
      try db.execute(
        sql: """
          CREATE TABLE "rankedItems" (
            "id" INTEGER PRIMARY KEY, "ranking" INTEGER NOT NULL, "backup" INTEGER)
          """)
      try assertQuery(
        RankedItem.insert {
          RankedItem(id: 1, ranking: .medium, backup: .high)
          RankedItem(id: 2, ranking: .low, backup: nil)
        }.returning(\.self), in: db,
        sql:
          #"INSERT INTO "rankedItems" ("id", "ranking", "backup") VALUES (?, ?, ?), (?, ?, ?) RETURNING "id", "ranking", "backup""#,
        rows: "1 | 1 | 2\n2 | 0 | NULL")
      #expect(
        try RankedItem.where { $0.ranking.eq(#bind(.medium)) }.fetchAll(db) == [
          RankedItem(id: 1, ranking: .medium, backup: .high)
        ])
      try db.execute(sql: #"INSERT INTO "rankedItems" VALUES (3, 7, NULL)"#)
      #expect(throws: QueryDecodingError.self) { try RankedItem.find(3).fetchOne(db) }
    }
  }
}

@Suite struct LiteralSQLTests {
  @Test func valuesInterpolatedIntoLiteralSQLAreBound() throws {
    let database = try DatabaseQueue()
    try database.write { db in
      try db.execute(sql: #"CREATE TABLE "models" ("date" TEXT NOT NULL, "note" TEXT)"#)
      let date = Date(timeIntervalSince1970: 123.456)
      let note = "it's; DROP TABLE models"
      try db.execute(literal: "INSERT INTO models (date, note) VALUES (\(date), \(note))")
      let stored = try Row.fetchOne(db, sql: "SELECT date, note FROM models")
      #expect(
        stored?.databaseValues.map(\.description) == [
          "'1970-01-01 00:02:03.456'", "'it''s; DROP TABLE models'",
        ])
    }
  }
}
