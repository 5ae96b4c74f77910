import Foundation
import HearthNaming

// SQLite's JSON functions on a column stored as JSON (`@Column(as: Author.JSONRepresentation.self)`),
// with paths written as key paths, as the reference writes them:
//
// ```swift
// Profile.where { $0.author.jsonExtract(\.name).eq("Blob") }
// Profile.select { $0.author.jsonExtract(\.links[0].homepage) }
// Profile.update { $0.author = $0.author.jsonSet(\.name, "Blob Jr") }
// Reminder.where { $0.tags.jsonEach().where { $0.value.eq("urgent") }.exists() }
// ```

/// A path into a JSON document of `Value`s, built by a key path: `\.links[0].homepage` is
/// `$."links"[0]."homepage"`. Members are the stored properties of the `Codable` type (named
/// as Swift names them, which is how `Codable` encodes them unless `CodingKeys` say else).
@dynamicMemberLookup
public struct JSONPath<Value>: Sendable {
  let components: [String]
  /// The key of an enum's case, where the path ends at one (`\.note` of an enum whose JSON
  /// the macros wrote: one key, its case's).
  let caseKey: String?

  init(components: [String] = [], caseKey: String? = nil) {
    self.components = components
    self.caseKey = caseKey
  }

  /// `$` and the components: the path SQLite reads.
  var path: String { "$" + components.joined() }

  public subscript<Member>(dynamicMember keyPath: KeyPath<Value, Member>) -> JSONPath<Member> {
    appending(member: keyPath)
  }

  /// This path on to a stored property (`."name"`), typed `Member`.
  fileprivate func appending<Member>(member keyPath: AnyKeyPath) -> JSONPath<Member> {
    let name = Self.propertyName(keyPath)
    let isCase = type(of: keyPath).rootType is any _CaseGroup.Type
    return JSONPath<Member>(
      components: components + [".\"\(name)\""], caseKey: isCase ? name : nil)
  }

  /// This path on to an array's element (`[0]`), from the end where negative (`[#-1]`),
  /// typed `Element`.
  fileprivate func appending<Element>(index: Int) -> JSONPath<Element> {
    JSONPath<Element>(components: components + [index < 0 ? "[#\(index)]" : "[\(index)]"])
  }

  /// The key of a property in the JSON of `Value`: the one its `Codable` conformance writes
  /// when the macros wrote it (the package trait `ColumnCoding`: a column's name, an enum
  /// case's column), else the stored property's name (`\Author.name` → `name`).
  private static func propertyName(_ keyPath: AnyKeyPath) -> String {
    if let keyed = type(of: keyPath).rootType as? any _JSONKeyed.Type,
      let key = keyed._jsonKey(keyPath)
    {
      return key
    }
    let description = keyPath.debugDescription
    let name = description.split(separator: ".").last.map(String.init) ?? description
    precondition(
      !description.contains("<computed"),
      "\(description) is not a stored property, so it has no JSON key")
    return name
  }
}

extension JSONPath where Value: _OptionalProtocol {
  /// A member of a document that may be absent (`\.author.name` where `author` is
  /// optional): absent, read as NULL, where the document is.
  public subscript<Member>(dynamicMember keyPath: KeyPath<Value.Wrapped, Member>)
    -> JSONPath<Member?>
  {
    appending(member: keyPath)
  }

  /// An optional member of a document that may be absent: optional once.
  public subscript<Member: _OptionalProtocol>(
    dynamicMember keyPath: KeyPath<Value.Wrapped, Member>
  ) -> JSONPath<Member> {
    appending(member: keyPath)
  }
}

extension JSONPath
where
  Value: _OptionalProtocol, Value.Wrapped: Collection,
  Value.Wrapped.Index == Int
{
  /// An element of an array that may be absent: `\.author.links[0]`.
  public subscript(index: Int) -> JSONPath<Value.Wrapped.Element?> {
    appending(index: index)
  }
}

