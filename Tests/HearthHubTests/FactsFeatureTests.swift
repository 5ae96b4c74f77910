import Foundation
import HearthDataTestSupport
import HearthTestbed
import Testing

@testable import FactsFeature

@Suite struct NumberFactsTests {
  @Test func factsAreTrueOfTheirNumber() {
    #expect(
      NumberFacts.all(about: 28).contains("28 is a perfect number: the sum of its proper divisors"))
    #expect(NumberFacts.all(about: 28).contains("28 is the 7th triangular number: 1 + … + 7"))
    #expect(NumberFacts.all(about: 97).first == "97 is a prime number")
    #expect(NumberFacts.all(about: 360).contains("360 = 2 × 2 × 2 × 3 × 3 × 5"))
    #expect(NumberFacts.all(about: 360).contains("360 has 24 divisors"))
    #expect(NumberFacts.all(about: 144).contains("144 is a perfect square: 12²"))
    #expect(NumberFacts.all(about: 144).contains("144 is a Fibonacci number"))
    #expect(NumberFacts.all(about: 27).contains("27 is a perfect cube: 3³"))
    #expect(NumberFacts.all(about: 1994).contains("1994 is MCMXCIV in Roman numerals"))
    #expect(NumberFacts.all(about: 12321).contains("12321 is a palindrome"))
    #expect(NumberFacts.all(about: -10).contains("-10 is -1010 in binary and -a in hexadecimal"))
    #expect(
      !NumberFacts.all(about: 26).contains { $0.contains("perfect") || $0.contains("Fibonacci") })
    #expect(NumberFacts.isPrime(1_000_000_007) && !NumberFacts.isPrime(1_000_000_007 * 3))
    #expect(NumberFacts.all(about: Int.max).count >= 3)
    #expect(NumberFacts.all(about: Int.min).last == "\(Int.min) is even")
    #expect(NumberFacts.ordinal(1) == "1st" && NumberFacts.ordinal(12) == "12th")
    #expect(NumberFacts.ordinal(22) == "22nd" && NumberFacts.ordinal(103) == "103rd")
  }
}

@Suite(.serialized) struct FactsFeatureTests {
  @Test func everyCommandThroughALiveHub() throws {
    let live = try LiveHub()
    defer { live.stop() }
    let hub = live.process
    let facts = try FeatureCLI("hearth-facts", hub: hub)

    var run = try facts("add", "42", "--json")
    #expect(run.status == 0, "\(run.errors)")
    #expect((try run.json() as? [String: Any])?["body"] as? String == "42 = 2 × 3 × 7")
    let first = try #require((try run.json() as? [String: Any])?["id"] as? String)
    // Asking again gives another fact.
    run = try facts("add", "42", "--json")
    #expect((try run.json() as? [String: Any])?["body"] as? String == "42 has 8 divisors")
    let second = try #require((try run.json() as? [String: Any])?["id"] as? String)
    try facts("add", "7")
    run = try facts("list", "--json")
    let list = try #require(try run.json() as? [String: Any])
    #expect(list["totalCount"] as? Int == 3 && list["searchCount"] as? Int == 3)
    #expect((list["facts"] as? [[String: Any]])?.first?["body"] as? String == "7 is a prime number")
    run = try facts("search", "42", "--json")
    let search = try #require(try run.json() as? [String: Any])
    #expect(search["searchCount"] as? Int == 2 && search["totalCount"] as? Int == 3)
    #expect(try facts("search", "divisors").output.contains("1 of 3 fact(s) match \"divisors\""))
    run = try facts("count", "--json")
    #expect((try run.json() as? [String: Int]) == ["facts": 3, "numbers": 2])
    try facts("delete", String(first.prefix(6)))
    #expect(try facts("count").output.contains("2 fact(s) about 2 number(s)"))

    // The fact of the day: none until the duty runs, then one, only one.
    #expect(try facts("today").status == 4)
    let (duty, _) = try facts.start(["run", "--interval", "0.1"])
    defer { duty.stop() }
    try eventually { try facts("today").status == 0 }
    Thread.sleep(forTimeInterval: 0.4)
    #expect(try facts("count", "--json").output.contains("\"facts\":3"))

    // Bad input.
    run = try facts("add", "99999999999999999999")
    #expect(run.status == 2 && run.errors.contains("whole number"))
    run = try facts("add", "forty-two")
    #expect(run.status == 2)
    let missing = second.hasPrefix("4040") ? "5050" : "4040"
    run = try facts("delete", second, missing)
    #expect(run.status == 4 && run.errors.contains("no fact \(missing)"))
    #expect(try facts("count", "--json").output.contains("\"facts\":3"))  // none was deleted

    // Watch redraws when another process writes.
    let screen = try facts.startInTerminal(["watch"])
    defer { screen.stop() }
    eventually { screen.text.contains("3 fact(s)") }
    try facts("add", "1994")
    eventually { screen.text.contains("4 fact(s)") && screen.text.contains("1994") }
  }
}
