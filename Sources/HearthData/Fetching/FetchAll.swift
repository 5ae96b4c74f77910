/// The rows of a query, kept current as the database changes.
///
/// ```swift
/// @FetchAll var items: [Item]                                   // every row
/// @FetchAll(Item.order(by: \.title)) var items                  // a query
/// @FetchAll(Item.where(\.isInStock), database: otherDatabase) var inStock
/// ```
///
/// The first value is fetched when the wrapper is created; after that, every commit that
/// touches a table the query reads refetches it in the background, and the new value
/// arrives on the main actor (or `scheduler`). `$items.load(…)` swaps the query.
///
/// With `sectionBy:`, the rows are also grouped into sections, each named by the text of a
/// string expression (NULL: a nil name), which the database orders by first:
///
/// ```swift
/// @FetchAll(Reminder.order(by: \.title), sectionBy: \.category) var reminders
/// $reminders.sections   // ResultsSectionCollection<Reminder, String?>
/// ```
@propertyWrapper
public struct FetchAll<Element: Sendable>: Sendable {
  /// The rows, as sections (one section named nil when the fetch is not sectioned).
  let store: FetchStore<ResultsSectionCollection<Element, String?>>

  /// The rows.
  public var wrappedValue: [Element] { store.value.elements }

  /// The rows grouped into sections: by the `sectionBy:` expression, or all in one section
  /// named nil when there is none (and no section when there are no rows).
  public var sections: ResultsSectionCollection<Element, String?> { store.value }

  /// `$items`: `load`, `isLoading`, `loadError`, `values`, `sections`. Assigning another
  /// wrapper (`$items = FetchAll(…)`) makes this one fetch its query from then on.
  public var projectedValue: Self {
    get { self }
    nonmutating set { store.adopt(newValue.store) }
  }

  /// Rows of `statement`, from `database` (default: `@Dependency(\.defaultDatabase)`).
  public init<S: Statement & Sendable>(
    wrappedValue: [Element] = [], _ statement: S, database: (any DatabaseReader)? = nil,
    scheduler: FetchScheduler = .main
  ) where S.QueryValue == Element {
    store = FetchStore(
      initialValue: ResultsSectionCollection(elements: wrappedValue, sectionName: nil))
    store.start(
      database: database ?? DependencyValues.current.defaultDatabase, scheduler: scheduler,
      fetch: unsectioned(statement))
  }

  /// Rows of `statement` grouped into sections by the text of an expression of its tables'
  /// columns, or an ordering of one: `sectionBy: { $0.category.desc() }`, `{ $1.name }`.
  public init<From: Table, each J: Table>(
    wrappedValue: [Element] = [], _ statement: Select<Element, From, (repeat each J)>,
    @_OptionalSectionBuilder<String?> sectionBy sectioning: (
      From.TableColumns, repeat (each J).TableColumns
    ) -> _Sectioning<String?>?,
    database: (any DatabaseReader)? = nil, scheduler: FetchScheduler = .main
  ) {
    self.init(
      wrappedValue, statement, sectioning(From.columns, repeat (each J).columns),
      database: database, scheduler: scheduler)
  }

  /// Rows of a join of two tables grouped into sections by the text of an expression of
  /// either table's columns.
  public init<From: Table, J: Table>(
    wrappedValue: [Element] = [], _ statement: Select<Element, From, J>,
    @_OptionalSectionBuilder<String?> sectionBy sectioning: (From.TableColumns, J.TableColumns) ->
      _Sectioning<String?>?,
    database: (any DatabaseReader)? = nil, scheduler: FetchScheduler = .main
  ) {
    self.init(
      wrappedValue, statement, sectioning(From.columns, J.columns), database: database,
      scheduler: scheduler)
  }

  /// Rows of any select grouped into sections (a join written inline after an `order`,
  /// whose joined tables Swift infers only from the statement itself).
  @_disfavoredOverload
  public init<S: SelectStatement & Sendable, each J: Table>(
    wrappedValue: [Element] = [], _ statement: S,
    @_OptionalSectionBuilder<String?> sectionBy sectioning: (
      S.From.TableColumns, repeat (each J).TableColumns
    ) -> _Sectioning<String?>?,
    database: (any DatabaseReader)? = nil, scheduler: FetchScheduler = .main
  ) where S.QueryValue == Element, S.Joins == (repeat each J) {
    self.init(
      wrappedValue, statement, sectioning(S.From.columns, repeat (each J).columns),
      database: database, scheduler: scheduler)
  }

