import Foundation
import HearthData
import HearthPlugin

/// The meeting timer: one speaker at a time, each with an equal share of the meeting,
/// drawn in the terminal every tick. Keys: `n` (or space) next speaker, `t` type a line of
/// transcript (Enter keeps it, Esc drops it), `q` end and save, `x` (or Ctrl-C) discard.
/// The meeting ends and is saved when the last speaker's turn is over.
struct MeetingTimer {
  enum Outcome {
    case saved(transcript: String, elapsed: Int)
    case discarded
  }

  let syncUp: SyncUp
  let speakers: [String]

  var secondsPerSpeaker: Int { max(1, syncUp.seconds / max(1, speakers.count)) }

  func run() throws -> Outcome {
    guard isatty(STDIN_FILENO) != 0, isatty(STDOUT_FILENO) != 0 else {
      throw CommandError.usage(
        "start needs a terminal; to save a meeting from a script use `hearth-syncups record`")
    }
    let terminal = try RawTerminal()
    defer { terminal.restore() }

    @Dependency(\.date) var now
    var speaker = 0
    var turnStart = now()
    let meetingStart = now()
    var transcript: [String] = []
    /// The bytes of the line being typed (UTF-8, decoded when kept).
    var typing: [UInt8]?
    var finished = false
    while !finished {
      let turnElapsed = Int(now().timeIntervalSince(turnStart))
      if turnElapsed >= secondsPerSpeaker {
        if speaker + 1 >= speakers.count { break }
        speaker += 1
        turnStart = now()
        continue
      }
      draw(
        speaker: speaker, turnLeft: secondsPerSpeaker - turnElapsed,
        elapsed: Int(now().timeIntervalSince(meetingStart)), transcript: transcript,
        typing: typing.map { String(decoding: $0, as: UTF8.self) })
      guard let byte = terminal.read(timeout: 0.2) else { continue }
      if var line = typing {
        switch byte {
        case 13, 10:
          let text = String(decoding: line, as: UTF8.self)
          if !text.isEmpty { transcript.append("\(speakers[speaker]): \(text)") }
          typing = nil
        case 27: typing = nil
        case 127, 8:
          // Drops the last character: its continuation bytes, then its first byte.
          while let last = line.last, last & 0xC0 == 0x80 { line.removeLast() }
          if !line.isEmpty { line.removeLast() }
          typing = line
        default:
          if byte >= 32 { line.append(byte) }  // text and UTF-8 bytes, not controls
          typing = line
        }
        continue
      }
      switch byte {
      case UInt8(ascii: "n"), UInt8(ascii: " "):
        if speaker + 1 >= speakers.count {
          finished = true
        } else {
          speaker += 1
          turnStart = now()
        }
      case UInt8(ascii: "t"): typing = []
      case UInt8(ascii: "q"): finished = true
      case UInt8(ascii: "x"), 3: return .discarded
      default: break
      }
    }
    return .saved(
      transcript: transcript.joined(separator: "\n"),
      elapsed: Int(now().timeIntervalSince(meetingStart)))
  }

  private func draw(
    speaker: Int, turnLeft: Int, elapsed: Int, transcript: [String], typing: String?
  ) {
    func clock(_ seconds: Int) -> String { String(format: "%d:%02d", seconds / 60, seconds % 60) }
    var lines = [
      "\(syncUp.title) — \(clock(elapsed)) of \(clock(syncUp.seconds))",
      "",
      "Speaking: \(speakers[speaker])  (\(clock(turnLeft)) left, speaker \(speaker + 1) of \(speakers.count))",
    ]
    if speaker + 1 < speakers.count { lines.append("Next: \(speakers[speaker + 1])") }
    lines.append("")
    lines += transcript.suffix(8)
    lines.append(typing.map { "> \($0)_" } ?? "")
    lines.append("n next speaker · t type a note · q end and save · x discard")
    let screen = "\u{1B}[H\u{1B}[2J" + lines.joined(separator: "\r\n") + "\r\n"
    FileHandle.standardOutput.write(Data(screen.utf8))
  }
}

/// The terminal in raw mode (no echo, no line buffering, keys as bytes) until `restore()`.
final class RawTerminal {
  private var original = termios()

  init() throws {
    guard tcgetattr(STDIN_FILENO, &original) == 0 else {
      throw CommandError("cannot read the terminal's settings")
    }
    var raw = original
    raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
    raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
    guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else {
      throw CommandError("cannot put the terminal in raw mode")
    }
  }

  /// One byte typed within `timeout` seconds, or nil.
  func read(timeout: Double) -> UInt8? {
    var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
    guard poll(&descriptor, 1, Int32(timeout * 1000)) > 0 else { return nil }
    var byte: UInt8 = 0
    return Foundation.read(STDIN_FILENO, &byte, 1) == 1 ? byte : nil
  }

  func restore() {
    var settings = original
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings)
    FileHandle.standardOutput.write(Data("\r\n".utf8))
  }
}