extension JSONPath where Value: Collection, Value.Index == Int {
  /// An element of an array: `\.links[0]`; from its end where negative (`\.links[-1]`, the
  /// last, is `$."links"[#-1]`).
  public subscript(index: Int) -> JSONPath<Value.Element> {
    appending(index: index)
  }
}

/// A JSON document's value of a given Swift type: a column value bound as itself (text,
/// numbers), anything else `Codable` as JSON.
public protocol _JSONDocument: QueryBindable {
  associatedtype _Document: Codable
}

extension _CodableJSONRepresentation: _JSONDocument {
  public typealias _Document = QueryOutput
}

extension Optional: _JSONDocument where Wrapped: _JSONDocument {
  public typealias _Document = Wrapped._Document
}

extension QueryExpression where QueryValue: _JSONDocument {
  /// `json_extract(x, path)`: a value inside the document, of a type a column can hold,
  /// typed as the document's property is (a path the document lacks reads as NULL).
  public func jsonExtract<Member: QueryBindable>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>
  ) -> SQLQueryExpression<Member> {
    SQLQueryExpression(extracted(path, Member.self))
  }

  /// `json_extract(x, path)` of an object or array inside the document, read as JSON.
  @_disfavoredOverload
  public func jsonExtract<Member: Codable>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>
  ) -> SQLQueryExpression<_CodableJSONRepresentation<Member>> {
    SQLQueryExpression("json_extract(" + queryFragment + ", " + pathFragment(path) + ")")
  }

  /// `json_array_length(x, path)`: the length of an array inside the document.
  public func jsonArrayLength<Member: Collection>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>
  ) -> SQLQueryExpression<Int> {
    SQLQueryExpression("json_array_length(" + queryFragment + ", " + pathFragment(path) + ")")
  }

  /// `json_array_length(x, path)` of an array that may be absent: NULL where it is.
  public func jsonArrayLength<Member: _OptionalProtocol>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>
  ) -> SQLQueryExpression<Int?> where Member.Wrapped: Collection {
    SQLQueryExpression("json_array_length(" + queryFragment + ", " + pathFragment(path) + ")")
  }

  /// `json_set(x, path, value)`: the document with the value at `path` set (added or
  /// replaced).
  public func jsonSet<Member: Codable>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>, _ value: Member
  ) -> SQLQueryExpression<QueryValue> {
    edit("json_set", path, value)
  }

  /// `json_insert(x, path, value)`: the document with the value added where `path` has none.
  public func jsonInsert<Member: Codable>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>, _ value: Member
  ) -> SQLQueryExpression<QueryValue> {
    edit("json_insert", path, value)
  }

  /// `json_replace(x, path, value)`: the document with the value at `path` replaced, where
  /// there is one.
  public func jsonReplace<Member: Codable>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>, _ value: Member
  ) -> SQLQueryExpression<QueryValue> {
    edit("json_replace", path, value)
  }

  /// `json_set(x, path, value)` of a value the statement computes: an expression of the
  /// member's type (`$0.author.jsonExtract(\.pastLinks)`, a subquery).
  @_disfavoredOverload
  public func jsonSet<Member: Codable>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>,
    _ value: some QueryExpression<Member>
  ) -> SQLQueryExpression<QueryValue> {
    edit("json_set", path, jsonValue(value.queryFragment, of: Member.self))
  }

  /// `json_set(x, path, value)` of a document the statement computes (`jsonExtract` of an
  /// object).
  @_disfavoredOverload
  public func jsonSet<Member: Codable>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>,
    _ value: some QueryExpression<_CodableJSONRepresentation<Member>>
  ) -> SQLQueryExpression<QueryValue> {
    edit("json_set", path, "json(" + value.queryFragment + ")")
  }

  /// `json_insert(x, path, value)` of a value the statement computes.
  @_disfavoredOverload
  public func jsonInsert<Member: Codable>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>,
    _ value: some QueryExpression<Member>
  ) -> SQLQueryExpression<QueryValue> {
    edit("json_insert", path, jsonValue(value.queryFragment, of: Member.self))
  }

  /// `json_replace(x, path, value)` of a value the statement computes.
  @_disfavoredOverload
  public func jsonReplace<Member: Codable>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>,
    _ value: some QueryExpression<Member>
  ) -> SQLQueryExpression<QueryValue> {
    edit("json_replace", path, jsonValue(value.queryFragment, of: Member.self))
  }

  /// `json_remove(x, path)`: the document without the value at `path`.
  public func jsonRemove<Member>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>
  ) -> SQLQueryExpression<QueryValue> {
    SQLQueryExpression("json_remove(" + queryFragment + ", " + pathFragment(path) + ")")
  }

  /// `json_patch(x, patch)`: the document merged with `patch` (RFC 7396: a key set to null
  /// is removed).
  public func jsonPatch(_ patch: some QueryExpression<QueryValue>) -> SQLQueryExpression<
    QueryValue
  > {
    SQLQueryExpression("json_patch(" + queryFragment + ", " + patch.queryFragment + ")")
  }

  /// `json_extract(x, path)`; a UUID compared without case, as JSON may hold it in either
  /// (Foundation's encoder writes uppercase, a UUID column holds lowercase).
  fileprivate func extracted<Member>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>, _ type: Any.Type
  ) -> QueryFragment {
    let value = "json_extract(" + queryFragment + ", " + pathFragment(path) + ")"
    return type == UUID.self || type == UUID?.self ? "(" + value + " COLLATE NOCASE)" : value
  }

  fileprivate func pathFragment<Member>(
    _ keyPath: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>
  ) -> QueryFragment {
    QueryFragment(binding: JSONPath<QueryValue._Document>()[keyPath: keyPath].path.queryBinding)
  }

  private func edit<Member: Codable>(
    _ function: String, _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>,
    _ value: Member
  ) -> SQLQueryExpression<QueryValue> {
    let json = _CodableJSONRepresentation(queryOutput: value).queryFragment
    return edit(function, path, "json(" + json + ")")
  }

  private func edit<Member>(
    _ function: String, _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>,
    _ value: QueryFragment
  ) -> SQLQueryExpression<QueryValue> {
    let target = JSONPath<QueryValue._Document>()[keyPath: path]
    if let caseKey = target.caseKey, function != "json_insert" {
      // An enum's JSON holds one key, its case's: setting a case replaces the object.
      // Replacing, it does so only where the document holds that case.
      let parent = "$" + target.components.dropLast().joined()
      let set: QueryFragment =
        "json_set(" + queryFragment + ", " + QueryFragment(binding: parent.queryBinding)
        + ", json_object(" + QueryFragment(binding: caseKey.queryBinding) + ", " + value + "))"
      guard function == "json_replace" else { return SQLQueryExpression(set) }
      return SQLQueryExpression(
        "CASE WHEN json_type(" + queryFragment + ", " + pathFragment(path) + ") IS NULL THEN "
          + queryFragment + " ELSE " + set + " END")
    }
    return SQLQueryExpression(
      QueryFragment(raw: function + "(") + queryFragment + ", " + pathFragment(path) + ", "
        + value + ")")
  }

  /// A computed value as JSON: a column's value as JSON holds it (`true` for a `Bool`), and
  /// any other `Codable` value, which the statement computes as JSON text, parsed.
  private func jsonValue<Member>(_ value: QueryFragment, of type: Member.Type) -> QueryFragment {
    if let bindable = type as? any QueryBindable.Type { return bindable._jsonEncoded(value) }
    return "json(" + value + ")"
  }
}

