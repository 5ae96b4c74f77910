@_exported import HearthQueryCore
@_exported import HearthSQLite

/// Makes a struct a table: typed columns, row decoding, and a `Draft` for tables with a
/// primary key. The table name is the type's name in lower camel case, plural
/// (`RemindersList` → `remindersLists`), unless given: `@Table("remindersTags")`.
///
/// ```swift
/// @Table
/// struct Reminder: Identifiable {
///   let id: Int
///   var title = ""
///   @Column(as: Color.HexRepresentation.self) var color: Color = .red
///   var priority: Priority?
/// }
/// ```
@attached(
  member, names: named(TableColumns), named(columns), named(tableName), named(schemaName),
  named(Draft), named(Columns), named(Selection), named(AllCasePaths), named(allCasePaths),
  named(CodingKeys), named(init(from:)), named(encode(to:)), named(_jsonKey)
)
@attached(
  extension, conformances: Table, PrimaryKeyedTable, _ColumnGroup, _CaseGroup, CasePathable,
  names: named(init(decoder:)), named(_columnWidth), named(_columnNames), named(_caseColumns),
  named(_columnIndex), named(_bindings))
public macro Table(_ name: String = "", schema schemaName: String = "") =
  #externalMacro(module: "HearthQueryMacros", type: "TableMacro")

/// Makes a struct a result type that queries select into: `Columns(…)` takes one expression
/// per stored property, in order, and rows decode into the struct.
///
/// ```swift
/// @Selection struct Stats {
///   var allCount = 0
///   var flaggedCount = 0
/// }
/// Reminder.select {
///   Stats.Columns(allCount: $0.count(), flaggedCount: $0.count(filter: $0.isFlagged))
/// }
/// ```
///
/// On an enum whose cases each hold one value, it makes a group stored case after case
/// (single-table inheritance): a case of one value in a nullable column named after the
/// case, a case holding a `@Selection` struct in that struct's columns. A row's case is
/// the one whose columns are not all NULL.
///
/// ```swift
/// @Table struct Attachment {
///   let id: UUID
///   let kind: Kind
///   @Selection
///   enum Kind { case link(URL), note(String), image(Attachment.Image) }
///   @Selection struct Image {
///     @Column("imageCaption") var caption: String
///     @Column("imageURL") var url: URL
///   }
/// }
/// Attachment.where { $0.kind.is(\.image) }
/// Attachment.find(id).update { $0.kind = .note("Hello!") }  // NULLs link and the image's
/// Attachment.find(id).update { $0.kind.image = Attachment.Image(caption: "Cat", url: url) }
/// ```
@attached(
  member,
  names: named(Columns), named(Selection), named(AllCasePaths), named(allCasePaths),
  named(TableColumns), named(columns), named(tableName), named(CodingKeys),
  named(init(from:)), named(encode(to:)), named(_jsonKey))
@attached(
  extension, conformances: QueryRepresentable, _ColumnGroup, _CaseGroup, _SelectionValue,
  CasePathable, Table,
  names: named(init(decoder:)), named(QueryValue), named(_columnWidth), named(_columnNames),
  named(_caseColumns), named(_columnIndex), named(_bindings), named(_generatedColumns))
public macro Selection() = #externalMacro(module: "HearthQueryMacros", type: "SelectionMacro")

/// Gives an enum one case path per case (`Kind.allCasePaths.note`, `kind.is(\.note)`,
/// `kind[case: \.note]`, and `kind.note` when the enum is `@dynamicMemberLookup`).
@attached(member, names: named(AllCasePaths), named(allCasePaths))
@attached(extension, conformances: CasePathable)
public macro CasePathable() =
  #externalMacro(module: "HearthQueryMacros", type: "CasePathableMacro")

/// Customizes a column of a `@Table`: its name, its storage, or that it is the primary key.
///
/// ```swift
/// @Column("due_date") var dueDate: Date?
/// @Column(as: Color.HexRepresentation.self) var color: Color
/// @Column(primaryKey: true) var title: String
/// @Column(generated: .virtual) let isOverdue: Bool       // computed by the database
/// @Column(lazyInitializable: true) var createdAt: Date    // optional in Draft: a trigger fills it
/// ```
///
/// A generated column is read with its row but never written: inserts and updates of whole
/// rows leave it out, and `Draft` has no such field.
@attached(peer)
public macro Column(
  _ name: String = "", generated: GeneratedColumnStorage? = nil, primaryKey: Bool = false,
  lazyInitializable: Bool? = nil
) = #externalMacro(module: "HearthQueryMacros", type: "ColumnMacro")

