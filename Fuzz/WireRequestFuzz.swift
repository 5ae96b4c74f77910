// The libFuzzer target over the hub's front door: `WireRequest.parse`, the decoder and
// checks every request frame goes through before the hub touches its database.
// `scripts/fuzz` builds it (-sanitize=fuzzer,address) and runs it over Fuzz/corpus; a test
// (WireRequestCorpusTests) replays the corpus in every test run.
//
// Beyond "does not crash", every input must keep `WireRequest.brokenProperty`'s properties.
import Foundation
import HearthWire

let limits = WireRequest.Limits(maximumMessageSize: 1 << 16, maximumStatementsPerMessage: 64)

@_cdecl("LLVMFuzzerTestOneInput")
public func wireRequestFuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  if let broken = WireRequest.brokenProperty(of: Data(bytes: bytes, count: count), limits: limits) {
    fatalError(broken)
  }
  return 0
}
