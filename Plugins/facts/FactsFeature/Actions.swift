// The facts feature's data work: functions of a `Database`, which the commands run through the
// hub and the tests run on a local database.
import Foundation
import HearthData
import HearthPlugin

package enum FactActions {
  /// Stores a new fact about `number`: the first one it knows that is not stored yet, or the
  /// next in turn when all are.
  package static func addFact(about number: Int, now: Date, _ db: Database) throws -> Fact {
    let known = NumberFacts.all(about: number)
    let stored = try Fact.where { $0.number.eq(number) }.select(\.body).fetchAll(db)
    let body = known.first { !stored.contains($0) } ?? known[stored.count % known.count]
    return try Fact.insert { Fact.Draft(number: number, body: body, createdAt: now) }
      .returning(\.self).fetchOne(db)!
  }

  /// The `run` duty: picks the fact of `now`'s day (a fact about the day of the year), once a
  /// day; nil when the day has one.
  package static func pickFactOfTheDay(now: Date, _ db: Database) throws -> Fact? {
    let day = dayKey(now)
    guard try DailyFact.find(day).fetchOne(db) == nil else { return nil }
    let number = Calendar.current.ordinality(of: .day, in: .year, for: now) ?? 1
    let fact = try addFact(about: number, now: now, db)
    try DailyFact.insert { DailyFact(day: day, factID: fact.id) }.execute(db)
    return fact
  }

  /// The fact picked for `now`'s day, if the duty has picked one.
  package static func factOfTheDay(now: Date, _ db: Database) throws -> Fact? {
    try factOfTheDay(dayKey(now)).fetchOne(db)
  }

  package static func factOfTheDay(_ day: String) -> some Statement<Fact> {
    DailyFact.where { $0.day.eq(day) }.join(Fact.all) { $0.factID.eq($1.id) }
      .select { _, fact in fact }
  }

  /// Deletes the facts the handles (prefixes of their ids, as `list` shows) name; none when
  /// one of them names none.
  package static func delete(_ handles: [String], _ db: Database) throws -> [Fact.ID] {
    let ids = try handles.map { try ShortID.resolve($0, what: "fact", in: Fact.tableName, db) }
    try Fact.where { $0.id.in(ids) }.delete().execute(db)
    return ids
  }

  /// How many facts, and about how many numbers.
  package static func counts(_ db: Database) throws -> (facts: Int, numbers: Int) {
    (try Fact.fetchCount(db), try Fact.select(\.number).distinct().fetchCount(db))
  }

  /// `2026-12-01`: the key of a day in `dailyFacts`.
  package static func dayKey(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "yyyy-MM-dd"
    return formatter.string(from: date)
  }
}