  /// Rows of a table's `where` grouped into sections.
  public init(
    wrappedValue: [Element] = [], _ statement: Where<Element>,
    @_OptionalSectionBuilder<String?> sectionBy sectioning: (Element.TableColumns) -> _Sectioning<
      String?
    >?,
    database: (any DatabaseReader)? = nil, scheduler: FetchScheduler = .main
  ) where Element: Table {
    self.init(
      wrappedValue, statement, sectioning(Element.columns), database: database,
      scheduler: scheduler)
  }

  private init<S: SelectStatement & Sendable>(
    _ wrappedValue: [Element], _ statement: S, _ sectioning: _Sectioning<String?>?,
    database: (any DatabaseReader)?, scheduler: FetchScheduler
  ) where S.QueryValue == Element {
    store = FetchStore(
      initialValue: ResultsSectionCollection(elements: wrappedValue, sectionName: nil))
    store.start(
      database: database ?? DependencyValues.current.defaultDatabase, scheduler: scheduler,
      shape: sectioning, fetch: sectioned(statement, by: sectioning))
  }

  /// Rows of `statement` grouped into sections by a text column: `sectionBy: \.category`.
  public init<S: SelectStatement & Sendable, Column: QueryExpression>(
    wrappedValue: [Element] = [], _ statement: S,
    sectionBy column: KeyPath<S.From.TableColumns, Column>,
    database: (any DatabaseReader)? = nil, scheduler: FetchScheduler = .main
  ) where S.QueryValue == Element, Column.QueryValue: _SectionText {
    let text = SQLQueryExpression(expression: S.From.columns[keyPath: column], as: String?.self)
    self.init(wrappedValue, statement, _Sectioning(text), database: database, scheduler: scheduler)
  }

  /// Every row of the table, grouped into sections.
  public init(
    wrappedValue: [Element] = [],
    @_OptionalSectionBuilder<String?> sectionBy sectioning: (Element.TableColumns) -> _Sectioning<
      String?
    >?,
    database: (any DatabaseReader)? = nil, scheduler: FetchScheduler = .main
  ) where Element: Table {
    self.init(
      wrappedValue: wrappedValue, Where<Element>().all, sectionBy: sectioning, database: database,
      scheduler: scheduler)
  }

  /// Every row of the table, grouped into sections by a text column.
  public init<Column: QueryExpression>(
    wrappedValue: [Element] = [], sectionBy column: KeyPath<Element.TableColumns, Column>,
    database: (any DatabaseReader)? = nil, scheduler: FetchScheduler = .main
  ) where Element: Table, Column.QueryValue: _SectionText {
    self.init(
      wrappedValue: wrappedValue, Where<Element>().all, sectionBy: column, database: database,
      scheduler: scheduler)
  }

  /// Every row of the table.
  public init(
    wrappedValue: [Element] = [], database: (any DatabaseReader)? = nil,
    scheduler: FetchScheduler = .main
  ) where Element: Table {
    self.init(
      wrappedValue: wrappedValue, Where<Element>().all, database: database, scheduler: scheduler)
  }

  /// Replaces the query. Returns once the new rows are in place; throws the fetch's error.
  ///
  /// ```swift
  /// try await $items.load(Item.where { $0.id > #bind(lastID ?? 0) }.order { $0.id }.limit(20))
  /// ```
  @discardableResult
  public func load<S: Statement & Sendable>(
    _ statement: S, database: (any DatabaseReader)? = nil, scheduler: FetchScheduler = .main
  ) async throws -> FetchSubscription where S.QueryValue == Element {
    try await store.load(
      database: database ?? DependencyValues.current.defaultDatabase, scheduler: scheduler,
      fetch: unsectioned(statement))
  }

  /// Replaces the query with one whose rows are grouped into sections.
  @discardableResult
  public func load<From: Table, each J: Table>(
    _ statement: Select<Element, From, (repeat each J)>,
    @_OptionalSectionBuilder<String?> sectionBy sectioning: (
      From.TableColumns, repeat (each J).TableColumns
    ) -> _Sectioning<String?>?,
    database: (any DatabaseReader)? = nil, scheduler: FetchScheduler = .main
  ) async throws -> FetchSubscription {
    try await loadSectioned(
      statement, sectioning(From.columns, repeat (each J).columns), database: database,
      scheduler: scheduler)
  }

  /// Replaces the query with a join of two tables, its rows grouped into sections.
  @discardableResult
  public func load<From: Table, J: Table>(
    _ statement: Select<Element, From, J>,
    @_OptionalSectionBuilder<String?> sectionBy sectioning: (From.TableColumns, J.TableColumns) ->
      _Sectioning<String?>?,
    database: (any DatabaseReader)? = nil, scheduler: FetchScheduler = .main
  ) async throws -> FetchSubscription {
    try await loadSectioned(
      statement, sectioning(From.columns, J.columns), database: database, scheduler: scheduler)
  }

