import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// Select forms of the reference's own test cases: limits and offsets built in closures that
// may give nothing, a row compared with a table value as a row value, and a count of the
// rows a condition holds for.

/// A selection whose fields have defaults: `Columns` may leave them out.
@Selection
struct StampedLabel {
  @Column(as: Date.UnixTimeRepresentation.self)
  var createdAt = Date(timeIntervalSince1970: 86_400)
  var name = ""
  var note: String?
}

@Suite struct SelectFormsTests {
  @Test func aCountNeedsNoColumnsAndASeparatorMayBeOfAnyType() throws {
    try conformanceDatabase().read { db in
      try assertQuery(
        Reminder.where(\.isCompleted).select { _ in .count() }, in: db,
        sql: #"SELECT count(*) FROM "reminders" WHERE "reminders"."isCompleted""#, rows: "2")
      try assertQuery(
        Reminder.select { _ in .count(filter: Reminder.columns.isFlagged) }, in: db,
        sql: #"SELECT count(*) FILTER (WHERE "reminders"."isFlagged") FROM "reminders""#,
        rows: "1")
      try assertQuery(
        Reminder.where { $0.id.lte(3) }.select { $0.id.groupConcat($0.priority) }, in: db,
        sql:
          #"SELECT group_concat("reminders"."id", "reminders"."priority") FROM "reminders" WHERE ("reminders"."id" <= ?)"#,
        rows: "1233")
    }
  }

  @Test func aRowValueInSQLIsTheSelectOfItsValues() throws {
    try conformanceDatabase().read { db in
      let extra = Tag(id: 9, title: "later")
      try assertQuery(
        Values(
          #sql(
            "(SELECT group_concat(title) FROM (\(extra) UNION ALL SELECT \(Tag.columns) FROM \(Tag.self)))",
            as: String.self)), in: db,
        sql:
          #"SELECT (SELECT group_concat(title) FROM (SELECT ? AS "id", ? AS "title" UNION ALL SELECT "tags"."id", "tags"."title" FROM "tags"))"#,
        rows: "later,car,kids,someday")
    }
  }

  @Test func limitAndOffsetClosuresThatGiveNothingChangeNothing() throws {
    enum PerPage { case unlimited, two }
    for (perPage, skip, expected) in [
      (PerPage.two, Int?.none, "1\n2"), (.two, 3, "4\n5"), (.unlimited, 4, "5\n6"),
      (.unlimited, nil, "1\n2\n3\n4\n5\n6"),
    ] {
      let query = Reminder.order(by: \.id).select(\.id)
        .limit { _ in
          switch perPage {
          case .unlimited: nil
          case .two: 2
          }
        }
        .offset { _ in
          if let skip {
            skip
          }
        }
      try assertConformance(query, sql: query.query.sql, rows: expected)
    }
    try assertConformance(
      Reminder.order(by: \.id).select(\.id).limit(1).limit { _ in nil }.offset { _ in 1 },
      sql:
        #"SELECT "reminders"."id" FROM "reminders" ORDER BY "reminders"."id" LIMIT ? OFFSET ?"#,
      rows: "2")
  }

  @Test func aRowComparesWithATableValueAsARowValue() throws {
    try assertConformance(
      Tag.where { $0.eq(Tag(id: 1, title: "car")) }.select(\.id),
      sql:
        #"SELECT "tags"."id" FROM "tags" WHERE (("tags"."id", "tags"."title") = (?, ?))"#,
      rows: "1")
    try assertConformance(
      Tag.where { $0 > Tag(id: 1, title: "car") }.select(\.id),
      sql:
        #"SELECT "tags"."id" FROM "tags" WHERE (("tags"."id", "tags"."title") > (?, ?))"#,
      rows: "2\n3")
    // The second column decides where the first is equal.
    try assertConformance(
      Tag.where { $0 <= Tag(id: 2, title: "a") }.select(\.id),
      sql: #"SELECT "tags"."id" FROM "tags" WHERE (("tags"."id", "tags"."title") <= (?, ?))"#,
      rows: "1")
    try assertConformance(
      Tag.where { $0.neq(Tag(id: 3, title: "someday")) }.count(),
      sql: #"SELECT count(*) FROM "tags" WHERE (("tags"."id", "tags"."title") <> (?, ?))"#,
      rows: "2")
  }