@attached(peer)
public macro Column<Representation: QueryRepresentable>(
  _ name: String = "", as representation: Representation.Type,
  generated: GeneratedColumnStorage? = nil, primaryKey: Bool = false,
  lazyInitializable: Bool? = nil
) = #externalMacro(module: "HearthQueryMacros", type: "ColumnMacro")

/// Declares a SQL function that calls the Swift function it is attached to: `$name`, to call
/// in queries and to add to a connection. The function's parameters and result are its SQL
/// arguments and result; a single `some Sequence<Element>` parameter makes it an aggregate.
///
/// ```swift
/// @DatabaseFunction
/// func exclaim(_ text: String) -> String { text + "!" }
///
/// @DatabaseFunction("product")
/// func product(of values: some Sequence<Double>) -> Double { values.reduce(1, *) }
///
/// db.add(function: $exclaim)
/// db.add(function: $product)
/// Reminder.select { $exclaim($0.title) }
/// ```
///
/// `as:` gives the types the arguments and the result are represented by in SQL:
/// `@DatabaseFunction(as: (([String].JSONRepresentation) -> Int).self)`.
@attached(peer, names: overloaded, prefixed(`$`))
public macro DatabaseFunction(_ name: String = "", isDeterministic: Bool = false) =
  #externalMacro(module: "HearthQueryMacros", type: "DatabaseFunctionMacro")

@attached(peer, names: overloaded, prefixed(`$`))
public macro DatabaseFunction<each T: QueryRepresentable, R>(
  _ name: String = "", as representableFunctionType: ((repeat each T) -> R).Type,
  isDeterministic: Bool = false
) = #externalMacro(module: "HearthQueryMacros", type: "DatabaseFunctionMacro")

@attached(peer, names: overloaded, prefixed(`$`))
public macro DatabaseFunction<each T: QueryRepresentable, R>(
  _ name: String = "", as representableFunctionType: ((any Sequence<(repeat each T)>) -> R).Type,
  isDeterministic: Bool = false
) = #externalMacro(module: "HearthQueryMacros", type: "DatabaseFunctionMacro")

@attached(peer, names: overloaded, prefixed(`$`))
public macro DatabaseFunction<R: QueryBindable>(
  _ name: String = "", as representableType: R.Type, isDeterministic: Bool = false
) = #externalMacro(module: "HearthQueryMacros", type: "DatabaseFunctionMacro")

/// A stored property of a `@Table` that is not a column. It needs a default value.
@attached(peer)
public macro Ephemeral() = #externalMacro(module: "HearthQueryMacros", type: "EphemeralMacro")

/// SQL written as text, typed by context or by `as:`. Interpolated values are bound
/// (`\(value)` is a `?`); columns and tables splice in (`\(Reminder.columns)`,
/// `\(Reminder.self)`); raw text only with `\(raw: text)`.
///
/// ```swift
/// try #sql("CREATE TABLE items (id INTEGER PRIMARY KEY)").execute(db)
/// let isPastDue: some QueryExpression<Bool> = #sql("date(\(dueDate)) < date(\(now))")
/// ```
@freestanding(expression)
public macro sql<QueryValue>(
  _ queryFragment: QueryFragment, as queryValueType: QueryValue.Type = QueryValue.self
) -> SQLQueryExpression<QueryValue> =
  #externalMacro(module: "HearthQueryMacros", type: "SQLMacro")

/// SQL written as text where nothing says its type: an expression that only renders
/// (`group { #sql("\($0.isCompleted)") }`, an argument taking any expression).
@freestanding(expression)
public macro sql(
  _ queryFragment: QueryFragment, as queryValueType: Any.Type = Any.self
) -> SQLQueryExpression<Any> = #externalMacro(module: "HearthQueryMacros", type: "SQLMacro")

/// A Swift value as a bound parameter, typed as itself: `#bind(.completed)`.
@freestanding(expression)
public macro bind<QueryValue: QueryBindable>(_ value: QueryValue) -> BindQueryExpression<
  QueryValue
> =
  #externalMacro(module: "HearthQueryMacros", type: "BindMacro")

/// A value of a custom representation as a bound parameter, the representation named
/// (`#bind(color, as: Color.HexRepresentation.self)`) or taken from the context
/// (`$0.tags = #bind(["a"])` for a JSON column).
@freestanding(expression)
public macro bind<QueryValue: QueryBindable>(
  _ value: QueryValue.QueryOutput, as representation: QueryValue.Type = QueryValue.self
) -> BindQueryExpression<QueryValue> =
  #externalMacro(module: "HearthQueryMacros", type: "BindRepresentationMacro")
