import Foundation
import HearthQuery
import HearthSQLite
import Testing

/// A member of a group, keyed by the pair (group, person): a primary key made of a
/// `@Selection` group of two columns.
@Table
struct Membership: Equatable, Identifiable {
  let id: MembershipKey
  var role: String
  var joined: Int = 0
}

@Selection
struct MembershipKey: Hashable {
  let groupID: Int
  let personID: Int
}

enum OtherMembership: AliasName {}

@Suite struct CompositeKeyTests {
  func database() throws -> DatabaseQueue {
    let database = try DatabaseQueue()
    try database.write { db throws in
      try db.execute(
        sql: """
          CREATE TABLE "memberships" (
            "groupID" INTEGER NOT NULL ON CONFLICT REPLACE DEFAULT 1,
            "personID" INTEGER NOT NULL ON CONFLICT REPLACE DEFAULT 99,
            "role" TEXT NOT NULL,
            "joined" INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY ("groupID", "personID")
          )
          """)
      try Membership.insert {
        Membership(id: MembershipKey(groupID: 1, personID: 1), role: "owner")
        Membership(id: MembershipKey(groupID: 1, personID: 2), role: "reader")
        Membership(id: MembershipKey(groupID: 2, personID: 1), role: "writer")
      }
      .execute(db)
    }
    return database
  }

  @Test func findByTheGroupOfColumns() throws {
    let key = MembershipKey(groupID: 1, personID: 2)
    let find = Membership.find(key)
    #expect(
      find.query.sql
        == #"SELECT "memberships"."groupID", "memberships"."personID", "memberships"."role", "memberships"."joined" FROM "memberships" WHERE (("memberships"."groupID", "memberships"."personID") = (?, ?))"#
    )
    try database().read { db throws in
      #expect(try find.fetchAll(db).map(\.role) == ["reader"])
      // (2, 1) is another row than (1, 2): the columns compare as a pair.
      #expect(
        try Membership.find(MembershipKey(groupID: 2, personID: 1)).select(\.role).fetchAll(db)
          == ["writer"])
      let some = Membership.find([key, MembershipKey(groupID: 2, personID: 1)])
        .order(by: \.role).select(\.role)
      #expect(try some.fetchAll(db) == ["reader", "writer"])
      #expect(try Membership.where { $0.joined.eq(0) }.find(key).fetchCount(db) == 1)
      #expect(try Membership.all.find(MembershipKey(groupID: 9, personID: 9)).fetchAll(db).isEmpty)
      #expect(try Membership.as(OtherMembership.self).find(key).fetchOne(db)?.base.role == "reader")
    }
  }

  @Test func updateDeleteAndUpsertARowByItsKey() throws {
    let database = try database()
    try database.write { db throws in
      var row = try #require(
        try Membership.find(MembershipKey(groupID: 1, personID: 1)).fetchOne(db))
      row.role = "admin"
      try Membership.update(row).execute(db)
      try Membership.delete(
        Membership(id: MembershipKey(groupID: 1, personID: 2), role: "")
      ).execute(db)
      try Membership.update { $0.joined = 7 }.find(MembershipKey(groupID: 2, personID: 1))
        .execute(db)
      try Membership.upsert {
        Membership(id: MembershipKey(groupID: 2, personID: 1), role: "owner", joined: 8)
        Membership(id: MembershipKey(groupID: 3, personID: 3), role: "new")
      }
      .execute(db)
      let rows = try Membership.order { ($0.id.groupID, $0.id.personID) }.fetchAll(db)
      #expect(
        rows == [
          Membership(id: MembershipKey(groupID: 1, personID: 1), role: "admin"),
          Membership(id: MembershipKey(groupID: 2, personID: 1), role: "owner", joined: 8),
          Membership(id: MembershipKey(groupID: 3, personID: 3), role: "new"),
        ])
      try Membership.delete().find(MembershipKey(groupID: 3, personID: 3)).execute(db)
      #expect(try Membership.fetchCount(db) == 2)
    }
  }

  @Test func aDraftLeavesTheKeyToTheDatabase() throws {
    let database = try database()
    let inserted = try database.write { db throws in
      try Membership.insert { Membership.Draft(role: "guest") }.returning(\.self).fetchAll(db)
    }
    #expect(inserted == [Membership(id: MembershipKey(groupID: 1, personID: 99), role: "guest")])
    let draft = Membership.Draft(id: MembershipKey(groupID: 4, personID: 4), role: "given")
    try database.write { db in try Membership.insert { draft }.execute(db) }
    #expect(
      try database.read { db in
        try Membership.find(MembershipKey(groupID: 4, personID: 4)).select(\.role).fetchOne(db)
      } == "given")
  }
}

/// A private table whose key is a group nested in it: the macros' extensions of the nested
/// type name only what a file-private type may.
@Table("ledgerEntries")
private struct LedgerEntry {
  @Selection
  struct ID: Hashable {
    let book: String
    let line: Int
  }
  let id: ID
  var amount: Int
}

@Suite struct NestedPrivateKeyTests {
  @Test func aKeyGroupNestedInAPrivateTable() throws {
    let database = try DatabaseQueue()
    let amount = try database.write { db throws in
      try db.execute(
        sql: """
          CREATE TABLE "ledgerEntries" (
            "book" TEXT NOT NULL, "line" INTEGER NOT NULL, "amount" INTEGER NOT NULL,
            PRIMARY KEY ("book", "line"))
          """)
      try LedgerEntry.insert {
        LedgerEntry(id: LedgerEntry.ID(book: "a", line: 1), amount: 5)
        LedgerEntry(id: LedgerEntry.ID(book: "a", line: 2), amount: 7)
      }
      .execute(db)
      return try LedgerEntry.find(LedgerEntry.ID(book: "a", line: 2)).select(\.amount).fetchOne(db)
    }
    #expect(amount == 7)
  }
}