  @Test func aCountOfTheRowsAConditionHoldsFor() throws {
    try assertConformance(
      Reminder.count { !$0.isCompleted },
      sql: #"SELECT count(*) FILTER (WHERE NOT ("reminders"."isCompleted")) FROM "reminders""#,
      rows: "4")
    try assertConformance(
      Reminder.where { $0.remindersListID.eq(2) }.count { $0.isCompleted },
      sql:
        #"SELECT count(*) FILTER (WHERE "reminders"."isCompleted") FROM "reminders" WHERE ("reminders"."remindersListID" = ?)"#,
      rows: "1")
  }

  @Test func aNilConditionIsNoneAndAnOuterJoinsColumnIsACondition() throws {
    try assertConformance(
      Tag.where { _ in nil }.select(\.id), sql: #"SELECT "tags"."id" FROM "tags""#,
      rows: "1\n2\n3")
    try assertConformance(
      RemindersList.find(2)
        .leftJoin(Reminder.all) { $0.id.eq($1.remindersListID) }
        .where { $1.isCompleted }
        .select { ($0.title, $1.title) },
      sql:
        #"SELECT "remindersLists"."title", "reminders"."title" FROM "remindersLists" LEFT JOIN "reminders" ON ("remindersLists"."id" = "reminders"."remindersListID") WHERE (("remindersLists"."id" = ?)) AND ("reminders"."isCompleted")"#,
      rows: "Work | Call accountant")
  }

  @Test func compoundAssignmentsAndUnaryPlus() throws {
    let database = try conformanceDatabase()
    try database.write { db in
      try RemindersList.find(2).update {
        $0.position += 20
        $0.color /= 16
        $0.position %= 7
      }.execute(db)
      try RemindersList.find(1).update {
        $0.position |= 6
        $0.position &= 3
        $0.position <<= 4
        $0.position >>= 1
        $0.color = +$0.color
      }.execute(db)
      let lists = try RemindersList.order(by: \.id).fetchAll(db)
      // Each assignment reads the column as it stands before the update, and SQLite applies
      // a column's last: 0 >> 1 for the first list, 1 % 7 for the second.
      #expect(lists.map(\.position) == [0, 1 % 7])
      #expect(lists.map(\.color) == [0x4a99ef, 0xef7e4a / 16])
    }
  }

  @Test func aSelectContainsAValue() throws {
    try assertConformance(
      Tag.where { Reminder.select(\.id).where { $0.isFlagged }.contains($0.id) }.select(\.title),
      sql:
        #"SELECT "tags"."title" FROM "tags" WHERE ("tags"."id" IN (SELECT "reminders"."id" FROM "reminders" WHERE "reminders"."isFlagged"))"#,
      rows: "kids")
    try assertConformance(
      Reminder.where { $0.title.contains("cut"[...]) }.select(\.id),
      sql: #"SELECT "reminders"."id" FROM "reminders" WHERE ("reminders"."title" LIKE ? ESCAPE ?)"#,
      rows: "2")
  }

  @Test func aNamedSelectOfNoneIsLeftOutAndWithNoneLeftThereIsNoStatement() throws {
    let database = try conformanceDatabase()
    try database.write { db throws in
      // The only named select is `none`: no statement, so nothing is deleted.
      let nothing = With {
        RemindersList.none.select { HighPriorityRemindersList.Columns(id: $0.id) }
      } query: {
        Reminder.delete().returning(\.id)
      }
      #expect(nothing.query.sql.isEmpty)
      #expect(try nothing.fetchAll(db).isEmpty)
      #expect(try Reminder.fetchCount(db) == 6)
      // Beside another select of the same name, the `none` one is left out.
      let lists = With {
        RemindersList.none.select { HighPriorityRemindersList.Columns(id: $0.id) }
        RemindersList.where { $0.id.eq(2) }.select { HighPriorityRemindersList.Columns(id: $0.id) }
      } query: {
        RemindersList.where { $0.id.in(HighPriorityRemindersList.select(\.id)) }.select(\.title)
      }
      #expect(try lists.fetchAll(db) == ["Work"])
    }
  }

