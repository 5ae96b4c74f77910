import Foundation
import HearthQuery
import HearthSQLite
import Testing

/// The reference's type names, spelled out in code: each names what Hearth gives.
@Suite struct ReferenceTypeNameTests {
  @Test func theReferencesTypeNamesNameWhatHearthGives() throws {
    let count: AggregateFunctionExpression<Int> = Reminder.columns.id.count()
    let priority: CoalesceFunction<Int> = Reminder.columns.priority ?? 0
    let columns: some TableExpression<Reminder> = Reminder.columns
    let rows = try conformanceDatabase().read { db in
      try Reminder.select { _ in (count, priority) }.group(by: \.id).order(by: \.id).limit(1)
        .fetchAll(db)
    }
    #expect(rows.count == 1 && rows[0].0 == 1)
    #expect(columns.queryFragment.sql.hasPrefix(#""reminders"."id""#))
    let note: CaseColumn<Clip, String> = Clip.columns.kind.note
    #expect(note.name == "note")
    let image: OptionalColumnGroup<Clip, Clip.Image> = Clip.columns.kind.image
    #expect(image.queryFragment.sql == #""clips"."imageCaption", "clips"."imageURL""#)
  }
}
