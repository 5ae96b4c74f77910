import Foundation

// The `Codable` bridge of GRDB's records (Records.swift): a record's top-level properties are
// its columns; a value that is a column type is stored as itself, anything else (an array, a
// nested struct) as JSON text, as GRDB stores it.

/// Collects a record's `Encodable` properties as columns (a superclass's too, into the same
/// container).
final class RecordEncoder: Encoder {
  final class Storage { var container = PersistenceContainer() }
  let storage: Storage
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(storage: Storage = Storage()) { self.storage = storage }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(Columns<Key>(storage: storage))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    preconditionFailure("a record encodes its columns by name (a keyed container)")
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    preconditionFailure("a record encodes its columns by name (a keyed container)")
  }

  /// Each property, whatever its type, through the one generic `encode`.
  struct Columns<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let storage: Storage
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { storage.container[key.stringValue] = .null }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
      storage.container[key.stringValue] = try columnValue(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
      keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
      preconditionFailure("a record's column '\(key.stringValue)' is one value")
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
      preconditionFailure("a record's column '\(key.stringValue)' is one value")
    }

    mutating func superEncoder() -> any Encoder { RecordEncoder(storage: storage) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { RecordEncoder(storage: storage) }
  }
}

/// A column's value: a column type as itself (a `UInt64` past `Int64.max` cannot be one),
/// anything else as its JSON text.
private func columnValue<T: Encodable>(_ value: T) throws -> DatabaseValue {
  if let convertible = value as? any DatabaseValueConvertible { return convertible.databaseValue }
  if let unsigned = value as? any UnsignedInteger {  // `UInt`, `UInt64`
    guard let signed = Int64(exactly: unsigned) else {
      throw EncodingError.invalidValue(
        value, .init(codingPath: [], debugDescription: "does not fit a SQLite integer"))
    }
    return signed.databaseValue
  }
  let encoder = JSONEncoder()
  encoder.outputFormatting = .sortedKeys
  return DatabaseValue(storage: .text(String(decoding: try encoder.encode(value), as: UTF8.self)))
}

/// Reads a record's `Decodable` properties from the columns of a row, by name.
struct RecordDecoder: Decoder {
  let row: Row
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(Columns<Key>(row: row))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    throw DecodingError.typeMismatch(
      [Any].self, .init(codingPath: [], debugDescription: "a row is read by column name"))
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    throw DecodingError.typeMismatch(
      Any.self, .init(codingPath: [], debugDescription: "a row is read by column name"))
  }

  struct Columns<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let row: Row
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { row.columnNames.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { row.hasColumn(key.stringValue) }

    func decodeNil(forKey key: Key) throws -> Bool {
      try value(key).isNull
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
      let stored = try value(key)
      if let convertible = T.self as? any DatabaseValueConvertible.Type {
        guard let decoded = convertible.fromDatabaseValue(stored) as? T else {
          throw DecodingError.typeMismatch(
            T.self,
            .init(
              codingPath: [key],
              debugDescription: "column \(key.stringValue) holds \(stored), not a \(T.self)"))
        }
        return decoded
      }
      if let unsigned = T.self as? any UnsignedInteger.Type {  // `UInt`, `UInt64`
        guard let decoded = Int64.fromDatabaseValue(stored).flatMap(unsigned.init(exactly:)) else {
          throw DecodingError.typeMismatch(
            T.self, .init(codingPath: [key], debugDescription: "\(stored) is no \(T.self)"))
        }
        return decoded as! T
      }
      guard case .text(let text) = stored.storage else {
        throw DecodingError.typeMismatch(
          T.self,
          .init(
            codingPath: [key],
            debugDescription: "column \(key.stringValue) holds \(stored), not JSON text"))
      }
      return try JSONDecoder().decode(T.self, from: Data(text.utf8))
    }

    private func value(_ key: Key) throws -> DatabaseValue {
      guard let index = row.columnNames.firstIndex(of: key.stringValue) else {
        throw DecodingError.keyNotFound(
          key, .init(codingPath: [], debugDescription: "no column \(key.stringValue)"))
      }
      return try row.databaseValue(atIndex: index)
    }

    func nestedContainer<NestedKey: CodingKey>(
      keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
      throw DecodingError.typeMismatch(
        [String: Any].self,
        .init(codingPath: [key], debugDescription: "a column is one value"))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
      throw DecodingError.typeMismatch(
        [Any].self, .init(codingPath: [key], debugDescription: "a column is one value"))
    }

    func superDecoder() throws -> any Decoder { RecordDecoder(row: row) }
    func superDecoder(forKey key: Key) throws -> any Decoder { RecordDecoder(row: row) }
  }
}
