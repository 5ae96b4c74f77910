import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// `all` read after a query adds the table's default scope (`Row.unscoped.all` is `Row.all`,
// `Row.all.all` is `Row.all`); `find` narrows an update or a delete; an update sets one
// column of a group, or a whole group to a value, writing only what it names.

@Selection
struct BinCounts: Equatable {
  var onHand = 0
  var onOrder: Int?
}

@Table
struct Bin: Equatable, Identifiable {
  let id: Int
  var label = ""
  var counts = BinCounts()
}

/// A default scope that is a plain condition.
@Table
struct Ticket: Equatable, Identifiable {
  static let all = Self.where { !$0.isClosed }
  let id: Int
  var isClosed = false
}

private func rescopeDatabase() throws -> DatabaseQueue {
  let database = try DatabaseQueue()
  try database.write { db in
    try db.execute(
      sql: """
        CREATE TABLE "journalEntries" (
          "id" INTEGER PRIMARY KEY, "text" TEXT NOT NULL DEFAULT '',
          "isHidden" INTEGER NOT NULL DEFAULT 0);
        INSERT INTO "journalEntries" VALUES (1, 'first', 0), (2, 'hidden', 1), (3, 'third', 0);
        CREATE TABLE "tickets" ("id" INTEGER PRIMARY KEY, "isClosed" INTEGER NOT NULL);
        INSERT INTO "tickets" VALUES (1, 0), (2, 1);
        CREATE TABLE "bins" (
          "id" INTEGER PRIMARY KEY, "label" TEXT NOT NULL,
          "onHand" INTEGER NOT NULL, "onOrder" INTEGER);
        INSERT INTO "bins" VALUES (1, 'bolts', 4, NULL), (2, 'nuts', 9, 3);
        CREATE TABLE "binLog" ("binID" INTEGER, "what" TEXT);
        CREATE TRIGGER "binOnOrder" AFTER UPDATE OF "onOrder" ON "bins"
        BEGIN INSERT INTO "binLog" VALUES (NEW."id", 'onOrder'); END;
        """)
  }
  return database
}

@Suite struct RescopeAndGroupUpdateTests {
  @Test func allAfterAQueryAddsTheDefaultScope() throws {
    try rescopeDatabase().read { db in
      try assertQuery(
        JournalEntry.unscoped.all, in: db,
        sql:
          #"SELECT "journalEntries"."id", "journalEntries"."text", "journalEntries"."isHidden" FROM "journalEntries" WHERE NOT ("journalEntries"."isHidden") ORDER BY "journalEntries"."id" DESC"#,
        rows: "3 | third | 0\n1 | first | 0")
      try assertQuery(
        JournalEntry.all.all, in: db,
        sql:
          #"SELECT "journalEntries"."id", "journalEntries"."text", "journalEntries"."isHidden" FROM "journalEntries" WHERE NOT ("journalEntries"."isHidden") ORDER BY "journalEntries"."id" DESC"#,
        rows: "3 | third | 0\n1 | first | 0")
      #expect(try Ticket.unscoped.all.fetchAll(db) == [Ticket(id: 1)])
      #expect(try Ticket.all.all.fetchAll(db) == [Ticket(id: 1)])
      #expect(try Ticket.unscoped.fetchAll(db).count == 2)
      try assertQuery(
        Ticket.all.all, in: db,
        sql:
          #"SELECT "tickets"."id", "tickets"."isClosed" FROM "tickets" WHERE NOT ("tickets"."isClosed")"#,
        rows: "1 | 0")
    }
  }

  @Test func findNarrowsAnUpdateOrADelete() throws {
    try rescopeDatabase().write { db in
      try assertQuery(
        Bin.update { $0.label += "!" }.find(2).returning(\.label), in: db,
        sql:
          #"UPDATE "bins" SET "label" = ("bins"."label" || ?) WHERE ("bins"."id" = ?) RETURNING "label""#,
        rows: "nuts!")
      try assertQuery(
        Bin.update { $0.label += "?" }.find([1, 2]).returning(\.label), in: db,
        rows: "bolts?\nnuts!?")
      try assertQuery(Bin.delete().find(1).returning(\.id), in: db, rows: "1")
      try assertQuery(Bin.delete().find([7]).returning(\.id), in: db, rows: "")
      #expect(try Bin.fetchCount(db) == 1)
    }
  }

  @Test func anUpdateSetsOneColumnOfAGroup() throws {
    try rescopeDatabase().write { db in
      try assertQuery(
        Bin.find(1).update {
          $0.counts.onHand = 5
          $0.counts.onOrder = #bind(2)
        },
        in: db,
        sql: #"UPDATE "bins" SET "onHand" = ?, "onOrder" = ? WHERE ("bins"."id" = ?)"#,
        rows: "")
      // Reading a column of the group gives it as it stands before the update.
      try Bin.find(2).update { $0.counts.onHand = $0.counts.onHand + 1 }.execute(db)
      #expect(
        try Bin.order(by: \.id).fetchAll(db).map(\.counts) == [
          BinCounts(onHand: 5, onOrder: 2), BinCounts(onHand: 10, onOrder: 3),
        ])
      // A column set to itself is still named.
      try assertQuery(
        Bin.find(2).update { $0.counts.onOrder = $0.counts.onOrder }, in: db,
        sql: #"UPDATE "bins" SET "onOrder" = "bins"."onOrder" WHERE ("bins"."id" = ?)"#,
        rows: "")
      // Only the columns named are set: the trigger on "onOrder" fired for those rows alone.
      #expect(
        try String.fetchAll(db, sql: #"SELECT "binID" || "what" FROM "binLog""#) == [
          "1onOrder", "2onOrder",
        ])
    }
  }

  @Test func anUpdateSetsAWholeGroupToAValue() throws {
    try rescopeDatabase().write { db in
      try assertQuery(
        Bin.find(2).update { $0.counts = BinCounts(onHand: 1, onOrder: nil) }, in: db,
        sql: #"UPDATE "bins" SET "onHand" = ?, "onOrder" = ? WHERE ("bins"."id" = ?)"#,
        rows: "")
      #expect(try Bin.find(2).fetchOne(db)?.counts == BinCounts(onHand: 1, onOrder: nil))
      #expect(try Bin.find(1).fetchOne(db)?.counts == BinCounts(onHand: 4, onOrder: nil))
    }
  }
}
