import Foundation
import HearthQuery
import Testing

@Table
struct Player: Hashable, Identifiable {
  let id: Int
  var name = ""
  var nickname: String?
  var score = 0
  var rating = 0.0
  var joinedAt: Date?
}

@Suite struct ExpressionTests {
  let database: DatabaseQueue

  init() throws {
    database = try DatabaseQueue()
    try database.write { db in
      try #sql(
        """
        CREATE TABLE "players" (
          "id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "nickname" TEXT,
          "score" INTEGER NOT NULL, "rating" REAL NOT NULL, "joinedAt" TEXT
        )
        """
      ).execute(db)
      try db.seed {
        Player(id: 1, name: "Arthur", nickname: "Art", score: 100, rating: 4.5)
        Player(id: 2, name: "Barbara", score: 1000, rating: 3.0)
        Player(id: 3, name: "100% sure_thing", nickname: "Sure", score: 10, rating: 1.5)
        Player(id: 4, name: "  padded  ", score: 0, rating: 0)
      }
    }
  }

  /// The ids of the players matching `predicate`.
  func ids(_ predicate: (Player.TableColumns) -> some QueryExpression<Bool>) throws -> [Int] {
    try database.read { db in
      try Player.where(predicate).order(by: \.id).select { $0.id }.fetchAll(db)
    }
  }

  /// The value of `expression` for player `id`.
  func value<Value: QueryRepresentable>(
    of id: Int, _ expression: (Player.TableColumns) -> some QueryExpression<Value>
  ) throws -> Value.QueryOutput? {
    try database.read { db in try Player.find(id).select(expression).fetchOne(db) }
  }

  @Test func comparisons() throws {
    expectSQL(Player.columns.score == 100, #"("players"."score" = ?)"#, bindings: [100])
    #expect(try ids { $0.score == 100 } == [1])
    #expect(try ids { $0.score != 100 } == [2, 3, 4])
    #expect(try ids { $0.score < 100 } == [3, 4])
    #expect(try ids { $0.score > 100 } == [2])
    #expect(try ids { $0.score <= 100 } == [1, 3, 4])
    #expect(try ids { $0.score >= 100 } == [1, 2])
    #expect(try ids { $0.score.eq(10) } == [3])
    #expect(try ids { $0.score.neq(10) } == [1, 2, 4])
    #expect(try ids { $0.score.gt(10) } == [1, 2])
    #expect(try ids { $0.score.lt(10) } == [4])
    #expect(try ids { $0.score.gte(10) } == [1, 2, 3])
    #expect(try ids { $0.score.lte(10) } == [3, 4])
    #expect(try ids { $0.rating > 2.9 } == [1, 2])
  }

  @Test func optionalsCompareWithIs() throws {
    expectSQL(Player.columns.nickname.is(nil), #"("players"."nickname" IS ?)"#, bindings: [nil])
    #expect(try ids { $0.nickname.is(nil) } == [2, 4])
    #expect(try ids { $0.nickname.isNot(nil) } == [1, 3])
    expectSQL(Player.columns.nickname == "Art", #"("players"."nickname" = ?)"#)
    #expect(try ids { $0.nickname == "Art" } == [1])
    let none: String? = nil
    expectSQL(Player.columns.nickname == none, #"("players"."nickname" IS ?)"#)
    #expect(try ids { $0.nickname == none } == [2, 4])
    #expect(try ids { $0.nickname != none } == [1, 3])
    // Two optionals compare as the reference compares them: `=`, so NULL matches nothing.
    let art: String? = "Art"
    expectSQL(Player.columns.nickname == art, #"("players"."nickname" = ?)"#)
    #expect(try ids { $0.nickname == Player.columns.nickname } == [1, 3])
  }

  @Test func logic() throws {
    expectSQL(
      Player.columns.score > 5 && !(Player.columns.name == "Arthur") || Player.columns.id == 4,
      #"((("players"."score" > ?) AND NOT (("players"."name" = ?))) OR ("players"."id" = ?))"#)
    #expect(try ids { $0.score > 5 && !($0.name == "Arthur") || $0.id == 4 } == [2, 3, 4])
    #expect(try ids { ($0.score > 5).and($0.rating < 2) } == [3])
    #expect(try ids { ($0.score > 500).or($0.id.eq(1)) } == [1, 2])
    #expect(try ids { ($0.score > 5).not() } == [4])
  }

  @Test func inAndBetween() throws {
    expectSQL(Player.columns.id.in([1, 3]), #"("players"."id" IN (?, ?))"#, bindings: [1, 3])
    #expect(try ids { $0.id.in([1, 3, 99]) } == [1, 3])
    #expect(try ids { $0.id.in([Int]()) } == [])
    #expect(try ids { $0.name.in(["Arthur", "Barbara"]) } == [1, 2])
    expectSQL(Player.columns.score.between(10, and: 100), #"("players"."score" BETWEEN ? AND ?)"#)
    #expect(try ids { $0.score.between(10, and: 100) } == [1, 3])
    #expect(try ids { $0.id.in(Player.where { $0.score > 50 }.select { $0.id }) } == [1, 2])
  }

  @Test func textMatching() throws {
    expectSQL(
      Player.columns.name.contains("ar"), #"("players"."name" LIKE ? ESCAPE ?)"#,
      bindings: ["%ar%", "\\"])
    #expect(try ids { $0.name.contains("ar") } == [1, 2])
    // Wildcards in the searched text match only themselves.
    #expect(try ids { $0.name.contains("100%") } == [3])
    #expect(try ids { $0.name.contains("r_h") } == [])  // "_" would match the "t" of "Arthur"
    #expect(try ids { $0.name.contains("e_th") } == [3])
    #expect(try ids { $0.name.hasPrefix("B") } == [2])
    #expect(try ids { $0.name.hasSuffix("ur") } == [1])
    #expect(try ids { $0.name.like("%a%a%") } == [2])
    #expect(try ids { $0.name.glob("A*") } == [1])
    #expect(try ids { $0.name.glob("a*") } == [])
  }

  @Test func textFunctions() throws {
    #expect(try value(of: 1) { $0.name.lower() } == "arthur")
    #expect(try value(of: 1) { $0.name.upper() } == "ARTHUR")
    #expect(try value(of: 1) { $0.name.length() } == 6)
    #expect(try value(of: 4) { $0.name.trim() } == "padded")
    #expect(try value(of: 4) { $0.name.ltrim() } == "padded  ")
    #expect(try value(of: 4) { $0.name.rtrim() } == "  padded")
    #expect(try value(of: 1) { $0.name.replace("r", "R") } == "ARthuR")
    #expect(try value(of: 1) { $0.name.instr("thu") } == 3)
    #expect(try value(of: 1) { $0.name.substr(2, 3) } == "rth")
    #expect(try value(of: 1) { $0.name + " the " + $0.name.upper() } == "Arthur the ARTHUR")
    #expect(try ids { $0.name.collate(.nocase) == "ARTHUR" } == [1])
    #expect(try ids { $0.name == "ARTHUR" } == [])
  }

  @Test func arithmetic() throws {
    expectSQL(Player.columns.score * 2 + 1, #"(("players"."score" * ?) + ?)"#)
    #expect(try value(of: 1) { $0.score * 2 + 1 } == 201)
    #expect(try value(of: 1) { $0.score - 1 } == 99)
    #expect(try value(of: 1) { $0.score / 3 } == 33)
    #expect(try value(of: 1) { $0.score % 7 } == 2)
    #expect(try value(of: 1) { -$0.score } == -100)
    #expect(try value(of: 1) { (-$0.score).abs() } == 100)
    #expect(try value(of: 2) { $0.rating * 1.5 } == 4.5)
  }

  @Test func coalescing() throws {
    expectSQL(
      Player.columns.nickname ?? Player.columns.name,
      #"coalesce("players"."nickname", "players"."name")"#)
    #expect(try value(of: 1) { $0.nickname ?? $0.name } == "Art")
    #expect(try value(of: 2) { $0.nickname ?? $0.name } == "Barbara")
    #expect(try value(of: 2) { $0.nickname ?? "none" } == "none")
    #expect(
      try value(of: 2) { $0.nickname.coalesce($0.joinedAt.cast(as: String?.self), Optional("x")) }
        == "x")
    let plain: Int? = nil
    #expect((plain ?? 3) == 3)  // the standard library's ?? still applies to plain values
  }

  @Test func boundValuesNeverBecomeSQL() throws {
    let hostile = "x'); DROP TABLE players; --"
    expectSQL(
      Player.columns.name == hostile, #"("players"."name" = ?)"#,
      bindings: [.init(stringLiteral: hostile)])
    #expect(try ids { $0.name == hostile } == [])
    #expect(try database.read { try Player.fetchCount($0) } == 4)
  }
}

@Suite struct ExpressionSQLTests {
  let p = Player.columns

  @Test func everyFormRendersTheSQLItShould() {
    let cases: [(any QueryExpression, String)] = [
      (p.score != 1, #"("players"."score" <> ?)"#),
      (p.score < 1, #"("players"."score" < ?)"#),
      (p.score > 1, #"("players"."score" > ?)"#),
      (p.score <= 1, #"("players"."score" <= ?)"#),
      (p.score >= 1, #"("players"."score" >= ?)"#),
      (p.score.eq(1), #"("players"."score" = ?)"#),
      (p.score.neq(1), #"("players"."score" <> ?)"#),
      (p.score.gt(1), #"("players"."score" > ?)"#),
      (p.score.lt(1), #"("players"."score" < ?)"#),
      (p.score.gte(1), #"("players"."score" >= ?)"#),
      (p.score.lte(1), #"("players"."score" <= ?)"#),
      (p.nickname.isNot(nil), #"("players"."nickname" IS NOT ?)"#),
      (p.nickname != Optional("x"), #"("players"."nickname" <> ?)"#),
      (p.score > 1 || p.score < 0, #"(("players"."score" > ?) OR ("players"."score" < ?))"#),
      (!(p.score > 1), #"NOT (("players"."score" > ?))"#),
      (p.name.hasPrefix("a"), #"("players"."name" LIKE ? ESCAPE ?)"#),
      (p.name.like("a%"), #"("players"."name" LIKE ?)"#),
      (p.name.glob("a*"), #"("players"."name" GLOB ?)"#),
      (p.score - 1, #"("players"."score" - ?)"#),
      (p.score / 2, #"("players"."score" / ?)"#),
      (p.score % 2, #"("players"."score" % ?)"#),
      (-p.score, #"(-"players"."score")"#),
      (p.score.abs(), #"abs("players"."score")"#),
      (p.name + "!", #"("players"."name" || ?)"#),
      (p.name.lower(), #"lower("players"."name")"#),
      (p.name.upper(), #"upper("players"."name")"#),
      (p.name.length(), #"length("players"."name")"#),
      (p.name.trim(), #"trim("players"."name")"#),
      (p.name.ltrim(), #"ltrim("players"."name")"#),
      (p.name.rtrim(), #"rtrim("players"."name")"#),
      (p.name.trim("x"), #"trim("players"."name", ?)"#),
      (p.name.replace("a", "b"), #"replace("players"."name", ?, ?)"#),
      (p.name.instr("a"), #"instr("players"."name", ?)"#),
      (p.name.substr(1, 2), #"substr("players"."name", ?, ?)"#),
      (p.name.collate(.nocase), #"("players"."name" COLLATE NOCASE)"#),
      // (Typed: in an `any QueryExpression` context Swift would take the standard ?? instead.)
      ((p.nickname ?? "x") as SQLQueryExpression<String>, #"coalesce("players"."nickname", ?)"#),
      (p.nickname.coalesce(p.nickname), #"coalesce("players"."nickname", "players"."nickname")"#),
      (p.score.cast(as: String.self), #"CAST("players"."score" AS TEXT)"#),
      (p.score.count(), #"count("players"."score")"#),
      (p.score.count(distinct: true), #"count(DISTINCT "players"."score")"#),
      (p.score.min(), #"min("players"."score")"#),
      (p.score.max(), #"max("players"."score")"#),
      (p.score.avg(), #"avg("players"."score")"#),
      (p.score.sum(), #"sum("players"."score")"#),
      (p.score.total(), #"total("players"."score")"#),
      (p.name.groupConcat(";"), #"group_concat("players"."name", ?)"#),
      (
        p.name.groupConcat(order: p.score.desc(nulls: .last), p.name),
        #"hearth_group_concat("players"."name", ?, 5, "players"."score", 0, "players"."name")"#
      ),
      (p.score.asc(), #""players"."score" ASC"#),
      (p.score.desc(nulls: .first), #""players"."score" DESC NULLS FIRST"#),
    ]
    for (expression, sql) in cases {
      #expect(expression.queryFragment.sql == sql)
    }
  }

  @Test func aggregatesComputeOverRealRows() throws {
    let database = try DatabaseQueue()
    try database.write { db in
      try #sql(
        #"CREATE TABLE "players" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "nickname" TEXT, "score" INTEGER NOT NULL, "rating" REAL NOT NULL, "joinedAt" TEXT)"#
      ).execute(db)
      try db.seed {
        Player(id: 1, name: "A", score: 10)
        Player(id: 2, name: "B", score: 30)
        Player(id: 3, name: "C", score: 30)
      }
    }
    try database.read { (db: Database) throws in
      let row = try Player.select {
        (
          $0.score.min(), $0.score.max(), $0.score.avg(), $0.score.sum(), $0.score.total(),
          $0.score.count(distinct: true), $0.name.groupConcat("|")
        )
      }.fetchOne(db)
      let values = try #require(row)
      #expect(values.0 == 10 && values.1 == 30 && values.2 == 70.0 / 3 && values.3 == 70)
      #expect(values.4 == 70 && values.5 == 2 && values.6 == "A|B|C")
      let empty = try Player.where { $0.id > 99 }.select { ($0.score.max(), $0.score.total()) }
        .fetchOne(db)
      #expect(empty?.0 == nil && empty?.1 == 0)
    }
  }

  @Test func groupConcatJoinsInTheOrderAsked() throws {
    let database = try DatabaseQueue()
    try database.write { db in
      try #sql(
        #"CREATE TABLE "players" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "nickname" TEXT, "score" INTEGER NOT NULL, "rating" REAL NOT NULL, "joinedAt" TEXT)"#
      ).execute(db)
      try db.seed {
        Player(id: 1, name: "b", nickname: "x", score: 20)
        Player(id: 2, name: "a", score: 30)
        Player(id: 3, name: "c", nickname: "y", score: 20)
        Player(id: 4, name: "B", nickname: "z", score: 10)
      }
    }
    try database.read { (db: Database) throws in
      func concat(_ expression: SQLQueryExpression<String?>) throws -> String? {
        try Player.select { _ in expression }.fetchOne(db) ?? nil
      }
      let p = Player.columns
      // Text by bytes ("B" before "a"), as SQLite's ORDER BY does.
      #expect(try concat(p.name.groupConcat(order: p.name)) == "B,a,b,c")
      // Several keys, descending first; equal keys keep the rows' order.
      #expect(try concat(p.name.groupConcat("-", order: p.score.desc(), p.name)) == "a-b-c-B")
      #expect(try concat(p.name.groupConcat(order: p.score)) == "B,b,c,a")
      // NULL keys: first ascending, last descending, or where the term puts them.
      #expect(try concat(p.name.groupConcat(order: p.nickname)) == "a,b,c,B")
      #expect(try concat(p.name.groupConcat(order: p.nickname.desc())) == "B,c,b,a")
      #expect(try concat(p.name.groupConcat(order: p.nickname.asc(nulls: .last))) == "b,c,B,a")
      // NULL values are skipped; FILTER applies; no rows give NULL.
      #expect(try concat(p.nickname.groupConcat(order: p.id.desc())) == "z,y,x")
      #expect(try concat(p.name.groupConcat(order: p.id, filter: p.score.eq(20))) == "b,c")
      #expect(try concat(p.name.groupConcat(order: p.id, filter: p.score.eq(99))) == nil)
      // Grouped: one ordered list per group.
      let groups = try Player.group(by: \.score).order(by: \.score)
        .select { ($0.score, $0.name.groupConcat(order: $0.name.desc())) }
        .fetchAll(db)
      #expect(groups.map(\.1) == ["B", "c,b", "a"])
    }
  }
}
