import Foundation
import HearthDataTestSupport
import HearthQuery
import Testing

@Table
struct Fibonacci {
  let n: Int
  let prevFib: Int
  let fib: Int
}

@Table
struct Employee {
  let id: Int
  var name = ""
  var bossID: Int?
  var height = 100
}

@Table
struct EmployeeReport {
  let id: Int
  let height: Int
  let name: String
}

// Without a table value's own `union`, `intersect` and `except`, Swift 6.3.1's type checker
// crashes on `row.union(…)` (a `recordResolvedOverload` assertion) while it searches the
// table type's static dynamic members; these compile.
@Suite struct RecursiveUnionTests {
  @Test func theReducedCaseCompiles() {
    let statement = Fibonacci(n: 1, prevFib: 0, fib: 1).union(Fibonacci.all.select { $0 })
    #expect(statement.query.sql.hasPrefix(#"SELECT ? AS "n", ? AS "prevFib", ? AS "fib" UNION "#))
  }

  @Test func aRowValueStartsARecursiveJoin() throws {
    let database = try DatabaseQueue()
    try database.write { db in
      try db.execute(
        sql: """
          CREATE TABLE "employees" (
            "id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "bossID" INTEGER, "height" INTEGER NOT NULL
          );
          INSERT INTO "employees" VALUES (1, 'Alice', NULL, 120), (2, 'Blob', 1, 100),
            (3, 'Blob Jr', 2, 80), (4, 'Blob Sr', 2, 150), (5, 'Esq', NULL, 1000);
          """)
      let alice = EmployeeReport(id: 1, height: 120, name: "Alice")
      try assertQuery(
        With {
          alice
            .union(
              all: true,
              Employee
                .select { EmployeeReport.Columns(id: $0.id, height: $0.height, name: $0.name) }
                .join(EmployeeReport.all) { $0.bossID.is($1.id) }
            )
        } query: {
          EmployeeReport.select { $0.height.avg() }
        }, in: db, rows: "112.5")
    }
  }

  @Test func aRowValueStartsARecursiveUnion() throws {
    let database = try DatabaseQueue()
    try database.read { db in
      try assertQuery(
        With {
          Fibonacci(n: 1, prevFib: 0, fib: 1)
            .union(
              Fibonacci
                .select {
                  Fibonacci.Columns(n: $0.n + 1, prevFib: $0.fib, fib: $0.prevFib + $0.fib)
                }
            )
        } query: {
          Fibonacci
            .select(\.fib)
            .limit(10)
        }, in: db,
        rows: "1\n1\n2\n3\n5\n8\n13\n21\n34\n55")
    }
  }
}
