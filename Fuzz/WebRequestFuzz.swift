// The libFuzzer target over hearth-web's own request parsing (HearthHTTP: the route, the
// Host and Origin gate, cookies, forms, keyset tokens); libmicrohttpd parses the HTTP
// itself. `scripts/fuzz` builds it beside the hub's target and runs it over
// Fuzz/corpus/web-request; a test (WebRequestCorpusTests) replays the corpus in every run.
import Foundation
import HearthHTTP

@_cdecl("LLVMFuzzerTestOneInput")
public func webRequestFuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  if let broken = RequestProperties.broken(Data(bytes: bytes, count: count)) {
    fatalError(broken)
  }
  return 0
}
