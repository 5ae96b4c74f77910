import Foundation

/// The text form of dates: UTC `yyyy-MM-dd HH:mm:ss.SSS`, written and parsed by hand
/// (no `DateFormatter`: it is slow and locale-sensitive).
enum DatabaseDateFormat {
  static func format(_ date: Date) -> String {
    // From the reference date, which is what a `Date` holds: the millisecond nearest to it.
    let totalMilliseconds =
      Int64((date.timeIntervalSinceReferenceDate * 1000).rounded()) + referenceDateMilliseconds
    let (seconds, milliseconds) = floorDivide(totalMilliseconds, 1000)
    var time = time_t(seconds)
    var parts = tm()
    gmtime_r(&time, &parts)
    var text = ""
    text.reserveCapacity(23)
    append(Int(parts.tm_year) + 1900, width: 4, to: &text)
    text.append("-")
    append(Int(parts.tm_mon) + 1, width: 2, to: &text)
    text.append("-")
    append(Int(parts.tm_mday), width: 2, to: &text)
    text.append(" ")
    append(Int(parts.tm_hour), width: 2, to: &text)
    text.append(":")
    append(Int(parts.tm_min), width: 2, to: &text)
    text.append(":")
    append(Int(parts.tm_sec), width: 2, to: &text)
    text.append(".")
    append(Int(milliseconds), width: 3, to: &text)
    return text
  }

  static func parse(_ text: String) -> Date? {
    var scanner = Scanner(Array(text.utf8))
    guard let year = scanner.digits(4), scanner.skip("-"),
      let month = scanner.digits(2), scanner.skip("-"),
      let day = scanner.digits(2),
      (1...12).contains(month), (1...31).contains(day)
    else { return nil }
    var hour = 0
    var minute = 0
    var second = 0
    var fraction = 0.0
    var offsetSeconds = 0
    if !scanner.isAtEnd {
      guard scanner.skip(" ") || scanner.skip("T"),
        let h = scanner.digits(2), scanner.skip(":"), let m = scanner.digits(2),
        h < 24, m < 60
      else { return nil }
      hour = h
      minute = m
      if scanner.skip(":") {
        guard let s = scanner.digits(2), s < 60 else { return nil }
        second = s
        if scanner.skip(".") {
          var scale = 0.1
          var sawDigit = false
          while let digit = scanner.digit() {
            fraction += Double(digit) * scale
            scale /= 10
            sawDigit = true
          }
          guard sawDigit else { return nil }
        }
      }
      if scanner.skip("Z") {
      } else if let sign = scanner.sign() {
        guard let oh = scanner.digits(2), scanner.skip(":"), let om = scanner.digits(2) else {
          return nil
        }
        offsetSeconds = sign * (oh * 3600 + om * 60)
      }
      guard scanner.isAtEnd else { return nil }
    }
    var parts = tm()
    parts.tm_year = Int32(year - 1900)
    parts.tm_mon = Int32(month - 1)
    parts.tm_mday = Int32(day)
    parts.tm_hour = Int32(hour)
    parts.tm_min = Int32(minute)
    parts.tm_sec = Int32(second)
    let seconds = timegm(&parts)
    // timegm normalises 31 February into March: refuse dates that do not exist.
    guard parts.tm_mday == Int32(day), parts.tm_mon == Int32(month - 1) else { return nil }
    let milliseconds =
      (Int64(seconds) - Int64(offsetSeconds)) * 1000 + Int64((fraction * 1000).rounded())
    // Counted from the reference date, as a `Date` holds it: a date written and read back is
    // the same `Date` (from 1970, the sum would round differently).
    return Date(
      timeIntervalSinceReferenceDate: TimeInterval(milliseconds - referenceDateMilliseconds) / 1000)
  }

  /// 2001-01-01 00:00:00 UTC, in milliseconds since 1970.
  private static let referenceDateMilliseconds: Int64 = 978_307_200_000

  private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
    let quotient = a / b
    let remainder = a % b
    return remainder < 0 ? (quotient - 1, remainder + b) : (quotient, remainder)
  }

  private static func append(_ value: Int, width: Int, to text: inout String) {
    let digits = String(value)
    if digits.count < width { text.append(String(repeating: "0", count: width - digits.count)) }
    text.append(digits)
  }

  private struct Scanner {
    let bytes: [UInt8]
    var position = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { position == bytes.count }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
      guard position < bytes.count, bytes[position] == UInt8(character.value) else { return false }
      position += 1
      return true
    }

    mutating func digit() -> Int? {
      guard position < bytes.count, (48...57).contains(bytes[position]) else { return nil }
      defer { position += 1 }
      return Int(bytes[position] - 48)
    }

    mutating func digits(_ count: Int) -> Int? {
      var value = 0
      for _ in 0..<count {
        guard let digit = digit() else { return nil }
        value = value * 10 + digit
      }
      return value
    }

    mutating func sign() -> Int? {
      if skip("+") { return 1 }
      if skip("-") { return -1 }
      return nil
    }
  }
}
