import Foundation
import HearthData
import HearthDataTestSupport
import Testing

// Sectioned fetches, written as sqlite-data's documentation writes them: `@FetchAll(…,
// sectionBy:)` and its `sections`, `fetchAll(db, sectionBy:)` in a `FetchKeyRequest`, and
// sections of a join. Sections come in the section expression's order, rows within each in
// the query's order; NULL is a section of its own, named nil.

@Table
private struct Chore: Equatable, Identifiable {
  let id: Int
  var title = ""
  var category: String?
  var priority: Int?
  var dueDate: Date?
  var roomID: Int
}

@Table
private struct ChoreRoom: Equatable, Identifiable {
  let id: Int
  var name = ""
}

@Selection
private struct ChoreRow: Equatable {
  let title: String
  let room: String
}

private struct ChoresByCategory: FetchKeyRequest {
  func fetch(_ db: Database) throws -> ResultsSectionCollection<Chore, String?> {
    try Chore.order(by: \.title).fetchAll(db, sectionBy: \.category)
  }
}

private enum SecondRoom: AliasName {}

private func choresDatabase() throws -> DatabaseQueue {
  let database = try DatabaseQueue()
  try database.write { db in
    try db.execute(
      sql: """
        CREATE TABLE "choreRooms" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL);
        CREATE TABLE "chores" (
          "id" INTEGER PRIMARY KEY, "title" TEXT NOT NULL, "category" TEXT,
          "priority" INTEGER, "dueDate" TEXT, "roomID" INTEGER NOT NULL);
        INSERT INTO "choreRooms" VALUES (1, 'Kitchen'), (2, 'Garden');
        INSERT INTO "chores" VALUES
          (1, 'Wash up', 'home', 2, '2026-12-08 09:00:00.000', 1),
          (2, 'Buy seeds', 'errands', NULL, NULL, 2),
          (3, 'Dust', 'home', 1, NULL, 1),
          (4, 'Mow', NULL, 3, '2026-12-09 09:00:00.000', 2),
          (5, 'Bake', 'home', NULL, NULL, 1);
        """)
  }
  return database
}

private func titles<S: Collection>(_ sections: S) -> [String] where S.Element: Collection {
  sections.map { section in section.map { "\($0)" }.joined(separator: ",") }
}

