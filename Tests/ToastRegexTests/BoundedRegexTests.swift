// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@_spi(Benchmarks) @testable import ToastRegex

#if canImport(Glibc)
import Glibc
#endif

/// The rules' regular expressions: glibc's ERE semantics, linear time.
@Suite("Bounded regular expressions")
struct BoundedRegexTests {
    /// glibc's answer, the reference.
    static func glibc(_ pattern: String, _ text: String) -> Bool? {
        var compiled = regex_t()
        guard regcomp(&compiled, pattern, REG_EXTENDED | REG_NOSUB) == 0 else { return nil }
        defer { regfree(&compiled) }
        return regexec(&compiled, text, 0, nil, 0) == 0
    }

    /// A small deterministic generator (the same patterns every run).
    typealias Generator = RandomPatterns

    @Test func agreesWithGlibcOnRandomPatternsAndTexts() throws {
        var generator = Generator(state: 42)
        var compared = 0
        for _ in 0..<3_000 {
            let pattern = generator.anchoredPattern()
            guard let regex = try? BoundedRegex(pattern) else {
                Issue.record("refused a pattern glibc takes: \(pattern)")
                continue
            }
            for _ in 0..<8 {
                let text = generator.text()
                guard let expected = Self.glibc(pattern, text) else { continue }
                #expect(regex.matches(text) == expected, "/\(pattern)/ on \"\(text)\"")
                compared += 1
            }
        }
        #expect(compared > 20_000)
    }

    /// Texts with multi-byte scalars between the pattern's letters: the
    /// machine reads UTF-8 a scalar at a time and jumps to the bytes a
    /// match can begin with. Swift's Regex, by scalar, is the reference
    /// (glibc in the C locale reads bytes); whether a match exists does not
    /// depend on which match either engine would pick.
    @Test func agreesWithSwiftRegexOnTextsWithMultiByteScalars() throws {
        var generator = Generator(state: 99)
        var compared = 0
        for _ in 0..<1_500 {
            var pattern = generator.anchoredPattern()
            if generator.next(3) == 0 { pattern = "é" + pattern }
            // Swift's Regex backtracks: a repeated group would make it exponential.
            guard !["*", "+", "?", "{"].contains(where: { pattern.contains(")" + $0) }) else { continue }
            guard let regex = try? BoundedRegex(pattern) else { continue }
            let reference = try Regex(pattern).matchingSemantics(.unicodeScalar)
            for _ in 0..<6 {
                let text = String((0..<generator.next(14)).map { _ in ["a", "b", "c", "!", "é", "🚀", "ab"][generator.next(7)] }.joined())
                #expect(regex.matches(text) == text.contains(reference), "/\(pattern)/ on \"\(text)\"")
                compared += 1
            }
        }
        #expect(compared > 3_000)
        // `.` is one scalar, whatever its length in UTF-8.
        for (pattern, text, expected) in [
            ("a.b", "xa🚀b", true), ("a.b", "aéb", true), ("^.{3}$", "é🚀a", true), ("a.{2}b", "!a🚀ébc", true),
            ("🚀+$", "a🚀🚀", true), ("é.", "aaéé", true), ("^.{2}$", "é🚀a", false), ("a.b", "a🚀🚀b", false),
        ] {
            #expect(try BoundedRegex(pattern).matches(text) == expected, "/\(pattern)/ on \"\(text)\"")
        }
    }

    @Test func namedClassesEscapesAndAnchors() throws {
        #expect(try BoundedRegex(#"^build \d+ failed$"#).matches("build 42 failed"))
        #expect(try !BoundedRegex(#"^build \d+ failed$"#).matches("build x failed"))
        #expect(try BoundedRegex(#"\w+@\w+\.org"#).matches("mail me at ada@example.org today"))
        #expect(try BoundedRegex("[[:upper:]][[:lower:]]+").matches("the Word"))
        #expect(try !BoundedRegex("^[[:digit:]]+$").matches("12a"))
        #expect(try BoundedRegex("caf.$").matches("un café"))
        #expect(try BoundedRegex(#"a\.b"#).matches("a.b"))
        #expect(try !BoundedRegex(#"a\.b"#).matches("axb"))
        #expect(try BoundedRegex("(error|fail)(ed|ure)").matches("Build failure"))
    }