  /// Replaces the query with any select, its rows grouped into sections (a join written
  /// inline after an `order`).
  @_disfavoredOverload
  @discardableResult
  public func load<S: SelectStatement & Sendable, each J: Table>(
    _ statement: S,
    @_OptionalSectionBuilder<String?> sectionBy sectioning: (
      S.From.TableColumns, repeat (each J).TableColumns
    ) -> _Sectioning<String?>?,
    database: (any DatabaseReader)? = nil, scheduler: FetchScheduler = .main
  ) async throws -> FetchSubscription where S.QueryValue == Element, S.Joins == (repeat each J) {
    try await loadSectioned(
      statement, sectioning(S.From.columns, repeat (each J).columns), database: database,
      scheduler: scheduler)
  }

  /// Replaces the query with a table's `where`, its rows grouped into sections.
  @discardableResult
  public func load(
    _ statement: Where<Element>,
    @_OptionalSectionBuilder<String?> sectionBy sectioning: (Element.TableColumns) -> _Sectioning<
      String?
    >?,
    database: (any DatabaseReader)? = nil, scheduler: FetchScheduler = .main
  ) async throws -> FetchSubscription where Element: Table {
    try await loadSectioned(
      statement, sectioning(Element.columns), database: database, scheduler: scheduler)
  }

  /// Replaces the query with one whose rows are grouped into sections by a text column.
  @discardableResult
  public func load<S: SelectStatement & Sendable, Column: QueryExpression>(
    _ statement: S, sectionBy column: KeyPath<S.From.TableColumns, Column>,
    database: (any DatabaseReader)? = nil, scheduler: FetchScheduler = .main
  ) async throws -> FetchSubscription
  where S.QueryValue == Element, Column.QueryValue: _SectionText {
    let text = SQLQueryExpression(expression: S.From.columns[keyPath: column], as: String?.self)
    return try await loadSectioned(
      statement, _Sectioning(text), database: database, scheduler: scheduler)
  }

  private func loadSectioned<S: SelectStatement & Sendable>(
    _ statement: S, _ sectioning: _Sectioning<String?>?, database: (any DatabaseReader)?,
    scheduler: FetchScheduler
  ) async throws -> FetchSubscription where S.QueryValue == Element {
    try await store.load(
      database: database ?? DependencyValues.current.defaultDatabase, scheduler: scheduler,
      shape: sectioning, fetch: sectioned(statement, by: sectioning))
  }

  /// Fetches the current query again now; returns once its rows are in place.
  public func load() async throws { try await store.reload() }

  /// Whether a `load` is fetching its first value.
  public var isLoading: Bool { store.isLoading }

  /// The error of the last fetch, or nil once a fetch succeeds again. The rows keep their
  /// last good value meanwhile.
  public var loadError: (any Error)? { store.loadError }

  /// The rows now, then each time they change (an `AsyncSequence`, in place of Combine's
  /// `publisher`).
  public var values: AsyncStream<[Element]> { store.values { $0.elements } }
}

/// A fetch of every row of `statement`, in one section named nil.
private func unsectioned<S: Statement & Sendable>(_ statement: S)
  -> @Sendable (Database) throws -> ResultsSectionCollection<S.QueryValue, String?>
where S.QueryValue: Sendable {
  { db in ResultsSectionCollection(elements: try statement.fetchAll(db), sectionName: nil) }
}

/// A fetch of every row of `statement`, grouped by the text `sectioning` reads (or in one
/// section named nil when there is no sectioning).
private func sectioned<S: SelectStatement & Sendable>(
  _ statement: S, by sectioning: _Sectioning<String?>?
) -> @Sendable (Database) throws -> ResultsSectionCollection<S.QueryValue, String?>
where S.QueryValue: Sendable {
  guard let sectioning else { return unsectioned(statement) }
  let select = statement.asSelect()._sectioned(by: sectioning)
  return { db in ResultsSectionCollection(rows: try select.fetchAll(db)) }
}

/// The types of the columns `@FetchAll`'s `sectionBy:` key path may name: text, which names
/// each section.
public protocol _SectionText {}
extension String: _SectionText {}
extension Optional: _SectionText where Wrapped == String {}

/// Two wrappers are equal when their rows are, grouped the same way.
extension FetchAll: Equatable where Element: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.wrappedValue == rhs.wrappedValue && lhs.store.shape == rhs.store.shape
  }
}
