import Foundation
import Testing

@testable import HearthWire

@Suite struct RequestIDTests {
  @Test func anIDIsAVersion4UUIDInLowercase() throws {
    for _ in 0..<1_000 {
      let id = RequestID.random()
      let uuid = try #require(UUID(uuidString: id), "\(id) is not a UUID")
      #expect(uuid.uuidString.lowercased() == id)
      // xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx, y one of 8, 9, a, b.
      let characters = Array(id)
      #expect(characters[14] == "4")
      #expect("89ab".contains(characters[19]))
    }
  }

  @Test func idsDoNotRepeat() {
    let ids = (0..<10_000).map { _ in RequestID.random() }
    #expect(Set(ids).count == ids.count)
  }

  @Test func theTextFollowsTheBytes() {
    let bytes: [UInt8] = [
      0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0xff, 0x77, 0xff, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee,
      0xff,
    ]
    let text = bytes.withUnsafeBytes { RequestID.text(of: $0) }
    // The version nibble becomes 4 and the variant's top bits 10; the rest is the bytes.
    #expect(text == "00112233-4455-4f77-bf99-aabbccddeeff")
  }
}