    @Test(arguments: [
        (#"(a)\1"#, "back-references"), ("a{3,1}", "reversed"), ("(ab", "not closed"), ("[ab", "not closed"),
        ("*a", "nothing to repeat"), ("[[:nope:]]", "unknown character class"), ("a{300}", "at most 255"),
        ("(((a{50}){10}){10})", "too large"),
    ])
    func refusesWhatItCannotRunWithAReason(pattern: String, reason: String) {
        #expect {
            _ = try BoundedRegex(pattern)
        } throws: { error in
            (error as? BoundedRegex.Invalid)?.message.contains(reason) == true
        }
    }

    /// The patterns that make backtracking exponential and glibc quadratic
    /// answer correctly on 4 KiB; their cost is in docs/BENCHMARKS.md.
    @Test(arguments: ["^(a+)+$", "(a|aa)*b", "((a|b)*c)*d", "(a|aa|aaa|a*)*(b|c)x", "(.*)*x"])
    func pathologicalPatternsOnALongText(pattern: String) throws {
        let text = String(repeating: "a", count: 4_095) + "!"
        #expect(try BoundedRegex(pattern).matches(text) == Self.glibc(pattern, text))
        let other = String(repeating: "a", count: 4_096) + "bcx d"
        #expect(try BoundedRegex(pattern).matches(other) == Self.glibc(pattern, other))
    }

    // MARK: - The table over ASCII

    /// A random pattern for comparing the machines: anchors anywhere, `^`
    /// and `$` inside an alternation in some, an accented letter in some.
    static func machinePattern(_ generator: inout Generator) -> String {
        var pattern = generator.pattern()
        if generator.next(4) == 0 { pattern = "^" + pattern }
        if generator.next(4) == 0 { pattern += "$" }
        if generator.next(5) == 0 { pattern = "(" + pattern + "|^b|c$)" }
        if generator.next(4) == 0 { pattern = pattern.replacingOccurrences(of: "c", with: "é") }
        return pattern
    }

    /// A random text of ASCII, with multi-byte scalars in some.
    static func machineText(_ generator: inout Generator) -> String {
        let pieces = generator.next(3) == 0 ? ["a", "b", "c", "!", "é", "🚀"] : ["a", "b", "c", "!"]
        return (0..<generator.next(14)).map { _ in pieces[generator.next(pieces.count)] }.joined()
    }

    /// The table answers as the sets of states it was made from: random
    /// patterns (anchors anywhere, accented letters in some) on texts of
    /// ASCII with multi-byte scalars in some, so that both the table and
    /// its hand-over to the sets mid-text are compared.
    @Test func theTableAnswersAsTheSetsOfStates() throws {
        var generator = Generator(state: 2_024)
        var tables = 0
        var compared = 0
        for _ in 0..<3_000 {
            let pattern = Self.machinePattern(&generator)
            guard let regex = try? BoundedRegex(pattern) else { continue }
            if regex.dfa != nil { tables += 1 }
            for _ in 0..<8 {
                let text = Self.machineText(&generator)
                #expect(regex.matchesByMachine(text) == regex.matchesBySets(text), "/\(pattern)/ on \"\(text)\"")
                compared += 1
            }
        }
        #expect(tables > 2_500)
        #expect(compared > 20_000)
    }

    /// The rules' usual patterns get a small table; one whose table would
    /// need thousands of states keeps to the sets, and answers the same.
    @Test func aTableIsMadeOnlyWhenItIsSmall() throws {
        for pattern in ["finished in [0-9]+ s$", "(error|fail(ed|ure))", "^(Deploy|Release)", "(a|aa)*b", "^(a+)+$"] {
            let states = try #require(try BoundedRegex(pattern).dfa, "/\(pattern)/").stateCount
            #expect(states < 64, "/\(pattern)/")
        }
        let large = try BoundedRegex("(a|b)*a(a|b){12}")
        #expect(large.dfa == nil)
        let text = String(repeating: "ab", count: 20) + "a" + String(repeating: "b", count: 12)
        #expect(large.matches(text))
        #expect(!large.matches(String(repeating: "b", count: 40)))
    }

