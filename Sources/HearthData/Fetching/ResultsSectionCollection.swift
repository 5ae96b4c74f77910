/// A query's rows grouped into sections: one section for each distinct value of a section
/// expression, in the order the query returned them (the expression's order first).
///
/// ```swift
/// @FetchAll(Reminder.order(by: \.title), sectionBy: \.category) var reminders
/// for section in $reminders.sections {
///   print(section.name ?? "Uncategorized", section.map(\.title))
/// }
/// let sections = try Reminder.order(by: \.title).fetchAll(db, sectionBy: { $0.priority.desc() })
/// ```
public struct ResultsSectionCollection<Element, SectionName: Hashable> {
  /// Every row, in the order the query returned them.
  let elements: [Element]
  /// The sections' names, in order, and the positions in `elements` of each one's rows, as
  /// runs (one run a section, unless a name comes back after another).
  private let names: [SectionName]
  private let members: [[Range<Int>]]
  private let positionOfName: [SectionName: Int]

  /// No sections.
  public init() {
    self.init(elements: [], names: [], members: [], positionOfName: [:])
  }

  /// All of `elements` in one section named `name` (none when there are no elements).
  init(elements: [Element], sectionName name: SectionName) {
    self.init(
      elements: elements, names: elements.isEmpty ? [] : [name],
      members: elements.isEmpty ? [] : [[elements.indices]],
      positionOfName: elements.isEmpty ? [:] : [name: 0])
  }

  /// Rows read with their section's name, grouped by it. A name met again after another
  /// (a collation that orders equal values apart) joins its first section.
  init(rows: [(Element, SectionName)]) {
    var elements: [Element] = []
    var names: [SectionName] = []
    var members: [[Range<Int>]] = []
    var positionOfName: [SectionName: Int] = [:]
    elements.reserveCapacity(rows.count)
    for (element, name) in rows {
      let position: Int
      if let known = positionOfName[name] {
        position = known
      } else {
        position = names.count
        positionOfName[name] = position
        names.append(name)
        members.append([])
      }
      let index = elements.count
      if let last = members[position].last, last.upperBound == index {
        members[position][members[position].count - 1] = last.lowerBound..<index + 1
      } else {
        members[position].append(index..<index + 1)
      }
      elements.append(element)
    }
    self.init(elements: elements, names: names, members: members, positionOfName: positionOfName)
  }

  private init(
    elements: [Element], names: [SectionName], members: [[Range<Int>]],
    positionOfName: [SectionName: Int]
  ) {
    self.elements = elements
    self.names = names
    self.members = members
    self.positionOfName = positionOfName
  }

  /// The sections' names, in order.
  public var sectionNames: [SectionName] { names }

  /// The section named `name`, or nil when there is none.
  public subscript(sectionName name: SectionName) -> ResultsSection<Element, SectionName>? {
    positionOfName[name].map { self[$0] }
  }

  /// Whether a section is named `name`.
  public func contains(sectionName name: SectionName) -> Bool { positionOfName[name] != nil }

  /// The position of the section named `name`, or nil when there is none.
  public func index(ofSectionNamed name: SectionName) -> Int? { positionOfName[name] }
}

extension ResultsSectionCollection: RandomAccessCollection {
  public var startIndex: Int { 0 }
  public var endIndex: Int { names.count }

  public subscript(position: Int) -> ResultsSection<Element, SectionName> {
    ResultsSection(name: names[position], elements: elements, runs: members[position])
  }
}

extension ResultsSectionCollection: Sendable where Element: Sendable, SectionName: Sendable {}

extension ResultsSectionCollection: Equatable where Element: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.elementsEqual(rhs) }
}

/// The rows of one section, which is named (and identified) by its section expression's value.
public struct ResultsSection<Element, SectionName: Hashable>: Identifiable {
  /// The value of the section expression that every row of the section has.
  public let name: SectionName
  private let elements: [Element]
  /// The positions in `elements` of the section's rows, as runs.
  private let runs: [Range<Int>]
  public let count: Int

  init(name: SectionName, elements: [Element], runs: [Range<Int>]) {
    self.name = name
    self.elements = elements
    self.runs = runs
    count = runs.reduce(0) { $0 + $1.count }
  }

  public var id: SectionName { name }
}

extension ResultsSection: RandomAccessCollection {
  public var startIndex: Int { 0 }
  public var endIndex: Int { count }

  public subscript(position: Int) -> Element {
    var offset = position
    for run in runs {
      if offset < run.count { return elements[run.lowerBound + offset] }
      offset -= run.count
    }
    preconditionFailure("position \(position) is past the section's \(count) rows")
  }
}

extension ResultsSection: Sendable where Element: Sendable, SectionName: Sendable {}

extension ResultsSection: Equatable where Element: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.name == rhs.name && lhs.elementsEqual(rhs)
  }
}

// The closure of `sectionBy:` takes the columns of each table the statement reads: the
// table's alone, or with each joined table's (`{ $1.id }`), as `where` does.
extension Select {
  /// Every row, grouped into sections by the value of an expression (or an ordering of one)
  /// of the selected tables' columns. The database orders by the expression first, then as
  /// the statement orders; each distinct value is a section, named by it.
  ///
  /// ```swift
  /// try Reminder.order(by: \.title).fetchAll(db, sectionBy: { $0.priority.desc() })
  /// // ResultsSectionCollection<Reminder, Int?>
  /// try Reminder.join(RemindersList.all) { $0.remindersListID.eq($1.id) }
  ///   .select { ($0.title, $1.title) }
  ///   .fetchAll(db, sectionBy: { $1.id })
  /// ```
  public func fetchAll<Key: QueryRepresentable, each J: Table>(
    _ db: Database,
    @_SectionBuilder<Key> sectionBy sectioning: (
      From.TableColumns, repeat (each J).TableColumns
    ) -> _Sectioning<Key>
  ) throws -> ResultsSectionCollection<Columns, Key.QueryOutput>
  where Joins == (repeat each J), Key.QueryOutput: Hashable {
    try sections(db, sectioning(From.columns, repeat (each J).columns))
  }
}

extension Where {
  /// Every row of the table, grouped into sections by the value of an expression (or an
  /// ordering of one) of its columns.
  public func fetchAll<Key: QueryRepresentable>(
    _ db: Database,
    @_SectionBuilder<Key> sectionBy sectioning: (From.TableColumns) -> _Sectioning<Key>
  ) throws -> ResultsSectionCollection<From, Key.QueryOutput>
  where Key.QueryOutput: Hashable {
    try sections(db, sectioning(From.columns))
  }
}

extension SelectStatement {
  /// Every row, grouped into sections by a column's value: `fetchAll(db, sectionBy:
  /// \.category)`.
  public func fetchAll<Column: QueryExpression>(
    _ db: Database, sectionBy column: KeyPath<From.TableColumns, Column>
  ) throws -> ResultsSectionCollection<QueryValue, Column.QueryValue.QueryOutput>
  where Column.QueryValue: QueryRepresentable, Column.QueryValue.QueryOutput: Hashable {
    try sections(db, _Sectioning(From.columns[keyPath: column]))
  }

  fileprivate func sections<Key: QueryRepresentable>(
    _ db: Database, _ sectioning: _Sectioning<Key>
  ) throws -> ResultsSectionCollection<QueryValue, Key.QueryOutput> {
    let rows = try asSelect()._sectioned(by: sectioning).fetchAll(db)
    return ResultsSectionCollection(rows: rows.map { row in (row.0, row.1.queryOutput) })
  }
}
