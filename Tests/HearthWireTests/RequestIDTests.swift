import Foundation
import Testing

@testable import HearthWire

@Suite struct RequestIDTests {
  @Test func anIDIsAVersion7UUIDInLowercaseThatBeginsWithItsTime() throws {
    for _ in 0..<1_000 {
      let before = UInt64(Date().timeIntervalSince1970 * 1_000)
      let id = RequestID.make()
      let after = UInt64(Date().timeIntervalSince1970 * 1_000) + 1
      let uuid = try #require(UUID(uuidString: id), "\(id) is not a UUID")
      #expect(uuid.uuidString.lowercased() == id)
      // xxxxxxxx-xxxx-7xxx-yxxx-xxxxxxxxxxxx, y one of 8, 9, a, b.
      let characters = Array(id)
      #expect(characters[14] == "7")
      #expect("89ab".contains(characters[19]))
      // The first 48 bits are the milliseconds since 1970.
      let time = try #require(
        UInt64(id.prefix(13).replacingOccurrences(of: "-", with: ""), radix: 16))
      #expect(time >= before && time <= after)
    }
  }

  @Test func idsDoNotRepeat() {
    let ids = (0..<10_000).map { _ in RequestID.make() }
    #expect(Set(ids).count == ids.count)
  }

  @Test func anIDMadeAMillisecondLaterSortsAfter() {
    let first = RequestID.make()
    usleep(2_000)
    let second = RequestID.make()
    #expect(first < second)
    // Within a millisecond the order is random; across milliseconds it is the order they
    // were made in: the time parts of ids made one after another never go back.
    let ids = (0..<500).map { _ in RequestID.make() }
    #expect(ids.map { $0.prefix(13) } == ids.map { $0.prefix(13) }.sorted())
  }

  @Test func theTextFollowsTheBytes() {
    let bytes: [UInt8] = [
      0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0xff, 0x77, 0xff, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee,
      0xff,
    ]
    let text = bytes.withUnsafeBytes { RequestID.text(of: $0) }
    // The version nibble becomes 7 and the variant's top bits 10; the rest is the bytes.
    #expect(text == "00112233-4455-7f77-bf99-aabbccddeeff")
  }
}
