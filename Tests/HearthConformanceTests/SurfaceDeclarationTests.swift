import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

/// A table read through a table-valued function: the columns of any table.
@Table
struct TableInfo<Base: Table> {
  static var tableAlias: String? { "\(Base.tableName)Info" }
  static var tableFragment: QueryFragment {
    "pragma_table_info(\(quote: Base.tableName, delimiter: .text))"
  }
  @Column("cid") let columnID: Int
  let name: String
  @Column("notnull") let isNotNull: Bool
}

/// A type of one's own that renders a select.
struct NumbersUpTo: PartialSelectStatement {
  typealias QueryValue = Int
  let limit: Int
  var query: QueryFragment {
    "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < \(bind: limit)) SELECT x FROM n"
  }
}

/// A representation written against the reference's `QueryDecoder` protocol: NULL reads as
/// nil from each `decode`.
struct Stars: QueryRepresentable, QueryBindable {
  var queryOutput: String
  init(queryOutput: String) { self.queryOutput = queryOutput }
  var queryBinding: QueryBinding { queryOutput.count.queryBinding }
  init(decoder: inout some QueryDecoder) throws {
    queryOutput = String(repeating: "*", count: try decoder.decode(Int.self) ?? 0)
  }
}

/// A representation that refuses NULL with the reference's error.
struct RequiredTitle: QueryRepresentable, QueryBindable {
  var queryOutput: String
  init(queryOutput: String) { self.queryOutput = queryOutput }
  var queryBinding: QueryBinding { queryOutput.queryBinding }
  init(decoder: inout some QueryDecoder) throws {
    guard let title = try decoder.decode(String.self) else {
      throw QueryDecodingError.missingRequiredColumn
    }
    queryOutput = title
  }
}