extension QueryExpression where QueryValue: _JSONDocument & _OptionalProtocol {
  /// `json_extract(x, path)` of a document that may be NULL (an optional column, the
  /// optional side of an outer join): the value, nil where the document is.
  public func jsonExtract<Member: QueryBindable>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>
  ) -> SQLQueryExpression<Member?> {
    SQLQueryExpression(extracted(path, Member.self))
  }
}

extension QueryExpression where QueryValue: _JSONDocument {
  /// `json_insert(x, '$[#]', value)`: the array document with `value` added at its end.
  public func jsonAppend<Element: QueryBindable>(_ value: some QueryExpression<Element>)
    -> SQLQueryExpression<QueryValue> where QueryValue._Document: Collection
  {
    appending(path: "$[#]", Element._jsonEncoded(value.queryFragment))
  }

  /// `json_insert(x, '$.path[#]', value)`: the document with `value` added at the end of the
  /// array at `path`.
  public func jsonAppend<Member: Collection, Element: QueryBindable>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>,
    _ value: some QueryExpression<Element>
  ) -> SQLQueryExpression<QueryValue> {
    appending(
      path: JSONPath<QueryValue._Document>()[keyPath: path].path + "[#]",
      Element._jsonEncoded(value.queryFragment))
  }

  /// `json_insert(x, '$.path[#]', json(value))`: an object added at the end of the array at
  /// `path` (`#bind(Link(…))`).
  public func jsonAppend<Member: Collection>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>,
    _ value: some QueryExpression<_CodableJSONRepresentation<Member.Element>>
  ) -> SQLQueryExpression<QueryValue> where Member.Element: Codable {
    appending(
      path: JSONPath<QueryValue._Document>()[keyPath: path].path + "[#]",
      "json(" + value.queryFragment + ")")
  }

  /// `jsonAppend` at a path, as the reference's JSONB form.
  public func jsonbAppend<Member: Collection, Element: QueryBindable>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>,
    _ value: some QueryExpression<Element>
  ) -> SQLQueryExpression<QueryValue> {
    jsonAppend(path, value)
  }

  /// `jsonAppend` of an object at a path, as the reference's JSONB form.
  public func jsonbAppend<Member: Collection>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>,
    _ value: some QueryExpression<_CodableJSONRepresentation<Member.Element>>
  ) -> SQLQueryExpression<QueryValue> where Member.Element: Codable {
    jsonAppend(path, value)
  }

  /// `jsonAppend`, as the reference's JSONB form (JSON text here: Debian 12's SQLite has no
  /// JSONB).
  public func jsonbAppend<Element: QueryBindable>(_ value: some QueryExpression<Element>)
    -> SQLQueryExpression<QueryValue> where QueryValue._Document: Collection
  {
    jsonAppend(value)
  }

  private func appending(path: String, _ value: QueryFragment) -> SQLQueryExpression<QueryValue> {
    SQLQueryExpression(
      "json_insert(" + queryFragment + ", " + QueryFragment(binding: path.queryBinding) + ", "
        + value + ")")
  }
}