  @Test func noneIsNoStatementWhateverIsBuiltOnIt() throws {
    // Every query built on `none` renders no SQL, and runs as no rows and no change.
    let empties: [any Statement] = [
      RemindersList.none, RemindersList.none.select(\.id),
      RemindersList.join(Reminder.none) { $0.id.eq($1.remindersListID) },
      RemindersList.none.leftJoin(Reminder.all) { $0.id.eq($1.remindersListID) },
      Reminder.none.where(\.isFlagged).group(by: \.id).having(\.isFlagged).order(by: \.id)
        .limit(1),
      Reminder.none.delete(), Reminder.none.update { $0.title = "x" },
      Reminder.insert {
        $0.title
      } select: {
        Reminder.none.select(\.title)
      },
      Reminder.none.select(\.id).union(RemindersList.none.select(\.id)),
      With {
        RemindersList.where { $0.id.eq(2) }.select { HighPriorityRemindersList.Columns(id: $0.id) }
      } query: {
        Reminder.none.delete()
      },
    ]
    for statement in empties { #expect(statement.query.sql.isEmpty, "\(statement.query.sql)") }
    let database = try conformanceDatabase()
    try database.write { db throws in
      let before = try Reminder.order(by: \.id).fetchAll(db)
      try Reminder.none.delete().execute(db)
      try Reminder.none.update { $0.title = "x" }.execute(db)
      try Reminder.insert {
        $0.title
      } select: {
        Reminder.none.select(\.title)
      }.execute(db)
      #expect(try Reminder.order(by: \.id).fetchAll(db) == before)
      #expect(try Reminder.none.fetchAll(db).isEmpty)
      #expect(try Reminder.none.delete().returning(\.id).fetchAll(db).isEmpty)
      // A compound with a `none` side is the other side.
      let ids = Reminder.where { $0.id.lte(2) }.select(\.id).union(RemindersList.none.select(\.id))
      #expect(
        ids.query.sql == #"SELECT "reminders"."id" FROM "reminders" WHERE ("reminders"."id" <= ?)"#)
      #expect(try ids.fetchAll(db).sorted() == [1, 2])
      // As a subquery it stands as a select of no rows.
      let lists = RemindersList.where { $0.id.in(Reminder.none.select(\.remindersListID)) }
      #expect(try lists.fetchAll(db).isEmpty)
      let notIn = RemindersList.where { !$0.id.in(Reminder.none.select(\.remindersListID)) }
      #expect(try notIn.fetchCount(db) == RemindersList.fetchCount(db))
      #expect(try RemindersList.where { _ in Reminder.none.exists() }.fetchAll(db).isEmpty)
    }
  }

  @Test func aJoinMappedToNothingKeepsItsRowsAndADraftHasNoDraft() throws {
    let join = Reminder.group(by: \.id).join(ReminderTag.all) { $0.id.eq($1.reminderID) }
      .order { r, _ in r.id }
    let mapped = join.map {}
    #expect(mapped.query.sql == join.query.sql)
    let rows = try conformanceDatabase().read { db in try mapped.fetchAll(db) }
    #expect(rows.map { $0.0.id } == [1, 5])  // reminder 1 has two tags, grouped into one row
    #expect(Reminder.Draft.Draft.self == Never.self)
  }

  @Test func havingAKeyPathAndFindingADraftOutsideTheScope() throws {
    try assertConformance(
      Reminder.group(by: \.isFlagged).having(\.isFlagged).select { ($0.isFlagged, $0.id.count()) },
      sql:
        #"SELECT "reminders"."isFlagged", count("reminders"."id") FROM "reminders" GROUP BY "reminders"."isFlagged" HAVING "reminders"."isFlagged""#,
      rows: "1 | 1")
    // The draft of a soft-deleted note is found outside the table's default scope alone.
    try assertConformance(
      Note.Draft.unscoped.find(2).select(\.body),
      sql: #"SELECT "notes"."body" FROM "notes" WHERE ("notes"."id" = ?)"#,
      rows: "thrown away")
    let scoped = try conformanceDatabase().read { db in
      try Note.Draft.find(2).select(\.body).fetchAll(db)
    }
    #expect(scoped.isEmpty)
  }

  @Test func columnsLeaveOutTheFieldsThatHaveDefaults() throws {
    try assertConformance(
      Reminder.select { _ in StampedLabel.Columns(name: "car") }.limit(1),
      sql: #"SELECT ?, ?, ? FROM "reminders" LIMIT ?"#,
      rows: "86400 | car | NULL")
    let label = try conformanceDatabase().read { db in
      try Reminder.order(by: \.id).select { StampedLabel.Columns(name: $0.title) }.limit(1)
        .fetchOne(db)
    }
    #expect(label?.createdAt == Date(timeIntervalSince1970: 86_400))
    #expect(label?.name == "Groceries")
    #expect(label?.note == nil)
  }
}
