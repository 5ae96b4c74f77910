import Foundation

// The reference's JSONB forms. SQLite keeps JSONB (its binary JSON) from 3.45; Debian 12's
// SQLite is 3.40, which has no `jsonb` functions. Here a `JSONBRepresentation` column holds
// JSON text, and each `jsonb…` function is its `json…` counterpart: the values read and
// written, and the rows queries return, are the same; the bytes on disk are text.

extension Decodable where Self: Encodable {
  /// The reference's JSONB representation; JSON text here (see above).
  public typealias JSONBRepresentation = _CodableJSONRepresentation<Self>
}

extension QueryExpression where QueryValue: _JSONDocument {
  /// `jsonExtract`, as the reference's JSONB form.
  public func jsonbExtract<Member: QueryBindable>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>
  ) -> SQLQueryExpression<Member> {
    jsonExtract(path)
  }

  /// `jsonExtract` of an object or array, as the reference's JSONB form.
  @_disfavoredOverload
  public func jsonbExtract<Member: Codable>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>
  ) -> SQLQueryExpression<_CodableJSONRepresentation<Member>> {
    jsonExtract(path)
  }

  /// `jsonSet`, as the reference's JSONB form.
  public func jsonbSet<Member: Codable>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>, _ value: Member
  ) -> SQLQueryExpression<QueryValue> {
    jsonSet(path, value)
  }

  /// `jsonSet` of a value the statement computes, as the reference's JSONB form.
  @_disfavoredOverload
  public func jsonbSet<Member: Codable>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>,
    _ value: some QueryExpression<Member>
  ) -> SQLQueryExpression<QueryValue> {
    jsonSet(path, value)
  }

  /// `jsonSet` of a document the statement computes, as the reference's JSONB form.
  @_disfavoredOverload
  public func jsonbSet<Member: Codable>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>,
    _ value: some QueryExpression<_CodableJSONRepresentation<Member>>
  ) -> SQLQueryExpression<QueryValue> {
    jsonSet(path, value)
  }

  /// `jsonInsert`, as the reference's JSONB form.
  public func jsonbInsert<Member: Codable>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>, _ value: Member
  ) -> SQLQueryExpression<QueryValue> {
    jsonInsert(path, value)
  }

  /// `jsonReplace`, as the reference's JSONB form.
  public func jsonbReplace<Member: Codable>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>, _ value: Member
  ) -> SQLQueryExpression<QueryValue> {
    jsonReplace(path, value)
  }

  /// `jsonRemove`, as the reference's JSONB form.
  public func jsonbRemove<Member>(
    _ path: KeyPath<JSONPath<QueryValue._Document>, JSONPath<Member>>
  ) -> SQLQueryExpression<QueryValue> {
    jsonRemove(path)
  }

  /// `jsonEach`, as the reference's JSONB form.
  public func jsonbEach<Element: QueryBindable>() -> Select<
    JSONEach<Int, Element>, JSONEach<Int, Element>, ()
  > where QueryValue._Document == [Element] {
    jsonEach()
  }

  /// `jsonEach` of objects, as the reference's JSONB form.
  @_disfavoredOverload
  public func jsonbEach<Element: Codable>() -> Select<
    JSONEach<Int, _CodableJSONRepresentation<Element>>,
    JSONEach<Int, _CodableJSONRepresentation<Element>>, ()
  > where QueryValue._Document == [Element] {
    jsonEach()
  }
}

extension QueryExpression where QueryValue: Codable {
  /// `jsonGroupArray`, as the reference's JSONB form.
  public func jsonbGroupArray(filter condition: (any QueryExpression<Bool>)? = nil)
    -> SQLQueryExpression<[QueryValue].JSONRepresentation>
  {
    jsonGroupArray(filter: condition)
  }
}

extension TableDefinition where QueryValue: Codable {
  /// `jsonObject`, as the reference's JSONB form.
  public func jsonbObject() -> SQLQueryExpression<_CodableJSONRepresentation<QueryValue>> {
    jsonObject()
  }

  /// `jsonGroupArray` of rows, as the reference's JSONB form.
  public func jsonbGroupArray(filter condition: (any QueryExpression<Bool>)? = nil)
    -> SQLQueryExpression<[QueryValue].JSONRepresentation>
  {
    jsonGroupArray(filter: condition)
  }
}
