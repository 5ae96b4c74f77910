import Foundation
import HearthQuery
import Testing

// The snippets of ../shared/seeds that use only tables, enums, representations, selects,
// expressions, inserts, updates, deletes and #sql: each written as the seed writes it (the
// import aside), run against a real database, its result checked.

// MARK: - 002: the usage guide (fetching, dynamic queries, pagination, CRUD)

enum UsageGuideSeed {
  @Table
  struct Item: Identifiable {
    let id: Int  // Primary key (auto-generated for Int)
    var title = ""
    var isInStock = true
    var notes = ""
  }

  @Table
  struct Reminder: Identifiable {
    let id: Int
    var isCompleted = false
    var status: Status = .incomplete
    var title = ""

    enum Status: Int, QueryBindable {
      case incomplete = 0
      case completed = 1
      case completing = 2
    }
  }

  @Table
  struct Fact: Identifiable {
    let id: Int
    var body: String
  }

  @Table
  struct Tag: Hashable, Identifiable {
    @Column(primaryKey: true)
    var title: String
    var id: String { title }
  }

  @Table
  struct Player {
    let id: Int
    var name = ""
    var score = 0
  }

  static func database() throws -> DatabaseQueue {
    let database = try DatabaseQueue()
    try migrator.migrate(database)
    return database
  }

  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("Create tables") { db in
      try #sql(
        """
        CREATE TABLE "items" (
          "id" INTEGER PRIMARY KEY AUTOINCREMENT,
          "title" TEXT NOT NULL DEFAULT '',
          "isInStock" INTEGER NOT NULL DEFAULT 1,
          "notes" TEXT NOT NULL DEFAULT ''
        ) STRICT
        """
      )
      .execute(db)
      try #sql(
        """
        CREATE TABLE "reminders" (
          "id" INTEGER PRIMARY KEY AUTOINCREMENT,
          "isCompleted" INTEGER NOT NULL DEFAULT 0,
          "status" INTEGER NOT NULL DEFAULT 0,
          "title" TEXT NOT NULL DEFAULT ''
        ) STRICT
        """
      )
      .execute(db)
      try #sql(
        #"CREATE TABLE "facts" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "body" TEXT NOT NULL)"#
      )
      .execute(db)
      try #sql(#"CREATE TABLE "tags" ("title" TEXT PRIMARY KEY NOT NULL)"#).execute(db)
      try #sql(
        """
        CREATE TABLE players (
          id INTEGER PRIMARY KEY,
          name TEXT,
          score INTEGER
        )
        """
      )
      .execute(db)
    }
    // Register more migrations as your app evolves
    migrator.registerMigration("Add 'description' column") { db in
      try #sql(
        """
        ALTER TABLE "items"
        ADD COLUMN "description" TEXT
        """
      )
      .execute(db)
    }
    return migrator
  }
}

extension UsageGuideSeed {
  @Suite struct Tests {
    let database: DatabaseQueue

