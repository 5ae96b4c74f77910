import Foundation
import HearthCommandLine
import Testing

@Suite(.serialized) struct TerminalTextTests {
  @Test func controlCharactersShowAsEscapesAndNewlinesAsAMarkOnOneLine() {
    let title = "Pay \u{1B}[31mrent\u{1B}[0m\nnow\tplease\u{7}\u{9B}"
    #expect(title.shownOnOneLine == "Pay \\e[31mrent\\e[0m⏎now\\tplease\\u{7}\\u{9b}")
    #expect(title.shownAsText == "Pay \\e[31mrent\\e[0m\nnow\\tplease\\u{7}\\u{9b}")
    // Text without controls is returned as it is, accents and emoji included.
    #expect("Café ☕️ über".shownOnOneLine == "Café ☕️ über")
  }

  @Test func aToolsTextOutputNeverCarriesAControlCharacter() throws {
    let tool = Tool(
      name: "t", summary: "test",
      commands: [
        Command("say", summary: "says") { _ in .message("red \u{1B}[31m\nnext line") }
      ])
    let output = try captureStandardOutput { _ = try tool.run(["say"]) }
    #expect(output == "red \\e[31m\nnext line\n")
  }
}

/// What `body` prints on standard output (through stdio), read back from a pipe. Serialized
/// by the caller's suite: it swaps the process's descriptor 1 for the duration.
func captureStandardOutput(_ body: () throws -> Void) throws -> String {
  var ends: [Int32] = [0, 0]
  guard pipe(&ends) == 0 else { throw CaptureError() }
  fflush(nil)
  let saved = dup(STDOUT_FILENO)
  dup2(ends[1], STDOUT_FILENO)
  close(ends[1])
  defer {
    fflush(nil)
    dup2(saved, STDOUT_FILENO)
    close(saved)
  }
  try body()
  fflush(nil)
  dup2(saved, STDOUT_FILENO)
  var output: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 4096)
  while true {
    let count = read(ends[0], &buffer, buffer.count)
    if count <= 0 { break }
    output += buffer[..<count]
  }
  close(ends[0])
  return String(decoding: output, as: UTF8.self)
}

struct CaptureError: Error {}