@Suite struct SurfaceDeclarationTests {
  @Test func aFragmentPreparesForAnotherDriversPlaceholders() {
    let fragment: QueryFragment = """
      SELECT \(Reminder.columns.id) FROM \(Reminder.self) \
      WHERE \(Reminder.columns.id) > \(1) AND \(Reminder.columns.title) LIKE \(bind: "%get%")
      """
    let prepared = fragment.prepare { "$\($0)" }
    #expect(
      prepared.sql
        == #"SELECT "reminders"."id" FROM "reminders" WHERE "reminders"."id" > $1 AND "reminders"."title" LIKE $2"#
    )
    #expect(prepared.bindings == [.int(1), .text("%get%")])
  }

  @Test func aDecoderThrowsTheReferencesMissingColumnError() throws {
    try conformanceDatabase().read { db in
      let title = try Values(#sql("'Milk'", as: RequiredTitle.self)).fetchOne(db)
      #expect(title?.queryOutput == "Milk")
      do {
        _ = try Values(#sql("NULL", as: RequiredTitle.self)).fetchOne(db)
        Issue.record("NULL decoded as a required title")
      } catch QueryDecodingError.missingRequiredColumn {
      } catch {
        Issue.record("another error: \(error)")
      }
    }
  }

  @Test func seedsInsertEachRunOfOneTableInOneStatement() throws {
    let inserts = Array(
      Seeds {
        RemindersList(id: 10, title: "Garden")
        RemindersList(id: 11, title: "Car")
        Reminder(id: 20, remindersListID: 10, title: "Water roses")
        Reminder.Draft(remindersListID: 11, title: "Check tyres")
        Reminder.Draft(remindersListID: 11, title: "Wash")
        RemindersList(id: 12, title: "Books")
      })
    #expect(
      inserts.map(\.query.sql) == [
        #"INSERT INTO "remindersLists" ("id", "color", "title", "position") VALUES (?, ?, ?, ?), (?, ?, ?, ?)"#,
        #"INSERT INTO "reminders" ("id", "assignedUserID", "dueDate", "isCompleted", "isFlagged", "notes", "priority", "remindersListID", "title", "updatedAt") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"#,
        #"INSERT INTO "reminders" ("assignedUserID", "dueDate", "isCompleted", "isFlagged", "notes", "priority", "remindersListID", "title", "updatedAt") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?)"#,
        #"INSERT INTO "remindersLists" ("id", "color", "title", "position") VALUES (?, ?, ?, ?)"#,
      ])
    let database = try conformanceDatabase()
    try database.write { db in
      try db.seed {
        RemindersList(id: 10, title: "Garden")
        for title in ["Rake", "Mow"] {
          Reminder.Draft(remindersListID: 10, title: title)
        }
      }
      try assertQuery(
        Reminder.where { $0.remindersListID.eq(10) }.order(by: \.title).select(\.title), in: db,
        rows: "Mow\nRake")
      // A draft's key is left to the database: the next rowids.
      let ids = try Reminder.where { $0.remindersListID.eq(10) }.select(\.id).fetchAll(db)
      #expect(ids.count == 2 && Set(ids).count == 2 && ids.allSatisfy { $0 > 6 })
    }
  }

  @Test func aSelectStatementOfATableGoesOnAsASelect() throws {
    func flagged() -> some SelectStatementOf<Reminder> {
      Reminder.where(\.isFlagged)
    }
    func flaggedInList(_ id: Int) -> some SelectStatement<Reminder, Reminder, ()> {
      Reminder.where(\.isFlagged).where { $0.remindersListID.eq(id) }.order(by: \.id)
    }
    let database = try conformanceDatabase()
    try database.read { db in
      try assertQuery(
        flagged().asSelect().order(by: \.title).select(\.title), in: db,
        sql:
          #"SELECT "reminders"."title" FROM "reminders" WHERE "reminders"."isFlagged" ORDER BY "reminders"."title""#,
        rows: "Haircut")
      #expect(try flaggedInList(1).fetchAll(db).map(\.id) == [2])
      #expect(try flaggedInList(2).fetchAll(db).isEmpty)
    }
  }

  @Test func aSelectOfOnesOwnDecodesItsRowsByTheirType() throws {
    let database = try conformanceDatabase()
    try database.read { db in
      let numbers = try NumbersUpTo(limit: 4).fetchAll(db)
      #expect(numbers == [1, 2, 3, 4])
    }
  }

  @Test func aTableOverATableValuedFunctionReadsThroughItsAlias() throws {
    let database = try conformanceDatabase()
    try database.read { db in
      try assertQuery(
        TableInfo<Tag>.order(by: \.columnID).select { ($0.name, $0.isNotNull) }, in: db,
        sql:
          #"SELECT "tagsInfo"."name", "tagsInfo"."notnull" FROM pragma_table_info('tags') AS "tagsInfo" ORDER BY "tagsInfo"."cid""#,
        rows: "id | 0\ntitle | 1")
      let columns = try TableInfo<User>.where { $0.name.neq("id") }.fetchAll(db).map(\.name)
      #expect(columns == ["name", "referrerID"])
    }
  }

  @Test func quotingAsTextDoublesItsQuotes() {
    let fragment: QueryFragment = "\(quote: "it's", delimiter: .text) \(quote: "a\"b")"
    #expect(fragment.sql == #"'it''s' "a""b""#)
  }

  @Test func aDecoderKnownByTheProtocolReadsNilForNull() throws {
    let database = try conformanceDatabase()
    try database.read { db in
      let stars = try #sql("SELECT 3 UNION ALL SELECT NULL", as: Stars.self).fetchAll(db)
      #expect(stars.map(\.queryOutput) == ["***", ""])
      let row = try #require(try Row.fetchOne(db, sql: "SELECT NULL, 7"))
      var decoder = QueryRowDecoder(row: row)
      #expect(try decoder._decodeIfPresent(Int.self) == nil)
      #expect(try decoder._decodeIfPresent(Int.self) == 7)
    }
  }

  @Test func bindingsSpelledAsTheReferenceSpellsThem() {
    #expect(QueryBinding.text("a") == "a")
    #expect(QueryBinding.int(7) == 7)
    #expect(QueryBinding.double(0.5) == 0.5)
    #expect(QueryBinding.bool(true) == 1)
    #expect(QueryBinding.blob([1, 2]) == DatabaseValue(storage: .blob(Data([1, 2]))))
    let date = Date(timeIntervalSince1970: 0)
    #expect(QueryBinding.date(date) == "1970-01-01 00:00:00.000")
    let uuid = UUID(uuidString: "DEADBEEF-0000-0000-0000-000000000001")!
    #expect(QueryBinding.uuid(uuid) == "deadbeef-0000-0000-0000-000000000001")
  }

  @Test func aCastUsesTheAffinityOfItsTypeOrOfTheWrappedType() throws {
    let database = try conformanceDatabase()
    try database.read { db in
      try assertQuery(
        Reminder.where { $0.id.eq(3) }.select { $0.priority.cast(as: Double?.self) }, in: db,
        sql:
          #"SELECT CAST("reminders"."priority" AS REAL) FROM "reminders" WHERE ("reminders"."id" = ?)"#,
        rows: "3.0")
      try assertQuery(
        Values(#sql("'12 apples'", as: String.self).cast(as: Int.self)), in: db, rows: "12")
      #expect(String.typeAffinity.rawValue.sql == "TEXT")
    }
  }

  @Test func negateInAnUpdateSetsTheColumnToItsNegation() throws {
    try assertConformance(
      RemindersList.find(2).update { $0.position.negate() }.returning(\.position),
      sql:
        #"UPDATE "remindersLists" SET "position" = -("remindersLists"."position") WHERE ("remindersLists"."id" = ?) RETURNING "position""#,
      rows: "-1")
  }

  @Test func anUpdateThatAssignsNothingIsNoStatement() throws {
    let update = Reminder.find(1).update { _ in }
    #expect(update.query.sql == "")
    let database = try conformanceDatabase()
    try database.write { db in
      try update.execute(db)
      let returned = try update.returning { $0.title }.fetchAll(db)
      #expect(returned.isEmpty)
      try assertQuery(Reminder.find(1).select(\.title), in: db, rows: "Groceries")
    }
  }

  @Test func appendInAnUpdateAddsToTheText() throws {
    try assertConformance(
      Tag.find(1).update {
        $0.title.append("!")
        $0.title.append(contentsOf: "?")
      }.returning(\.title),
      sql:
        #"UPDATE "tags" SET "title" = ("tags"."title" || ?), "title" = ("tags"."title" || ?) WHERE ("tags"."id" = ?) RETURNING "title""#,
      rows: "car?")
  }

  @Test func aDraftIsFoundByItsTablesKey() throws {
    try assertConformance(
      Reminder.Draft.find(3).select(\.title),
      sql: #"SELECT "reminders"."title" FROM "reminders" WHERE ("reminders"."id" = ?)"#,
      rows: "Doctor appointment")
    let titles = try conformanceDatabase().read { db in
      try Reminder.Draft.find([1, 2]).select(\.title).fetchAll(db)
    }
    #expect(titles == ["Groceries", "Haircut"])
  }
}
