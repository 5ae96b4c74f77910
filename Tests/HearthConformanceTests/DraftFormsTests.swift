import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

// A table without a primary key has a draft when the database may fill some of its columns
// (`@Column(lazyInitializable: true)`): the draft leaves them nil, the insert binds NULL,
// and a column's `ON CONFLICT REPLACE DEFAULT` fills it.

@Table
struct Waypoint: Equatable {
  @Column(lazyInitializable: true)
  var latitude: Double
  @Column(lazyInitializable: true)
  var longitude: Double
  var name: String
}

@Suite struct DraftFormsTests {
  @Test func aDraftOfATableWithoutAPrimaryKeyLetsTheDatabaseFillItsColumns() throws {
    let database = try DatabaseQueue()
    try database.write { db in
      try db.execute(
        sql: """
          CREATE TABLE "waypoints" (
            "latitude" REAL NOT NULL ON CONFLICT REPLACE DEFAULT 0,
            "longitude" REAL NOT NULL ON CONFLICT REPLACE DEFAULT 0,
            "name" TEXT NOT NULL)
          """)
      try assertQuery(
        Waypoint.insert { Waypoint.Draft(name: "Home") }, in: db,
        sql: #"INSERT INTO "waypoints" ("latitude", "longitude", "name") VALUES (?, ?, ?)"#,
        rows: "")
      try Waypoint.insert {
        Waypoint.Draft(Waypoint(latitude: 1, longitude: 2, name: "Work"))
        Waypoint.Draft(latitude: 5, name: "Half")
      }.execute(db)
      #expect(
        try Waypoint.all.fetchAll(db) == [
          Waypoint(latitude: 0, longitude: 0, name: "Home"),
          Waypoint(latitude: 1, longitude: 2, name: "Work"),
          Waypoint(latitude: 5, longitude: 0, name: "Half"),
        ])
    }
  }
}