    // MARK: - The sets as bits

    /// The bit vectors answer as the sets of states they were made from:
    /// the table test's random patterns and texts (anchors anywhere, `^`
    /// and `$` inside alternations, scalars outside ASCII in patterns and
    /// texts), each pattern given bits whether or not it has a table.
    @Test func theBitsAnswerAsTheSetsOfStates() throws {
        var generator = Generator(state: 7_331)
        var compared = 0
        var matched = 0
        for _ in 0..<3_000 {
            let pattern = Self.machinePattern(&generator)
            guard let regex = try? BoundedRegex(pattern) else { continue }
            let bits = try #require(BoundedRegex.Bits(regex), "/\(pattern)/")
            for _ in 0..<8 {
                var text = Self.machineText(&generator)
                let bySets = regex.matchesBySets(text)
                let byBits = text.withUTF8 { bits.matches($0, in: regex) }
                #expect(byBits == bySets, "/\(pattern)/ on \"\(text)\"")
                compared += 1
                if bySets { matched += 1 }
            }
        }
        #expect(compared > 20_000)
        #expect(matched > compared / 5 && matched < compared * 4 / 5, "both answers are compared: \(matched) of \(compared)")
    }

    /// A pattern too large for a table gets bits, and answers by them; one
    /// whose vectors would pass their bound keeps to the sets. Texts that
    /// match only at their end, or only with a scalar outside ASCII, and
    /// texts that do not.
    @Test func aPatternWithoutATableGetsBitsWhileTheyStaySmall() throws {
        /// The machine's answer and the sets', each alone.
        func answers(_ regex: BoundedRegex, _ text: String) -> (machine: Bool, sets: Bool) {
            (regex.matchesByMachine(text), regex.matchesBySets(text))
        }
        let heavy = try BoundedRegex(#"(([ab]?){10}){60}[ab]*c"#)
        let heavyBits = try #require(heavy.dfa == nil ? heavy.bits : nil)
        #expect(heavyBits.words == 10)
        #expect(answers(heavy, String(repeating: "ab", count: 300) + "c") == (true, true))
        #expect(answers(heavy, "x" + String(repeating: "ba", count: 40) + "cx") == (true, true))
        #expect(answers(heavy, "c" + String(repeating: "ab", count: 2_046) + "x") == (true, true))
        #expect(answers(heavy, String(repeating: "ab", count: 2_047) + "x") == (false, false))

        let large = try BoundedRegex("(a|b)*a(a|b){12}")
        #expect(large.dfa == nil && large.bits != nil)
        #expect(answers(large, String(repeating: "ab", count: 20) + "a" + String(repeating: "b", count: 12)) == (true, true))
        #expect(answers(large, String(repeating: "b", count: 40)) == (false, false))
        #expect(answers(large, "é🚀a" + String(repeating: "b", count: 12) + "é") == (true, true))
        #expect(answers(large, "é🚀a" + String(repeating: "b", count: 11) + "é") == (false, false))

        let accented = try BoundedRegex("^(é|a|b)*a(é|a|b){12}$")
        #expect(accented.dfa == nil && accented.bits != nil)
        #expect(answers(accented, "ééa" + String(repeating: "é", count: 12)) == (true, true))
        #expect(answers(accented, "ééa" + String(repeating: "é", count: 12) + "🚀") == (false, false))
        #expect(answers(accented, "ééa" + String(repeating: "é", count: 11)) == (false, false))

        // The rows cover only the words their states reach: the heaviest
        // pattern's states lead to every state after them, about half the vector.
        #expect(heavyBits.wordsPerStep < 151 * 10 * 2 / 3, "\(heavyBits.wordsPerStep) words a step")
        #expect(heavyBits.tableBytes == heavyBits.wordsPerStep * 16 * 8)
        let chain = try #require(try BoundedRegex(#"x([ab]{190}){10}"#).bits)
        #expect(chain.wordsPerStep <= 476 * 2, "\(chain.wordsPerStep) words a step: a state leads to the next alone")

        // Past the bound on the rows, no bits (the sets answer alone).
        let bound = heavyBits.tableBytes
        #expect(BoundedRegex.Bits(heavy, maxTableBytes: bound) != nil)
        #expect(BoundedRegex.Bits(heavy, maxTableBytes: bound - 1) == nil)
        // Patterns near the program's bound whose states reach far, forward
        // and back, get bits, and their rows stay small.
        for pattern in [#"(([ab]?){10}){99}"#, #"(([ab]*){10}){66}"#, #"((a|b?c*){10}){24}"#, #"((abc[ab]?){10}){39}"#, #"(((ab?)*c){10}){28}"#, #"(.*a.*b){150}"#] {
            let regex = try BoundedRegex(pattern)
            let bits = try #require(regex.bits, "/\(pattern)/")
            // What the budget charges such a pattern (its states, a byte)
            // stays near what the bits do (words ORed, a byte), each word a
            // fraction of a state's cost: 1,981 states, 2,168 words, for the first.
            #expect(bits.wordsPerStep <= regex.program.count * 5 / 4, "/\(pattern)/: \(bits.wordsPerStep) words a step")
            #expect(bits.tableBytes <= 320 * 1024, "/\(pattern)/: \(bits.tableBytes) bytes")
        }
    }

    // MARK: - The literal prefilter

    /// Which literals a match must contain, as `matches` looks for them first.
    @Test(arguments: [
        ("finished in [0-9]+ s$", ["finished in "]),
        ("(error|fail(ed|ure))", ["error", "fail"]),
        ("^(Deploy|Release)", ["Deploy", "Release"]),
        ("(a|aa)*b", ["b"]),
        ("x{2,3}yz", ["yz"]),
        ("[ab]+cd?e", ["c"]),
        ("(ab)+", ["ab"]),
        ("é+t", ["é"]),
        ("a?", nil),
        (".*", nil),
        ("(a|)b?", nil),
        ("(a|[bc])", nil),
        ("(a|b|c|d|e|f|g|h|i)", nil),
    ] as [(String, [String]?)])
    func requiredLiterals(pattern: String, literals: [String]?) throws {
        let required = try BoundedRegex(pattern).required.map { $0.map { String(decoding: $0, as: UTF8.self) } }
        #expect(required == literals, "/\(pattern)/")
    }

    /// The prefilter only ever saves work: on random patterns and texts
    /// (ASCII and multi-byte), `matches` answers as the machine alone.
    @Test func thePrefilterNeverChangesAnAnswer() throws {
        var generator = Generator(state: 7)
        var refused = 0
        for _ in 0..<2_000 {
            let accented = generator.next(2) == 0
            let pattern = String(generator.anchoredPattern().map { accented && $0 == "c" ? "é" : $0 })
            // A rare pattern is too long or too large to compile; the
            // refusal has its own test.
            // Swift's Regex backtracks: a repeated group would make it exponential.
            guard !["*", "+", "?", "{"].contains(where: { pattern.contains(")" + $0) }) else { continue }
            guard let regex = try? BoundedRegex(pattern) else { continue }
            for _ in 0..<8 {
                let text = String(generator.text().map { accented && $0 == "!" ? "é" : $0 })
                let byMachine = regex.matchesByMachine(text)
                #expect(regex.matches(text) == byMachine, "/\(pattern)/ on \"\(text)\"")
                if !byMachine && regex.required != nil { refused += 1 }
            }
        }
        #expect(refused > 1_000)
    }

    @Test func findsALiteralAnywhereInTheBytes() {
        func find(_ needle: String, _ haystack: String) -> Bool {
            Array(haystack.utf8).withUnsafeBufferPointer { haystack in
                Array(needle.utf8).withUnsafeBufferPointer { BoundedRegex.find($0, in: haystack) }
            }
        }
        #expect(find("ab", "ab"))
        #expect(find("ab", "xxab"))
        #expect(find("aab", "aaab"))
        #expect(find("b", "ab"))
        #expect(!find("ab", "a"))
        #expect(!find("ab", ""))
        #expect(!find("abc", "abxabyab"))
        #expect(find("é", "caf\u{E9}"))
    }
}