    init() throws {
      database = try UsageGuideSeed.database()
      try database.write { db in
        try db.seed {
          Item(id: 1, title: "Zucchini", isInStock: true, notes: "")
          Item(id: 2, title: "Apples", isInStock: false, notes: "Note")
          Item(id: 3, title: "Milk", isInStock: true, notes: "")
          Reminder(id: 1, isCompleted: true, status: .completed, title: "B")
          Reminder(id: 2, isCompleted: false, title: "A")
          Reminder(id: 3, isCompleted: true, status: .completing, title: "C")
          Player(id: 1, name: "Blob", score: 5)
          Player(id: 2, name: "Blob Jr", score: 20)
          Player(id: 3, name: "Blob Sr", score: 35)
        }
      }
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T { try database.read(body) }

    @Test func fetchingWithOrderingAndFiltering() throws {
      try read { (db: Database) throws in
        #expect(try Item.order(by: \.title).fetchAll(db).map(\.id) == [2, 3, 1])
        #expect(try Item.order(by: \.isInStock, \.title).fetchAll(db).map(\.id) == [2, 3, 1])
        #expect(
          try Reminder.where(\.isCompleted).order { $0.title.desc() }.fetchAll(db).map(\.id) == [
            3, 1,
          ])
        #expect(
          try Item.order {
            (
              $0.isInStock,
              $0.title
            )
          }.fetchAll(db).map(\.id) == [2, 3, 1])
        #expect(
          try Item.order {
            (
              $0.isInStock,
              $0.title.desc()
            )
          }.fetchAll(db).map(\.id) == [2, 1, 3])
        #expect(try Item.order { $0.id.desc() }.fetchAll(db).map(\.id) == [3, 2, 1])
        #expect(
          try Reminder.where(\.isCompleted).order(by: \.title).fetchAll(db).map(\.id) == [1, 3])
      }
    }

    @Test func fetchingWithSQL() throws {
      try read { db in
        let completedReminders: [Reminder] = try #sql(
          "SELECT * FROM reminders WHERE isCompleted ORDER BY title DESC"
        ).fetchAll(db)
        #expect(completedReminders.map(\.id) == [3, 1])
        let interpolated: [Reminder] = try #sql(
          """
          SELECT \(Reminder.columns)
          FROM \(Reminder.self)
          WHERE \(Reminder.isCompleted)
          ORDER BY \(Reminder.title) DESC
          """
        ).fetchAll(db)
        #expect(interpolated.map(\.id) == [3, 1])
        let completedRemindersCount: Int? = try #sql(
          "SELECT count(*) FROM reminders WHERE isCompleted"
        ).fetchOne(db)
        #expect(completedRemindersCount == 2)
      }
    }

    @Test func fetchingSingleValues() throws {
      try read { (db: Database) throws in
        #expect(try Reminder.count().fetchOne(db) == 3)
        #expect(try Reminder.where(\.isCompleted).count().fetchOne(db) == 2)
        #expect(try Item.where(\Item.isInStock).count().fetchOne(db) == 2)
        let players =
          try Player
          .where { $0.score > 10 }
          .fetchAll(db)
        #expect(players.map(\.id) == [2, 3])
        let averageScore =
          try Player
          .select { $0.score.avg() }
          .fetchOne(db)
        #expect(averageScore == 20)
      }
    }

    @Test func factsFetchKeyRequestQueries() throws {
      try database.write { db in
        try Fact.insert {
          Fact.Draft(body: "Some fact text")
        }
        .execute(db)
        try Fact.insert { Fact.Draft(body: "Another text about 42") }.execute(db)
      }
      let query = "42"
      try read { (db: Database) throws in
        let search =
          Fact
          .where { $0.body.contains(query) }
          .order { $0.id.desc() }
        #expect(try search.fetchAll(db).map(\.body) == ["Another text about 42"])
        #expect(try search.fetchCount(db) == 1)
        #expect(try Fact.fetchCount(db) == 2)
        #expect(try Fact.order { $0.id.desc() }.fetchAll(db).map(\.id) == [2, 1])
      }
    }

    @Test func dynamicQueriesAndPagination() throws {
      for order in ["forward", "reverse"] {
        let filterID: Int? = nil
        let items = try read { db in
          try Item
            .where { $0.id > #bind(filterID ?? 0) }
            .order {
              if order == "forward" {
                $0.title
              } else {
                $0.title.desc()
              }
            }
            .limit(10)
            .fetchAll(db)
        }
        #expect(
          items.map(\.title)
            == (order == "forward"
              ? ["Apples", "Milk", "Zucchini"] : ["Zucchini", "Milk", "Apples"]))
      }
      let pageSize = 2
      let page = 1  // 0-indexed
      let secondPage = try read { db in
        try Item
          .order { $0.title }
          .limit(pageSize, offset: page * pageSize)
          .fetchAll(db)
      }
      #expect(secondPage.map(\.title) == ["Zucchini"])
      // Cursor (keyset) pagination
      let firstPage = try read { db in try Item.order { $0.id }.limit(2).fetchAll(db) }
      let lastID = firstPage.last?.id
      let nextItems = try read { db in
        try Item
          .where { $0.id > #bind(lastID ?? 0) }
          .order { $0.id }
          .limit(20)
          .fetchAll(db)
      }
      #expect(nextItems.map(\.id) == [3])
    }

    @Test func createReadUpdateDelete() throws {
      try database.write { db in
        try Item.insert {
          Item(id: 10, title: "New Item", isInStock: true, notes: "")
        }
        .execute(db)
        try Item.insert().execute(db)
        try Item.insert(Item(id: 20, title: "Twenty", isInStock: false, notes: ""))
          .execute(db)
      }
      try database.write { db in
        let count = try Reminder.fetchCount(db)
        let items = try Item.where(\.isInStock).fetchAll(db)
        #expect(count == 3)
        #expect(items.map(\.id) == [1, 3, 10, 11])
      }
      var existingItem = try #require(try read { try Item.find(10).fetchOne($0) })
      existingItem.title = "New Title"
      try database.write { db in
        try Item.update(existingItem).execute(db)
      }
      #expect(try read { try Item.find(10).fetchOne($0) }?.title == "New Title")
      try database.write { db in
        try Reminder
          .where { $0.status.eq(#bind(.completing)) }
          .update { $0.status = #bind(.completed) }
          .execute(db)
      }
      #expect(
        try read { try Reminder.where { $0.status.eq(#bind(.completed)) }.fetchCount($0) } == 2)
      try database.write { db in
        try Item.delete(existingItem).execute(db)
      }
      let idsToDelete = [1, 2]
      try database.write { db in
        try Item
          .where { $0.id.in(idsToDelete) }
          .delete()
          .execute(db)
      }
      #expect(try read { try Item.fetchAll($0) }.map(\.id) == [3, 11, 20])
      try database.write { db in
        try db.seed {
          Tag(title: "car")
          Tag(title: "kids")
          Tag(title: "someday")
        }
      }
      let tagTitles = ["car", "someday"]
      try database.write { db in
        try Tag
          .where { $0.title.in(tagTitles) }
          .delete()
          .execute(db)
      }
      #expect(try read { try Tag.fetchAll($0) }.map(\.title) == ["kids"])
    }

    @Test func uniqueIndexMigration() throws {
      try database.write { db in
        try Item.insert {
          Item.Draft(title: "Milk")
          Item.Draft(title: "Apples")
        }.execute(db)
      }
      var migrator = UsageGuideSeed.migrator
      migrator.registerMigration("Make 'title' unique") { db in
        // 1️⃣ Delete all items that have duplicate title, keeping the first created one:
        try Item
          .delete()
          .where {
            !$0.id.in(
              Item
                .select { $0.id.min() }
                .group(by: \.title)
            )
          }
          .execute(db)
        // 2️⃣ Create unique index
        try #sql(
          """
          CREATE UNIQUE INDEX
          "items_title" ON "items" ("title")
          """
        )
        .execute(db)
      }
      try migrator.migrate(database)
      #expect(try read { try Item.order(by: \.id).fetchAll($0) }.map(\.id) == [1, 2, 3])
      #expect(throws: DatabaseError.self) {
        try database.write { try Item.insert { Item.Draft(title: "Milk") }.execute($0) }
      }
    }
  }
}