// MARK: - json_each

/// A row of SQLite's `json_each`: one element of a JSON array (its index as `key`) or object
/// (its name as `key`). `value` is the element, typed as the collection's elements are.
public struct JSONEach<Key: QueryBindable, Value: QueryBindable>: Table, Sendable
where Key.QueryOutput: Sendable, Value.QueryOutput: Sendable {
  public let key: Key.QueryOutput
  public let value: Value.QueryOutput

  public static var tableName: String { "json_each" }
  public static var columns: TableColumns { TableColumns() }
  public static var _columnWidth: Int { 2 }

  public init(decoder: inout QueryRowDecoder) throws {
    key = try decoder.decode(Key.self)
    value = try decoder.decode(Value.self)
  }

  public struct TableColumns: TableDefinition {
    public typealias QueryValue = JSONEach
    public let key = TableColumn<JSONEach, Key>("key", keyPath: \JSONEach.key)
    public let value = TableColumn<JSONEach, Value>("value", keyPath: \JSONEach.value)

    public static var allColumns: [any TableColumnExpression<JSONEach>] {
      [JSONEach.columns.key, JSONEach.columns.value]
    }
  }
}

extension QueryExpression where QueryValue: _JSONDocument {
  /// `json_each(x)` of a JSON array of values: a select of its elements, to filter
  /// (`.where { $0.value.eq("urgent") }.exists()`) or aggregate (`.select { $0.value.sum() }`).
  public func jsonEach<Element: QueryBindable>() -> Select<
    JSONEach<Int, Element>, JSONEach<Int, Element>, ()
  > where QueryValue._Document == [Element] {
    eachElement(of: nil)
  }

