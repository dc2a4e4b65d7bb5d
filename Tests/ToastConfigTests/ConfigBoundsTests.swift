// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import ToastConfig
import ToastCore
import ToastRegex

/// The bounds of a configuration file (issue #38): what crashed toastd,
/// what stalled it, and what ran another command than it said. Each is
/// refused whole, with its line and column.
@Suite("Configuration bounds")
struct ConfigBoundsTests {
    static func problems(_ text: String) -> [ToastdConfig.Problem] {
        switch ToastdConfig.parse(text) {
        case .success: []
        case .failure(let invalid): invalid.problems
        }
    }

    /// 120 KB of nested dotted keys overflowed the stack (SIGSEGV) in
    /// --check-config, at start and at reload.
    @Test(arguments: [
        "a" + String(repeating: ".a", count: 40_000) + " = 1",
        "[" + "t" + String(repeating: ".t", count: 40_000) + "]\nx = 1",
        "x = { " + "a" + String(repeating: ".a", count: 40_000) + " = 1 }",
    ])
    func deeplyNestedKeysAreRefusedNotACrash(text: String) {
        let problems = Self.problems(text)
        #expect(problems.count == 1)
        #expect(problems.first?.message.contains("more than 16 parts") == true, "\(problems)")
        #expect(problems.first.map { ($0.line, $0.column) } ?? (0, 0) == (1, problems.first?.column ?? 0))
    }

    @Test func sixteenPartsAndDotsInStringsCommentsAndNumbersAreFine() {
        let sixteen = "a" + String(repeating: ".a", count: 15) + " = 1"
        #expect(Self.problems(sixteen).allSatisfy { !$0.message.contains("parts") })
        let text = """
            # a comment with many dots: ......................................
            modes = ["a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r"]
            [exec]
            timeout = 1.5
            [[rule]]
            match = { message = '.................................', title = \"\"\"x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x\"\"\" }
            set = { icon = "a.b" }
            """
        #expect(Self.problems(text).isEmpty, "\(Self.problems(text))")
    }

    /// A command's arguments are C strings: TOMLKit, which toastd read TOML
    /// with before, cut the command at a NUL escape, which then ran /usr/bin/touch. Every spelling is an error,
    /// with its place.
    @Test(arguments: [#"\u0000"#, #"\U00000000"#])
    func aNulInAStringIsAnError(escape: String) {
        let text = """
            [[rule]]
            match = {}
            exec = ["/usr/bin/touch\(escape) --help", "/tmp/x"]
            """
        let problems = Self.problems(text)
        #expect(problems.count == 1 && problems[0].line == 3, "\(problems)")
        #expect(problems.first?.message.contains("NUL") == true)
        // An escaped backslash before u0000 is text, not an escape.
        #expect(Self.problems(#"modes = ["a\\u0000"]"#).isEmpty)
        // Literal strings have no escapes.
        #expect(Self.problems(#"modes = ['a\u0000']"#).isEmpty)
    }

    @Test func theRulesHaveABudgetAndACount() throws {
        let heavy = #"(([ab]?){10}){60}[ab]*c?$"#
        let pattern = try BoundedRegex(heavy)
        let steps = pattern.stepsPerByte * ToastLimits.messageBytes
        let fits = RuleBudget.maxSteps / steps
        #expect(fits >= 1, "one heaviest message pattern must fit")
        func rules(_ count: Int, _ match: String) -> String {
            (0..<count).map { "[[rule]]\nmatch = { \(match) }\nset = { icon = \"x\($0)\" }\n" }.joined(separator: "\n")
        }
        #expect(Self.problems(rules(fits, #"message_regex = "\#(heavy)""#)).isEmpty)
        let over = Self.problems(rules(fits + 1, #"message_regex = "\#(heavy)""#))
        #expect(over.count == 1 && over[0].message.contains("budget"), "\(over)")
        #expect(over.first?.line == 4 * fits + 1, "the rule that went over is named: \(over)")
        // The same count of patterns made into tables costs a step a byte.
        #expect(Self.problems(rules(RuleBudget.maxRules, #"message_regex = "(a|b)*c(a|ab)*$""#)).isEmpty)
        let many = Self.problems(rules(RuleBudget.maxRules + 1, #"source = "x""#))
        #expect(many.count == 1 && many[0].message.contains("at most \(RuleBudget.maxRules) rules"), "\(many)")
        let long = Self.problems(rules(1, #"message = "\#(String(repeating: "*a", count: 129))""#))
        #expect(long.first?.message.contains("a glob is at most 256 bytes") == true, "\(long)")
    }

    /// The README's twenty-rule file, the benchmark's, is far inside the budget.
    @Test func aRealFileIsFarInsideTheBudget() throws {
        let config = try ToastdConfig.parse(ToastdConfigTests.example).get()
        let steps = config.rules.rules.reduce(0) { $0 + RuleBudget.steps(of: $1.match) }
        #expect(steps > 0 && steps * 100 < RuleBudget.maxSteps, "\(steps)")
    }
}
