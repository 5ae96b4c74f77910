import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// Groups inside groups: a group holding a group is stored in the inner group's columns, and
// a table's optional row of another table (which holds a group) is NULL in each of them.

@Selection
struct Dimensions: Equatable {
  var width = 0
  var height = 0
}

@Selection
struct Frame: Equatable {
  var size = Dimensions()
  var border = 0
  @Column(as: Date.UnixTimeRepresentation.self)
  var framedAt = Date(timeIntervalSince1970: 0)
}

@Table
struct Picture: Equatable {
  var title = ""
  var frame = Frame()
}

@Table
struct Hanging: Equatable {
  var picture: Picture?
  var room = ""
}

/// A selection holding a table's row: its columns are the table's, named as the table
/// names them, in a common table expression.
@Selection
struct ListAndReminderCount: Equatable {
  let list: RemindersList
  let reminders: Int
}

@Suite struct NestedGroupTests {
  @Test func aSelectionHoldingARowNamesEachOfItsColumns() throws {
    try conformanceDatabase().read { db in
      let query = With {
        RemindersList.group(by: \.id).join(Reminder.all) { $0.id.eq($1.remindersListID) }
          .select { ListAndReminderCount.Columns(list: $0, reminders: $1.id.count()) }
      } query: {
        ListAndReminderCount.order(by: \.reminders).select { ($0.list.title, $0.reminders) }
      }
      try assertQuery(query, in: db, rows: "Work | 2\nPersonal | 4")
      #expect(
        ListAndReminderCount._columnNames == ["id", "color", "title", "position", "reminders"])
      #expect(ListAndReminderCount._columnIndex(\.reminders) == 4)
      let rows = try With {
        RemindersList.group(by: \.id).join(Reminder.all) { $0.id.eq($1.remindersListID) }
          .select { ListAndReminderCount.Columns(list: $0, reminders: $1.id.count()) }
      } query: {
        ListAndReminderCount.order(by: \.reminders)
      }.fetchAll(db)
      #expect(rows.map(\.list.title) == ["Work", "Personal"])
    }
  }

  private func database() throws -> DatabaseQueue {
    let database = try DatabaseQueue()
    try database.write { db in
      try db.execute(
        sql: """
          CREATE TABLE "pictures" (
            "title" TEXT NOT NULL, "width" INTEGER NOT NULL, "height" INTEGER NOT NULL,
            "border" INTEGER NOT NULL, "framedAt" INTEGER NOT NULL);
          CREATE TABLE "hangings" (
            "title" TEXT, "width" INTEGER, "height" INTEGER, "border" INTEGER,
            "framedAt" INTEGER, "room" TEXT NOT NULL);
          """)
    }
    return database
  }

  @Test func aGroupInsideAGroupIsStoredInItsColumns() throws {
    try database().write { db in
      let picture = Picture(
        title: "Sea",
        frame: Frame(
          size: Dimensions(width: 30, height: 20), border: 2,
          framedAt: Date(timeIntervalSince1970: 86_400)))
      try assertQuery(
        Picture.insert { picture }, in: db,
        sql:
          #"INSERT INTO "pictures" ("title", "width", "height", "border", "framedAt") VALUES (?, ?, ?, ?, ?)"#,
        rows: "")
      #expect(try Picture.all.fetchAll(db) == [picture])
      // A representation inside the group stores its own way: seconds, as an integer.
      #expect(try Int.fetchOne(db, sql: #"SELECT "framedAt" FROM "pictures""#) == 86_400)
      try assertQuery(
        Picture.where { $0.frame.size.width.gt(10) }.select { $0.frame.size.height }, in: db,
        sql:
          #"SELECT "pictures"."height" FROM "pictures" WHERE ("pictures"."width" > ?)"#,
        rows: "20")
      try Picture.update { $0.frame = Frame(size: Dimensions(width: 40, height: 25), border: 3) }
        .execute(db)
      #expect(
        try Picture.select(\.frame).fetchAll(db) == [
          Frame(size: Dimensions(width: 40, height: 25), border: 3)
        ])
      #expect(
        try Values(Frame.Columns(size: Dimensions.Columns(width: 1, height: 2), border: 3))
          .fetchOne(db) == Frame(size: Dimensions(width: 1, height: 2), border: 3))
    }
  }

  @Test func anOptionalRowOfATableWithAGroupIsNullInEachColumn() throws {
    try database().write { db in
      let hung = Hanging(
        picture: Picture(
          title: "Sea", frame: Frame(size: Dimensions(width: 30, height: 20), border: 2)),
        room: "hall")
      try Hanging.insert {
        hung
        Hanging(picture: nil, room: "attic")
      }.execute(db)
      try assertQuery(
        Hanging.select { ($0.room, $0.picture.title, $0.picture.frame.size.width) }, in: db,
        rows: "hall | Sea | 30\nattic | NULL | NULL")
      #expect(try Hanging.all.fetchAll(db) == [hung, Hanging(picture: nil, room: "attic")])
    }
  }
}
