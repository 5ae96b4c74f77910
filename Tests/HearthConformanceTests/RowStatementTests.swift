import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// A row is a statement: the one-row select of its values, each named after its column, whose
// row reads back as the row. An optional row that is nil selects a NULL in every column and
// reads back as nil. As an expression, a row is the list of its values.

@Suite struct RowStatementTests {
  @Test func aRowSelectsItsValuesAndReadsBackAsItself() throws {
    let picture = Picture(
      title: "Dunes",
      frame: Frame(
        size: Dimensions(width: 30, height: 20), border: 2,
        framedAt: Date(timeIntervalSince1970: 86_400)))
    try conformanceDatabase().read { db in
      try assertQuery(
        picture, in: db,
        sql: #"SELECT ? AS "title", ? AS "width", ? AS "height", ? AS "border", ? AS "framedAt""#,
        rows: "Dunes | 30 | 20 | 2 | 86400")
      #expect(try picture.fetchAll(db) == [picture])
      #expect(try picture.fetchOne(db) == picture)
    }
  }

  @Test func aNilOptionalRowSelectsNullsAndReadsBackAsNil() throws {
    try conformanceDatabase().read { db in
      try assertQuery(
        Picture?(nil), in: db,
        sql: #"SELECT ? AS "title", ? AS "width", ? AS "height", ? AS "border", ? AS "framedAt""#,
        rows: "NULL | NULL | NULL | NULL | NULL")
      #expect(try Picture?(nil).fetchAll(db) == [nil])
      // `Optional.none`, not the table's `none` (a select of no rows).
      try assertQuery(Picture?.none, in: db, rows: "NULL | NULL | NULL | NULL | NULL")
      // A row holding a nil optional row: its columns are NULL, the row's own are not.
      let hanging = Hanging(picture: nil, room: "Hall")
      try assertQuery(hanging, in: db, rows: "NULL | NULL | NULL | NULL | NULL | Hall")
      #expect(try hanging.fetchOne(db) == hanging)
    }
  }

  @Test func aRowIsTheListOfItsValuesAsAnExpressionAndItsSelectInSQL() throws {
    try conformanceDatabase().read { db in
      let dimensions = Dimensions(width: 3, height: 4)
      #expect(dimensions.queryFragment.sql == "?, ?")
      let noDimensions: Dimensions? = nil
      #expect(noDimensions.queryFragment.sql == "?, ?")
      // Interpolated into SQL, a row is its select (as any select is): here a subquery.
      try assertQuery(
        Values(#sql("(3, 4) = (\(dimensions))", as: Bool.self)), in: db,
        sql: #"SELECT (3, 4) = (SELECT ? AS "width", ? AS "height")"#, rows: "1")
    }
  }
}
