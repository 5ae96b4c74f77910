import Foundation
import HearthSQLite

/// One table's changes in JSON, as Hearth's change feed records and carries them:
///
/// ```json
/// {"inserted": [4], "updated": [1, 2], "deleted": [], "updatedColumns": ["notes", "title"],
///  "rowColumns": {"1": ["title"], "2": ["title", "notes"]}}
/// ```
///
/// `unknownRows: true` appears only when the rows are not listed (the lists are then empty);
/// `updatedColumns` and `rowColumns` (each updated row's changed columns, its rowid as the
/// key) only when the columns were recorded and an update changed some.
extension TableChanges: Codable {
  private enum CodingKeys: String, CodingKey {
    case inserted, updated, deleted, unknownRows, updatedColumns, rowColumns, keys
  }

  /// A JSON object's keys are strings: rowids are written in decimal.
  private static func byRowID<Value>(
    _ object: [String: Value]?, _ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys
  ) throws -> [Int64: Value]? {
    try object.map { object in
      Dictionary(
        uniqueKeysWithValues: try object.map { text, value in
          guard let rowID = Int64(text) else {
            throw DecodingError.dataCorruptedError(
              forKey: key, in: container, debugDescription: "\(text) is not a rowid")
          }
          return (rowID, value)
        })
    }
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      insertedRowIDs: try container.decode([Int64].self, forKey: .inserted),
      updatedRowIDs: try container.decode([Int64].self, forKey: .updated),
      deletedRowIDs: try container.decode([Int64].self, forKey: .deleted),
      rowIDsAreKnown: try container.decodeIfPresent(Bool.self, forKey: .unknownRows) != true,
      updatedColumns: try container.decodeIfPresent([String].self, forKey: .updatedColumns),
      updatedColumnsByRow: try Self.byRowID(
        container.decodeIfPresent([String: [String]].self, forKey: .rowColumns), container,
        .rowColumns),
      primaryKeys: try Self.byRowID(
        container.decodeIfPresent([String: [WireValue]].self, forKey: .keys), container, .keys
      )?.mapValues { $0.map(\.value) })
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(insertedRowIDs, forKey: .inserted)
    try container.encode(updatedRowIDs, forKey: .updated)
    try container.encode(deletedRowIDs, forKey: .deleted)
    if !rowIDsAreKnown { try container.encode(true, forKey: .unknownRows) }
    if let updatedColumns, !updatedColumns.isEmpty {
      try container.encode(updatedColumns, forKey: .updatedColumns)
    }
    if let updatedColumnsByRow, !updatedColumnsByRow.isEmpty {
      try container.encode(
        Dictionary(uniqueKeysWithValues: updatedColumnsByRow.map { (String($0.key), $0.value) }),
        forKey: .rowColumns)
    }
    if let primaryKeys, !primaryKeys.isEmpty {
      try container.encode(
        Dictionary(
          uniqueKeysWithValues: primaryKeys.map { (String($0.key), $0.value.map(WireValue.init)) }),
        forKey: .keys)
    }
  }
}

extension TableChanges {
  /// The changes as `encode(to:)` writes them through `JSONEncoder` with sorted keys, byte
  /// for byte.
  func write(to json: inout JSONWriter) throws {
    try json.object { json in
      json.key("deleted")
      json.array(deletedRowIDs) { json, rowID in json.integer(rowID) }
      json.key("inserted")
      json.array(insertedRowIDs) { json, rowID in json.integer(rowID) }
      if let primaryKeys, !primaryKeys.isEmpty {
        json.key("keys")
        try json.sortedObject(Self.byDecimalRowID(primaryKeys)) { json, values in
          try json.array(values) { json, value in try json.value(value) }
        }
      }
      if let updatedColumnsByRow, !updatedColumnsByRow.isEmpty {
        json.key("rowColumns")
        json.sortedObject(Self.byDecimalRowID(updatedColumnsByRow)) { json, columns in
          json.array(columns) { json, column in json.string(column) }
        }
      }
      if !rowIDsAreKnown {
        json.key("unknownRows")
        json.bool(true)
      }
      json.key("updated")
      json.array(updatedRowIDs) { json, rowID in json.integer(rowID) }
      if let updatedColumns, !updatedColumns.isEmpty {
        json.key("updatedColumns")
        json.array(updatedColumns) { json, column in json.string(column) }
      }
    }
  }

  /// An object keyed by rowid, its keys in decimal (a JSON object's keys are strings).
  private static func byDecimalRowID<Value>(_ object: [Int64: Value]) -> [String: Value] {
    Dictionary(uniqueKeysWithValues: object.map { (String($0.key), $0.value) })
  }
}
