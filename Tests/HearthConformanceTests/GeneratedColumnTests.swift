import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

/// A table with a column the database computes, and one a trigger fills in when a draft
/// leaves it nil.
@Table
struct Parcel: Equatable, Identifiable {
  let id: Int
  var widthCM = 0
  var heightCM = 0
  @Column(generated: .virtual) let areaCM: Int
  @Column(lazyInitializable: true) var label: String
}

@Suite struct GeneratedColumnTests {
  let database: DatabaseQueue

  init() throws {
    database = try DatabaseQueue()
    try database.write { db in
      try db.execute(
        sql: """
          CREATE TABLE "parcels" (
            "id" INTEGER PRIMARY KEY,
            "widthCM" INTEGER NOT NULL,
            "heightCM" INTEGER NOT NULL,
            "areaCM" INTEGER GENERATED ALWAYS AS ("widthCM" * "heightCM") VIRTUAL,
            "label" TEXT
          );
          CREATE TRIGGER "parcels_label" AFTER INSERT ON "parcels" WHEN NEW."label" IS NULL
          BEGIN UPDATE "parcels" SET "label" = 'unlabelled' WHERE "id" = NEW."id"; END
          """)
    }
  }

  @Test func aGeneratedColumnIsReadButNeverWritten() throws {
    try database.write { db in
      try assertQuery(
        Parcel.insert { Parcel(id: 1, widthCM: 2, heightCM: 3, areaCM: 999, label: "box") },
        in: db,
        sql: #"INSERT INTO "parcels" ("id", "widthCM", "heightCM", "label") VALUES (?, ?, ?, ?)"#,
        rows: "")
      #expect(
        try Parcel.find(1).fetchOne(db)
          == Parcel(id: 1, widthCM: 2, heightCM: 3, areaCM: 6, label: "box"))
      try Parcel.update(Parcel(id: 1, widthCM: 5, heightCM: 3, areaCM: 0, label: "crate"))
        .execute(db)
      try assertQuery(Parcel.select { ($0.areaCM, $0.label) }, in: db, rows: "15 | crate")
      try Parcel.upsert { Parcel(id: 1, widthCM: 1, heightCM: 1, areaCM: 0, label: "tiny") }
        .execute(db)
      try assertQuery(Parcel.where { $0.areaCM.eq(1) }.select(\.label), in: db, rows: "tiny")
    }
  }

  @Test func aDraftHasNoGeneratedColumnAndInsertsNullForALazyOne() throws {
    try database.write { db in
      try assertQuery(
        Parcel.insert {
          Parcel.Draft(widthCM: 4, heightCM: 4)
          Parcel.Draft(widthCM: 1, heightCM: 2)
        }, in: db,
        sql:
          #"INSERT INTO "parcels" ("widthCM", "heightCM", "label") VALUES (?, ?, ?), (?, ?, ?)"#,
        rows: "")
      try Parcel.insert { Parcel.Draft(widthCM: 1, heightCM: 1, label: "named") }.execute(db)
      try assertQuery(
        Parcel.order(by: \.id).select { ($0.areaCM, $0.label) }, in: db,
        rows: "16 | unlabelled\n2 | unlabelled\n1 | named")
    }
  }
}

/// A group with a column the database computes.
@Selection
struct Lifetime: Equatable {
  var createdAt = 0
  var deletedAt: Int?
  @Column(generated: .virtual)
  let isDeleted: Bool
}

@Table
struct Ticket2: Equatable, Identifiable {
  let id: Int
  var lifetime: Lifetime
}

@Suite struct GroupGeneratedColumnTests {
  @Test func aGeneratedColumnInsideAGroupIsReadButNeverWritten() throws {
    let database = try DatabaseQueue()
    try database.write { db in
      try db.execute(
        sql: """
          CREATE TABLE "ticket2s" (
            "id" INTEGER PRIMARY KEY, "createdAt" INTEGER NOT NULL, "deletedAt" INTEGER,
            "isDeleted" INTEGER GENERATED ALWAYS AS ("deletedAt" IS NOT NULL) VIRTUAL)
          """)
      try assertQuery(
        Ticket2.insert { Ticket2.Draft(lifetime: Lifetime(createdAt: 5, isDeleted: false)) }
          .returning(\.self),
        in: db,
        sql:
          #"INSERT INTO "ticket2s" ("createdAt", "deletedAt") VALUES (?, ?) RETURNING "id", "createdAt", "deletedAt", "isDeleted""#,
        rows: "1 | 5 | NULL | 0")
      try Ticket2.insert {
        Ticket2(id: 2, lifetime: Lifetime(createdAt: 6, deletedAt: 9, isDeleted: false))
      }.execute(db)
      try Ticket2.update(
        Ticket2(id: 1, lifetime: Lifetime(createdAt: 7, deletedAt: 8, isDeleted: false))
      )
      .execute(db)
      #expect(
        try Ticket2.order(by: \.id).fetchAll(db).map(\.lifetime) == [
          Lifetime(createdAt: 7, deletedAt: 8, isDeleted: true),
          Lifetime(createdAt: 6, deletedAt: 9, isDeleted: true),
        ])
    }
  }
}
