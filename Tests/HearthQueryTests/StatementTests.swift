import Foundation
import HearthQuery
import Testing

@Table
struct Item: Hashable, Identifiable {
  let id: Int
  var title = ""
  var isInStock = true
  var notes = ""
  var position = 0
}

@Suite struct StatementTests {
  let database: DatabaseQueue

  init() throws {
    database = try DatabaseQueue()
    try database.write { db in
      try #sql(
        """
        CREATE TABLE "items" (
          "id" INTEGER PRIMARY KEY AUTOINCREMENT,
          "title" TEXT NOT NULL DEFAULT '' UNIQUE,
          "isInStock" INTEGER NOT NULL DEFAULT 1,
          "notes" TEXT NOT NULL DEFAULT '',
          "position" INTEGER NOT NULL DEFAULT 0
        ) STRICT
        """
      ).execute(db)
    }
  }

  func items() throws -> [Item] { try database.read { try Item.order(by: \.id).fetchAll($0) } }

  @Test func insertValues() throws {
    let insert = expectSQL(
      Item.insert {
        Item(id: 1, title: "Milk")
        Item(id: 2, title: "Eggs", isInStock: false, notes: "brown", position: 1)
      },
      #"INSERT INTO "items" ("id", "title", "isInStock", "notes", "position") VALUES (?, ?, ?, ?, ?), (?, ?, ?, ?, ?)"#,
      bindings: [1, "Milk", 1, "", 0, 2, "Eggs", 0, "brown", 1])
    try database.write { try insert.execute($0) }
    #expect(
      try items() == [
        Item(id: 1, title: "Milk"),
        Item(id: 2, title: "Eggs", isInStock: false, notes: "brown", position: 1),
      ])
    try database.write { try Item.insert(Item(id: 3, title: "Flour")).execute($0) }
    #expect(try items().count == 3)
  }

  @Test func insertsRowsFromLoopsAndBranches() throws {
    let titles = ["A", "B", "C"]
    let addExtra = true
    try database.write { db in
      try Item.insert {
        for (index, title) in titles.enumerated() { Item(id: index + 1, title: title) }
        if addExtra { Item(id: 10, title: "Extra") }
      }.execute(db)
    }
    #expect(try items().map(\.id) == [1, 2, 3, 10])
  }

  @Test func insertDraftsLetTheDatabaseChooseTheKey() throws {
    let insert = expectSQL(
      Item.insert { Item.Draft(title: "Milk") },
      #"INSERT INTO "items" ("title", "isInStock", "notes", "position") VALUES (?, ?, ?, ?)"#,
      bindings: ["Milk", 1, "", 0])
    try database.write { try insert.execute($0) }
    try database.write { try Item.insert(Item.Draft(title: "Eggs", notes: "brown")).execute($0) }
    #expect(
      try items() == [Item(id: 1, title: "Milk"), Item(id: 2, title: "Eggs", notes: "brown")])
    // A draft with a key keeps it.
    try database.write { try Item.insert { Item.Draft(id: 10, title: "Ten") }.execute($0) }
    #expect(try items().last?.id == 10)
    // A draft made from a row carries all of it.
    #expect(Item.Draft(Item(id: 5, title: "Five")).id == 5)
  }

  @Test func insertChosenColumns() throws {
    let insert = expectSQL(
      Item.insert {
        ($0.title, $0.position)
      } values: {
        ("Milk", 3)
        ("Eggs", 4)
      },
      #"INSERT INTO "items" ("title", "position") VALUES (?, ?), (?, ?)"#,
      bindings: ["Milk", 3, "Eggs", 4])
    try database.write { try insert.execute($0) }
    #expect(try items().map(\.position) == [3, 4])
    #expect(try items().allSatisfy(\.isInStock))
  }

  @Test func insertDefaultValues() throws {
    let insert = expectSQL(Item.insert(), #"INSERT INTO "items" DEFAULT VALUES"#)
    try database.write { try insert.execute($0) }
    #expect(try items() == [Item(id: 1)])
  }

  @Test func insertFromASelect() throws {
    try database.write { db in
      try Item.insert { Item.Draft(title: "Milk") }.execute(db)
      let copy = expectSQL(
        Item.insert {
          $0.title
        } select: {
          Item.select { $0.title + " (copy)" }
        },
        #"INSERT INTO "items" ("title") SELECT ("items"."title" || ?) FROM "items""#)
      try copy.execute(db)
    }
    #expect(try items().map(\.title) == ["Milk", "Milk (copy)"])
  }

  @Test func conflictResolution() throws {
    try database.write { try Item.insert(Item(id: 1, title: "Milk")).execute($0) }
    let error = try #require(throws: DatabaseError.self) {
      try database.write { try Item.insert(Item(id: 2, title: "Milk")).execute($0) }
    }
    #expect(error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE)
    let ignore = expectSQL(
      Item.insert(or: .ignore) { Item(id: 2, title: "Milk") },
      #"INSERT OR IGNORE INTO "items" ("id", "title", "isInStock", "notes", "position") VALUES (?, ?, ?, ?, ?)"#
    )
    try database.write { try ignore.execute($0) }
    #expect(try items().map(\.id) == [1])
    try database.write { try Item.insert(or: .replace) { Item(id: 2, title: "Milk") }.execute($0) }
    #expect(try items().map(\.id) == [2])
  }

  @Test func upsertUpdatesExistingRows() throws {
    try database.write { try Item.insert(Item(id: 1, title: "Milk")).execute($0) }
    let upsert = expectSQL(
      Item.upsert {
        Item(id: 1, title: "Oat milk", isInStock: false)
        Item(id: 2, title: "Eggs")
      },
      #"INSERT INTO "items" ("id", "title", "isInStock", "notes", "position") VALUES (?, ?, ?, ?, ?), (?, ?, ?, ?, ?) ON CONFLICT ("id") DO UPDATE SET "title" = "excluded"."title", "isInStock" = "excluded"."isInStock", "notes" = "excluded"."notes", "position" = "excluded"."position""#
    )
    try database.write { try upsert.execute($0) }
    #expect(
      try items() == [Item(id: 1, title: "Oat milk", isInStock: false), Item(id: 2, title: "Eggs")])
  }

  @Test func returning() throws {
    let insert = expectSQL(
      Item.insert { Item.Draft(title: "Milk") }.returning { ($0.id, $0.title) },
      #"INSERT INTO "items" ("title", "isInStock", "notes", "position") VALUES (?, ?, ?, ?) RETURNING "id", "title""#
    )
    let inserted = try database.write { try insert.fetchAll($0) }
    #expect(inserted.count == 1 && inserted[0].0 == 1 && inserted[0].1 == "Milk")
    let id = try database.write {
      try Item.insert { Item.Draft(title: "Eggs") }.returning(\.id).fetchOne($0)
    }
    #expect(id == 2)
    let whole = try database.write {
      try Item.find(1).update { $0.position = 7 }.returning { $0 }.fetchOne($0)
    }
    #expect(whole == Item(id: 1, title: "Milk", position: 7))
    let deleted = try database.write {
      try Item.where { $0.id == 2 }.delete().returning(\.title).fetchAll($0)
    }
    #expect(deleted == ["Eggs"])
  }

  @Test func batchReorderingWithCase() throws {
    try database.write { db in
      try Item.insert {
        Item(id: 1, title: "a", position: 0)
        Item(id: 2, title: "b", position: 1)
        Item(id: 3, title: "c", position: 2)
        Item(id: 4, title: "d", position: 3)
      }
      .execute(db)
    }
    // The seed's batch reordering: move the first item to the end (`move(fromOffsets:)` is
    // SwiftUI's; the array is moved by hand), one UPDATE for every position.
    var ids = try items().sorted { $0.position < $1.position }.map(\.id)
    ids.append(ids.removeFirst())
    let update =
      Item
      .where { $0.id.in(ids) }
      .update {
        let indexedIDs = Array(ids.enumerated())
        let (first, rest) = (indexedIDs.first!, indexedIDs.dropFirst())
        $0.position =
          rest
          .reduce(Case($0.id).when(first.element, then: first.offset)) { cases, id in
            cases.when(id.element, then: id.offset)
          }
          .else($0.position)
      }
    expectSQL(
      update,
      #"UPDATE "items" SET "position" = (CASE "items"."id" WHEN ? THEN ? WHEN ? THEN ? WHEN ? THEN ? WHEN ? THEN ? ELSE "items"."position" END) WHERE ("items"."id" IN (?, ?, ?, ?))"#,
      bindings: [2, 0, 3, 1, 4, 2, 1, 3, 2, 3, 4, 1])
    try database.write { try update.execute($0) }
    #expect(try items().map(\.position) == [3, 0, 1, 2])
  }

  @Test func caseWithConditionsAndWithoutElse() throws {
    try database.write { db in
      try Item.insert {
        Item(id: 1, title: "cheap", isInStock: true, position: 1)
        Item(id: 2, title: "gone", isInStock: false, position: 5)
        Item(id: 3, title: "pricey", isInStock: true, position: 9)
      }
      .execute(db)
    }
    let label = Item.order(by: \.id).select {
      Case().when(!$0.isInStock, then: "out").when($0.position > 5, then: "late").else("ok")
    }
    expectSQL(
      label,
      #"SELECT (CASE WHEN NOT ("items"."isInStock") THEN ? WHEN ("items"."position" > ?) THEN ? ELSE ? END) FROM "items" ORDER BY "items"."id""#
    )
    #expect(try database.read { try label.fetchAll($0) } == ["ok", "out", "late"])

    // No branch matches and no `else`: NULL, so the expression is optional.
    let matched = Item.order(by: \.id).select { Case($0.position).when(5, then: $0.title) }
    #expect(try database.read { try matched.fetchAll($0) } == [nil, "gone", nil])
  }

  @Test func filteredCountsAndJSONArrays() throws {
    try database.write { db in
      try Item.insert {
        Item(id: 1, title: "milk", isInStock: true, position: 1)
        Item(id: 2, title: "eggs", isInStock: false, position: 2)
        Item(id: 3, title: "jam", isInStock: true, position: 3)
      }
      .execute(db)
    }
    let stats = Item.select {
      (
        $0.count(), $0.count(filter: !$0.isInStock), $0.id.count(filter: $0.position > 1),
        $0.title.jsonGroupArray(filter: $0.isInStock)
      )
    }
    expectSQL(
      stats,
      #"SELECT count(*), count(*) FILTER (WHERE NOT ("items"."isInStock")), count("items"."id") FILTER (WHERE ("items"."position" > ?)), json_group_array("items"."title") FILTER (WHERE "items"."isInStock") FROM "items""#
    )
    let row = try #require(try database.read { try stats.fetchOne($0) })
    #expect(row.0 == 3 && row.1 == 1 && row.2 == 2)
    #expect(row.3 == ["milk", "jam"])

    let none = Item.where { $0.id > 100 }.select { $0.position.jsonGroupArray() }
    #expect(try database.read { try none.fetchOne($0) } == [])
  }

  @Test func updateAWholeRow() throws {
    try database.write { try Item.insert(Item(id: 1, title: "Milk")).execute($0) }
    var item = try #require(try items().first)
    item.title = "Oat milk"
    item.isInStock = false
    let update = expectSQL(
      Item.update(item),
      #"UPDATE "items" SET "title" = ?, "isInStock" = ?, "notes" = ?, "position" = ? WHERE ("items"."id" = ?)"#,
      bindings: ["Oat milk", 0, "", 0, 1])
    try database.write { try update.execute($0) }
    #expect(try items() == [item])
  }

  @Test func updateWithAssignments() throws {
    try database.write { db in
      try Item.insert {
        Item(id: 1, title: "Milk", position: 1)
        Item(id: 2, title: "Eggs", isInStock: false, position: 2)
      }.execute(db)
    }
    let update = expectSQL(
      Item.where { !$0.isInStock }.update {
        $0.isInStock = true
        $0.position += 10
        $0.title += "!"
      },
      #"UPDATE "items" SET "isInStock" = ?, "position" = ("items"."position" + ?), "title" = ("items"."title" || ?) WHERE NOT ("items"."isInStock")"#,
      bindings: [1, 10, "!"])
    try database.write { try update.execute($0) }
    #expect(
      try items() == [
        Item(id: 1, title: "Milk", position: 1), Item(id: 2, title: "Eggs!", position: 12),
      ])

    let bound = expectSQL(
      Item.find(1).update { $0.notes = #bind("from #bind") },
      #"UPDATE "items" SET "notes" = ? WHERE ("items"."id" = ?)"#)
    try database.write { try bound.execute($0) }
    try database.write { try Item.update { $0.toggle(\.isInStock) }.execute($0) }
    let stock = try items().map(\.isInStock)
    #expect(stock == [false, false])
    #expect(try items()[0].notes == "from #bind")
    // A column reads as it stands before the update, and of two assignments SQLite applies
    // the last (as the reference renders it): 1 * 2, not 5 * 2.
    try database.write {
      try Item.find(1).update {
        $0.position = 5
        $0.position *= 2
      }.execute($0)
    }
    #expect(try items()[0].position == 2)
  }

  @Test func updateWithASubquery() throws {
    try database.write { db in
      try Item.insert {
        Item(id: 1, title: "Milk", position: 4)
        Item(id: 2, title: "Eggs")
      }.execute(db)
      try Item.find(2).update { $0.position = Item.select { ($0.position.max() ?? -1) + 1 } }
        .execute(db)
    }
    #expect(try items().map(\.position) == [4, 5])
  }

  @Test func deleteRowsByValueQueryAndKey() throws {
    try database.write { db in
      try Item.insert {
        Item(id: 1, title: "A")
        Item(id: 2, title: "B", isInStock: false)
        Item(id: 3, title: "C")
        Item(id: 4, title: "D")
      }.execute(db)
    }
    let byValue = expectSQL(
      Item.delete(Item(id: 1, title: "A")), #"DELETE FROM "items" WHERE ("items"."id" = ?)"#,
      bindings: [1])
    try database.write { try byValue.execute($0) }
    let byQuery = expectSQL(
      Item.where { !$0.isInStock }.delete(), #"DELETE FROM "items" WHERE NOT ("items"."isInStock")"#
    )
    try database.write { try byQuery.execute($0) }
    try database.write { try Item.find(3).delete().execute($0) }
    #expect(try items().map(\.id) == [4])
    expectSQL(Item.delete(), #"DELETE FROM "items""#)
    try database.write { try Item.delete().execute($0) }
    #expect(try items().isEmpty)
  }

  @Test func seedInsertsRowsOfSeveralTables() throws {
    let reminders = try makeRemindersDatabase()
    try reminders.write { db in
      try db.seed {
        RemindersList(id: 3, title: "Garden")
        Reminder(id: 10, remindersListID: 3, title: "Plant bulbs")
        Tag(title: "outdoors")
        ReminderTag(reminderID: 10, tagID: "outdoors")
      }
    }
    let (lists, tagged) = try reminders.read { db in
      (
        try RemindersList.fetchCount(db),
        try ReminderTag.where { $0.tagID == "outdoors" }.fetchAll(db)
      )
    }
    #expect(lists == 3)
    #expect(tagged == [ReminderTag(reminderID: 10, tagID: "outdoors")])
  }

  @Test func aFailingStatementChangesNothingAndSaysWhy() throws {
    try database.write { try Item.insert(Item(id: 1, title: "Milk")).execute($0) }
    let error = try #require(throws: DatabaseError.self) {
      try database.write { db in
        try Item.insert(Item(id: 2, title: "Eggs")).execute(db)
        try Item.insert(Item(id: 3, title: "Milk")).execute(db)
      }
    }
    #expect(error.sql?.hasPrefix(#"INSERT INTO "items""#) == true)
    #expect(try items().map(\.id) == [1])
  }
}