@Suite struct SectionedFetchTests {
  @Test func fetchAllSectionedByAColumnOrdersSectionsThenRows() throws {
    try choresDatabase().read { db in
      let sections = try Chore.order(by: \.title).fetchAll(db, sectionBy: \.category)
      // NULL sorts first in SQLite's ascending order.
      #expect(sections.sectionNames == [nil, "errands", "home"])
      #expect(
        sections.map { $0.map(\.title) } == [["Mow"], ["Buy seeds"], ["Bake", "Dust", "Wash up"]])
      #expect(sections[sectionName: "home"]?.count == 3)
      #expect(sections[sectionName: "home"]?.id == "home")
      #expect(sections.contains(sectionName: "errands"))
      #expect(!sections.contains(sectionName: "garden"))
      #expect(sections.index(ofSectionNamed: "home") == 2)
      #expect(sections[sectionName: "garden"] == nil)
    }
  }

  @Test func anOrderingOfTheExpressionSetsTheSectionsDirection() throws {
    try choresDatabase().read { db in
      let sections = try Chore.order(by: \.title).fetchAll(
        db, sectionBy: { $0.priority.desc(nulls: .first) })
      #expect(sections.sectionNames == [nil, 3, 2, 1])
      #expect(sections.first.map { $0.map(\.title) } == ["Bake", "Buy seeds"])
      let byText = try Chore.where { $0.id.lt(4) }.fetchAll(
        db, sectionBy: { $0.category.desc() })
      #expect(byText.sectionNames == ["home", "errands"])
    }
  }

  @Test func aJoinSectionsByAJoinedColumnAndSelectsItsOwnRows() throws {
    try choresDatabase().read { db in
      let joined = Chore.order(by: \.title)
        .join(ChoreRoom.all) { $0.roomID.eq($1.id) }
        .select { ChoreRow.Columns(title: $0.title, room: $1.name) }
      let sections = try joined.fetchAll(db, sectionBy: { $1.id })
      #expect(sections.sectionNames == [1, 2])
      #expect(
        sections[sectionName: 2].map(Array.init) == [
          ChoreRow(title: "Buy seeds", room: "Garden"), ChoreRow(title: "Mow", room: "Garden"),
        ])
    }
  }

  @Test func fetchAllWithSectionByKeepsItsSectionsCurrent() async throws {
    let database = try choresDatabase()
    @FetchAll(Chore.order(by: \.title), sectionBy: \.category, database: database)
    var chores
    #expect(chores.map(\.title) == ["Mow", "Buy seeds", "Bake", "Dust", "Wash up"])
    #expect($chores.sections.sectionNames == [nil, "errands", "home"])
    try await database.write { db in
      try Chore.insert { Chore(id: 6, title: "Water", category: "garden", roomID: 2) }.execute(db)
    }
    try await eventually { $chores.sections.sectionNames == [nil, "errands", "garden", "home"] }
    #expect($chores.sections[sectionName: "garden"].map { $0.map(\.title) } == ["Water"])
  }

  @Test func aCaseExpressionNamesSections() throws {
    let database = try choresDatabase()
    @FetchAll(
      Chore.order(by: \.title),
      sectionBy: {
        Case().when($0.dueDate.isNot(nil), then: "Scheduled").else("Unscheduled").desc()
      },
      database: database)
    var chores
    #expect($chores.sections.sectionNames == ["Unscheduled", "Scheduled"])
    #expect(
      $chores.sections.map { $0.map(\.title) } == [
        ["Bake", "Buy seeds", "Dust"], ["Mow", "Wash up"],
      ])
  }

  @Test func aFetchWithoutSectionsIsOneSectionNamedNil() throws {
    let database = try choresDatabase()
    @FetchAll(Chore.order(by: \.id), database: database) var chores
    #expect($chores.sections.count == 1)
    #expect($chores.sections.sectionNames == [nil])
    #expect($chores.sections.first.map(Array.init) == chores)
    @FetchAll(Chore.where { $0.id.gt(100) }, database: database) var none
    #expect($none.sections.isEmpty)
  }

  @Test func aFetchKeyRequestReturnsSectionsThatFetchObserves() async throws {
    let database = try choresDatabase()
    @Fetch(ChoresByCategory(), database: database)
    var sections = ResultsSectionCollection<Chore, String?>()
    #expect(sections.sectionNames == [nil, "errands", "home"])
    try await database.write { db in try Chore.where { $0.category.is(nil) }.delete().execute(db) }
    try await eventually { sections.sectionNames == ["errands", "home"] }
  }

  @Test func aJoinedFetchAllSectionsByTheJoinedTable() throws {
    let database = try choresDatabase()
    let joined = Chore.order(by: \.title).join(ChoreRoom.all) { $0.roomID.eq($1.id) }
      .select { c, _ in c.title }
    @FetchAll(joined, sectionBy: { $1.name }, database: database) var titles
    @FetchAll(
      Chore.order(by: \.title).join(ChoreRoom.all) { $0.roomID.eq($1.id) }.select { c, _ in c.title
      },
      database: database)
    var inline
    #expect($inline.sections.sectionNames == [nil])
    #expect(inline == ["Bake", "Buy seeds", "Dust", "Mow", "Wash up"])
    #expect(titles == ["Buy seeds", "Mow", "Bake", "Dust", "Wash up"])
    #expect($titles.sections.sectionNames == ["Garden", "Kitchen"])
    #expect($titles.sections.first.map(Array.init) == ["Buy seeds", "Mow"])
  }

  @Test func everyFormOfSectionByReadsTheSameSections() throws {
    let database = try choresDatabase()
    @FetchAll(sectionBy: \.category, database: database) var byKeyPath: [Chore]
    @FetchAll(sectionBy: { $0.category }, database: database) var byClosure: [Chore]
    @FetchAll(Chore.all, sectionBy: \.category, database: database) var allByKeyPath
    @FetchAll(Chore.where { $0.id.lt(6) }, sectionBy: { $0.category }, database: database)
    var whereByClosure
    for sections in [$byKeyPath.sections, $byClosure.sections, $allByKeyPath.sections] {
      #expect(sections.sectionNames == [nil, "errands", "home"])
    }
    #expect($whereByClosure.sections.sectionNames == [nil, "errands", "home"])
    // A join straight from the table, and a join of three tables.
    @FetchAll(
      Chore.join(ChoreRoom.all) { $0.roomID.eq($1.id) }.select { chore, _ in chore.title },
      sectionBy: { $1.name }, database: database)
    var joined
    #expect($joined.sections.sectionNames == ["Garden", "Kitchen"])
    @FetchAll(
      Chore.join(ChoreRoom.all) { $0.roomID.eq($1.id) }
        .join(ChoreRoom.as(SecondRoom.self).all) { $0.roomID.eq($2.id) }
        .select { chore, _, _ in chore.title },
      sectionBy: { $2.name.desc() }, database: database)
    var threeTables
    #expect($threeTables.sections.sectionNames == ["Kitchen", "Garden"])
    // A select of one column, sectioned by another.
    let titles = try database.read { db in
      try Chore.select(\.title).where { $0.id.lt(4) }.fetchAll(db, sectionBy: { $0.category })
    }
    #expect(titles.map(Array.init) == [["Buy seeds"], ["Wash up", "Dust"]])
  }

  @Test(arguments: [true, false]) func sectioningLeftOutFetchesOneSection(byCategory: Bool)
    throws
  {
    let database = try choresDatabase()
    @FetchAll(
      Chore.order(by: \.id),
      sectionBy: {
        if byCategory {
          $0.category
        }
      }, database: database)
    var chores
    #expect(chores.count == 5)
    #expect($chores.sections.sectionNames == (byCategory ? [nil, "errands", "home"] : [nil]))
    @FetchAll(Chore.order(by: \.id), sectionBy: { _ in nil }, database: database) var none
    #expect($none.sections.sectionNames == [nil])
    @FetchAll(
      Chore.order(by: \.id),
      sectionBy: {
        if byCategory { $0.category } else { $0.title.desc(nulls: .last) }
      }, database: database)
    var either
    #expect(either.count == 5)
  }

  @Test func assigningAnotherWrapperTakesItsQuery() async throws {
    let database = try choresDatabase()
    @FetchAll(Chore.order(by: \.id), database: database) var chores
    #expect($chores.sections.sectionNames == [nil])
    $chores = FetchAll(Chore.order(by: \.id), sectionBy: \.category, database: database)
    #expect($chores.sections.sectionNames == [nil, "errands", "home"])
    try await database.write { db in
      try Chore.insert { Chore(id: 7, title: "Sweep", category: "floor", roomID: 1) }.execute(db)
    }
    // Still observed: the new query's rows arrive without a load.
    try await eventually { $chores.sections.contains(sectionName: "floor") }
    try await $chores.load()
    #expect(chores.count == 6)
  }

  @Test func aJoinWrittenInlineAfterAnOrderSections() async throws {
    let database = try choresDatabase()
    @FetchAll(
      Chore.order(by: \.title)
        .join(ChoreRoom.all) { $0.roomID.eq($1.id) }
        .select { ChoreRow.Columns(title: $0.title, room: $1.name) },
      sectionBy: { $1.name }, database: database)
    var rows
    #expect($rows.sections.sectionNames == ["Garden", "Kitchen"])
    #expect($rows.sections[sectionName: "Garden"].map { $0.map(\.title) } == ["Buy seeds", "Mow"])
    try await $rows.load(
      Chore.order(by: \.title)
        .join(ChoreRoom.all) { $0.roomID.eq($1.id) }
        .select { ChoreRow.Columns(title: $0.title, room: $1.name) },
      sectionBy: { $1.name.desc() }, database: database)
    #expect($rows.sections.sectionNames == ["Kitchen", "Garden"])
  }

  @Test func loadSwapsInASectionedQuery() async throws {
    let database = try choresDatabase()
    @FetchAll(Chore.order(by: \.id), database: database) var chores
    try await $chores.load(
      Chore.where { $0.category.isNot(nil) }.order(by: \.title),
      sectionBy: { $0.category }, database: database)
    #expect($chores.sections.sectionNames == ["errands", "home"])
    #expect(chores.map(\.title) == ["Buy seeds", "Bake", "Dust", "Wash up"])
  }
}