  /// `json_each(x)` of a JSON array of objects: each element read as JSON.
  @_disfavoredOverload
  public func jsonEach<Element: Codable>() -> Select<
    JSONEach<Int, _CodableJSONRepresentation<Element>>,
    JSONEach<Int, _CodableJSONRepresentation<Element>>, ()
  > where QueryValue._Document == [Element] {
    eachElement(of: nil)
  }

  /// `json_each(x, path)` of an array of values inside the document.
  public func jsonEach<Element: QueryBindable>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<[Element]>>
  ) -> Select<JSONEach<Int, Element>, JSONEach<Int, Element>, ()> {
    eachElement(of: JSONPath<QueryValue._Document>()[keyPath: path].path)
  }

  /// `json_each(x, path)` of an array of objects inside the document, each read as JSON.
  @_disfavoredOverload
  public func jsonEach<Element: Codable>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<[Element]>>
  ) -> Select<
    JSONEach<Int, _CodableJSONRepresentation<Element>>,
    JSONEach<Int, _CodableJSONRepresentation<Element>>, ()
  > {
    eachElement(of: JSONPath<QueryValue._Document>()[keyPath: path].path)
  }

  /// `json_each(x)` of a JSON object of values: each member, its name as `key`.
  public func jsonEach<Value: QueryBindable>() -> Select<
    JSONEach<String, Value>, JSONEach<String, Value>, ()
  > where QueryValue._Document == [String: Value] {
    eachElement(of: nil)
  }

  /// `json_each(x)` of a JSON object of objects: each member read as JSON, its name as `key`.
  @_disfavoredOverload
  public func jsonEach<Value: Codable>() -> Select<
    JSONEach<String, _CodableJSONRepresentation<Value>>,
    JSONEach<String, _CodableJSONRepresentation<Value>>, ()
  > where QueryValue._Document == [String: Value] {
    eachElement(of: nil)
  }

  /// `json_each(x, path)` of an object of values inside the document.
  public func jsonEach<Value: QueryBindable>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<[String: Value]>>
  ) -> Select<JSONEach<String, Value>, JSONEach<String, Value>, ()> {
    eachElement(of: JSONPath<QueryValue._Document>()[keyPath: path].path)
  }

  /// `json_each(x, path)` of an object of objects inside the document, each read as JSON.
  @_disfavoredOverload
  public func jsonEach<Value: Codable>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<[String: Value]>>
  ) -> Select<
    JSONEach<String, _CodableJSONRepresentation<Value>>,
    JSONEach<String, _CodableJSONRepresentation<Value>>, ()
  > {
    eachElement(of: JSONPath<QueryValue._Document>()[keyPath: path].path)
  }

  private func eachElement<Key, Value>(of path: String?) -> Select<
    JSONEach<Key, Value>, JSONEach<Key, Value>, ()
  > {
    var clauses = SelectClauses()
    var call: QueryFragment = "json_each(" + queryFragment
    if let path { call += ", " + QueryFragment(binding: path.queryBinding) }
    clauses.from = call + ")"
    return Select(clauses: clauses) { try JSONEach<Key, Value>(decoder: &$0) }
  }
}
