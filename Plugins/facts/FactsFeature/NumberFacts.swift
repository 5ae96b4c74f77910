import Foundation

/// Facts about whole numbers, worked out here (no network): each is true of the number it is
/// about, and a number has several, so asking again gives another (the rarer kinds first).
enum NumberFacts {
  /// Every fact this module knows about `n`, in a fixed order.
  static func all(about n: Int) -> [String] {
    var facts: [String] = []
    let magnitude = n.magnitude
    if n == 0 { facts.append("0 is the additive identity: adding it changes nothing") }
    if n > 1 {
      if isPrime(n) {
        facts.append("\(n) is a prime number")
      } else {
        facts.append("\(n) = " + factors(of: n).map(String.init).joined(separator: " × "))
        let count = divisorCount(n)
        facts.append("\(n) has \(count) divisors")
      }
    }
    if n >= 0, let root = exactRoot(n, 2) { facts.append("\(n) is a perfect square: \(root)²") }
    if n >= 0, let root = exactRoot(n, 3) { facts.append("\(n) is a perfect cube: \(root)³") }
    if n >= 0, isFibonacci(n) { facts.append("\(n) is a Fibonacci number") }
    if n > 0, let k = triangularIndex(n) {
      facts.append("\(n) is the \(ordinal(k)) triangular number: 1 + … + \(k)")
    }
    if n > 1, isPerfect(n) {
      facts.append("\(n) is a perfect number: the sum of its proper divisors")
    }
    let sign = n < 0 ? "-" : ""
    facts.append(
      "\(n) is \(sign)\(String(magnitude, radix: 2)) in binary and \(sign)\(String(magnitude, radix: 16)) in hexadecimal"
    )
    let digits = String(magnitude).compactMap(\.wholeNumberValue)
    facts.append("The digits of \(n) add up to \(digits.reduce(0, +))")
    if digits.count > 1, digits == digits.reversed() { facts.append("\(n) is a palindrome") }
    if (1...3999).contains(n) { facts.append("\(n) is \(roman(n)) in Roman numerals") }
    facts.append("\(n) is \(n.isMultiple(of: 2) ? "even" : "odd")")
    return facts
  }

  /// `1st`, `2nd`, `3rd`, `11th`, `22nd`.
  static func ordinal(_ k: Int) -> String {
    let suffix =
      (11...13).contains(k % 100)
      ? "th" : (k % 10 == 1 ? "st" : k % 10 == 2 ? "nd" : k % 10 == 3 ? "rd" : "th")
    return "\(k)\(suffix)"
  }

  static func isPrime(_ n: Int) -> Bool {
    guard n > 1 else { return false }
    if n < 4 { return true }
    if n.isMultiple(of: 2) || n.isMultiple(of: 3) { return false }
    var divisor = 5
    while divisor <= n / divisor {
      if n.isMultiple(of: divisor) || n.isMultiple(of: divisor + 2) { return false }
      divisor += 6
    }
    return true
  }

  static func factors(of n: Int) -> [Int] {
    var rest = n
    var found: [Int] = []
    var divisor = 2
    while divisor <= rest / divisor {
      while rest.isMultiple(of: divisor) {
        found.append(divisor)
        rest /= divisor
      }
      divisor += divisor == 2 ? 1 : 2
    }
    if rest > 1 { found.append(rest) }
    return found
  }

  static func divisorCount(_ n: Int) -> Int {
    Dictionary(grouping: factors(of: n), by: { $0 }).values.reduce(1) { $0 * ($1.count + 1) }
  }

  static func isPerfect(_ n: Int) -> Bool {
    guard n < 1 << 40 else { return false }
    var sum = 1
    var divisor = 2
    while divisor * divisor <= n {
      if n.isMultiple(of: divisor) {
        sum += divisor
        if divisor != n / divisor { sum += n / divisor }
      }
      divisor += 1
    }
    return sum == n
  }

  /// The whole number whose `power`th power is `n`, if there is one.
  static func exactRoot(_ n: Int, _ power: Int) -> Int? {
    guard n >= 0 else { return nil }
    let estimate = Int((power == 2 ? Double(n).squareRoot() : cbrt(Double(n))).rounded())
    for candidate in max(0, estimate - 1)...(estimate + 1) {
      var value = 1
      var overflow = false
      for _ in 0..<power where !overflow {
        (value, overflow) = value.multipliedReportingOverflow(by: candidate)
      }
      if !overflow, value == n { return candidate }
    }
    return nil
  }

  static func isFibonacci(_ n: Int) -> Bool {
    var (a, b) = (0, 1)
    while a < n {
      let (next, overflow) = a.addingReportingOverflow(b)
      if overflow { return false }
      (a, b) = (b, next)
    }
    return a == n
  }

  static func triangularIndex(_ n: Int) -> Int? {
    guard n < 1 << 60 else { return nil }
    let k = Int((Double(8 * n + 1).squareRoot() - 1) / 2)
    for candidate in max(1, k - 1)...(k + 1) where candidate * (candidate + 1) / 2 == n {
      return candidate
    }
    return nil
  }

  static func roman(_ n: Int) -> String {
    let symbols: [(Int, String)] = [
      (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"),
      (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
    ]
    var rest = n
    var text = ""
    for (value, symbol) in symbols {
      while rest >= value {
        text += symbol
        rest -= value
      }
    }
    return text
  }
}
