import Foundation
import HearthHTTP
import HearthSQLite
import HearthWeb
import Testing

@Suite struct TableBrowserTests {
  /// A database with NULLs and equal values in the sorted column, a table without rowids,
  /// a foreign key and an FTS5 index kept by triggers.
  func database() throws -> DatabaseQueue {
    let queue = try DatabaseQueue()
    try queue.write { db in
      try db.execute(
        sql: """
          CREATE TABLE lists (id INTEGER PRIMARY KEY, title TEXT);
          CREATE TABLE items (id INTEGER PRIMARY KEY, listID INTEGER REFERENCES lists(id),
            title TEXT, rank INTEGER);
          CREATE TABLE tags (name TEXT PRIMARY KEY, colour TEXT) WITHOUT ROWID;
          CREATE VIRTUAL TABLE itemTexts USING fts5(title);
          CREATE TRIGGER items_text AFTER INSERT ON items BEGIN
            INSERT INTO "itemTexts"(rowid, title) VALUES (new.id, new.title);
          END;
          INSERT INTO lists (id, title) VALUES (1, 'Home'), (2, 'Work');
          """)
      for index in 1...23 {
        // rank: NULL for every fifth, else one of four values: many ties.
        try db.execute(
          sql: "INSERT INTO items (listID, title, rank) VALUES (?, ?, ?)",
          arguments: [
            index % 2 + 1, "item \(index) \(index % 3 == 0 ? "milk" : "bread")",
            index % 5 == 0 ? nil : index % 4,
          ])
      }
      for name in ["b", "a", "d", "c", "e"] {
        try db.execute(
          sql: "INSERT INTO tags (name, colour) VALUES (?, ?)", arguments: [name, "red"])
      }
    }
    return queue
  }

  /// Every page of `table` in `order`, `size` rows a page: the keys in the order shown.
  func walk(
    _ table: BrowsedTable, _ order: TableBrowser.Order, size: Int, search: String? = nil,
    _ db: Database
  ) throws -> [RowKey] {
    var keys: [RowKey] = []
    var after: [KeyValue]?
    repeat {
      let page = try TableBrowser.page(
        of: table, order: order, after: after, search: search, limit: size, db)
      keys += page.rows.map(\.key)
      after = page.next
    } while after != nil
    return keys
  }

  @Test func keysetPagesCoverEveryRowOnceInOrder() throws {
    try database().read { db in
      let tables = try TableBrowser.tables(db)
      let items = try #require(tables.first { $0.name == "items" })
      for (column, descending) in [
        (nil, true), (nil, false), ("rank", false), ("rank", true), ("title", false),
      ] as [(String?, Bool)] {
        let orderBy =
          column.map {
            "\($0) IS NULL \(descending ? "DESC" : ""), \($0) \(descending ? "DESC" : ""), "
          }
          ?? ""
        let expected = try Int64.fetchAll(
          db, sql: "SELECT rowid FROM items ORDER BY \(orderBy)rowid \(descending ? "DESC" : "")"
        ).map { RowKey.rowid($0) }
        for size in [1, 3, 7, 100] {
          let keys = try walk(items, .init(column: column, descending: descending), size: size, db)
          #expect(keys == expected, "\(column ?? "rowid") \(descending) by \(size)")
        }
      }
    }
  }

  @Test func aTableWithoutRowidsPagesByItsKey() throws {
    try database().read { db in
      let tags = try #require(try TableBrowser.tables(db).first { $0.name == "tags" })
      #expect(!tags.hasRowid && tags.primaryKey == ["name"])
      let keys = try walk(tags, .init(column: nil, descending: false), size: 2, db)
      #expect(keys == ["a", "b", "c", "d", "e"].map { RowKey.key([.text($0)]) })
      let row = try TableBrowser.row(.key([.text("c")]), of: tags, db)
      #expect(row == ["c", "red"])
    }
  }

  @Test func searchUsesTheIndexTheTablesTriggersKeep() throws {
    try database().read { db in
      let tables = try TableBrowser.tables(db)
      #expect(!tables.contains { $0.name.hasPrefix("itemTexts_") }, "FTS5's shadow tables")
      let items = try #require(tables.first { $0.name == "items" })
      #expect(items.fullTextIndex == "itemTexts")
      let found = try walk(items, .init(column: nil, descending: false), size: 2, search: "mil", db)
      #expect(found == [3, 6, 9, 12, 15, 18, 21].map { RowKey.rowid($0) })
      // What a person types is never FTS5 syntax.
      #expect(
        try walk(items, .init(column: nil, descending: false), size: 5, search: "\"OR AND (", db)
          .isEmpty)
    }
  }

  @Test func aRowsPageListsWhatPointsToIt() throws {
    try database().read { db in
      let tables = try TableBrowser.tables(db)
      let lists = try #require(tables.first { $0.name == "lists" })
      let home = try #require(try TableBrowser.row(.rowid(1), of: lists, db))
      let referrers = try TableBrowser.referrers(of: home, in: lists, among: tables, db)
      #expect(referrers.map(\.table.name) == ["items"])
      #expect(referrers.first?.column == "listID")
      #expect(referrers.first?.rows.count == 11)
    }
  }

  @Test func aPositionThatDoesNotFitIsRefused() throws {
    try database().read { db in
      let items = try #require(try TableBrowser.tables(db).first { $0.name == "items" })
      #expect(throws: BrowseError.self) {
        try TableBrowser.page(
          of: items, order: .init(column: "rank", descending: false), after: [.integer(1)],
          search: nil, limit: 5, db)
      }
    }
  }
}
